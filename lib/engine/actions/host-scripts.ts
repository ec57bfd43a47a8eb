// The fixed shell scripts of phases 3–5 and reset. Each takes its data as positional parameters and
// starts with the host-side run lock ($1 = this run, $2 = a finished run whose lock may be taken over),
// so two dashboards (or a dashboard and a hand-run script) never change one host at the same time.

export const HOST_LOCK_FILE = "/var/lib/bootdeck/run.lock";
/** Exit code of a script that found the host locked by another run (EX_TEMPFAIL). */
export const LOCKED_EXIT = 75;

const LOCK = `lock=${HOST_LOCK_FILE}
mkdir -p /var/lib/bootdeck
holder=$(cat "$lock" 2>/dev/null || true)
if [ -n "$holder" ] && [ "$holder" != "$1" ] && [ "$holder" != "$2" ]; then
  echo "bootdeck-locked-by $holder" >&2
  exit ${LOCKED_EXIT}
fi
[ "$holder" = "$1" ] || echo "$1" > "$lock"
shift 2
`;

/** Releases the lock if this run holds it. */
export const UNLOCK_SCRIPT = `lock=${HOST_LOCK_FILE}
[ "$(cat "$lock" 2>/dev/null)" = "$1" ] && rm -f "$lock"
exit 0`;

/** Phase 3: $@ = "command=package" pairs; installs the packages whose command is missing. */
export const PACKAGES_SCRIPT = `${LOCK}missing=""
for pair in "$@"; do
  cmd=\${pair%%=*}; pkg=\${pair#*=}
  command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -z "$missing" ]; then echo "bootdeck-packages present"; exit 0; fi
echo "installing:$missing"
if command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  for try in 1 2 3; do
    timeout 600 apt-get update -q && timeout 600 apt-get install -y -q --no-install-recommends $missing && exit 0
    echo "apt-get failed (attempt $try of 3); retrying in $((try * 5)) s" >&2; sleep $((try * 5))
  done
elif command -v dnf >/dev/null 2>&1; then
  for try in 1 2 3; do
    timeout 600 dnf install -y $missing && exit 0
    echo "dnf failed (attempt $try of 3); retrying in $((try * 5)) s" >&2; sleep $((try * 5))
  done
else
  echo "no apt-get or dnf to install:$missing" >&2
fi
exit 1`;

/**
 * Phase 4: $1 = URL, $2 = sha256, $3 = target path. Downloads only when the installed file's checksum
 * differs, verifies before moving into place, and makes it executable (seed 000 forgot chmod).
 */
export const BINARY_SCRIPT = `${LOCK}url=$1; sum=$2; dest=$3
if [ -f "$dest" ] && echo "$sum  $dest" | sha256sum -c --status - 2>/dev/null; then
  chmod 0755 "$dest"; echo "bootdeck-binary present $dest"; exit 0
fi
mkdir -p "$(dirname "$dest")"
tmp="$dest.bootdeck-download"
rm -f "$tmp"
if command -v curl >/dev/null 2>&1; then curl -fsSL --retry 3 --connect-timeout 10 -o "$tmp" "$url"
elif command -v wget >/dev/null 2>&1; then wget -q -T 10 -t 3 -O "$tmp" "$url"
else echo "neither curl nor wget is installed" >&2; exit 1; fi || { echo "download of $url failed" >&2; rm -f "$tmp"; exit 1; }
if ! echo "$sum  $tmp" | sha256sum -c --status -; then
  echo "checksum mismatch for $url: expected $sum, got $(sha256sum "$tmp" | cut -d' ' -f1)" >&2; rm -f "$tmp"; exit 1
fi
chmod 0755 "$tmp" && mv -f "$tmp" "$dest" && echo "bootdeck-binary installed $dest"`;

/**
 * Phase 5, after the files: $1 = "restart" when a file changed. Reloads units, enables and (re)starts
 * the kubelet, then watches it for $2 seconds: a unit that is not active, was skipped by a condition
 * or restarted meanwhile is a failure, reported with its journal.
 */
export const KUBELET_START_SCRIPT = `${LOCK}systemctl daemon-reload
systemctl enable kubelet >/dev/null 2>&1 || systemctl enable kubelet
if [ "$1" = restart ] || ! systemctl is-active --quiet kubelet; then systemctl restart kubelet; fi
before=$(systemctl show -p NRestarts --value kubelet 2>/dev/null || echo 0)
sleep "$2"
state=$(systemctl is-active kubelet 2>/dev/null || true)
after=$(systemctl show -p NRestarts --value kubelet 2>/dev/null || echo 0)
echo "bootdeck-kubelet state=$state restarts=$before..$after"
if [ "$state" = active ] && [ "\${after:-0}" = "\${before:-0}" ]; then exit 0; fi
echo "the kubelet is not running steadily (state $state, restarts $before → $after); its journal:" >&2
journalctl -u kubelet -n 40 --no-pager 2>&1 | sed 's/^/journal: /' >&2
exit 1`;

/** Pivot: $@ = paths to remove from the first master (the bootstrap manifests and secrets). */
export const REMOVE_SCRIPT = `${LOCK}for p in "$@"; do rm -rf -- "$p"; done
echo "bootdeck-removed $#"`;

/** Read-only: prints "present" for each of $@ that exists. */
export const PRESENT_SCRIPT = `for p in "$@"; do [ -e "$p" ] && echo "present $p"; done
exit 0`;

/** The kubelet's recent journal, for failures. $1 = lines. */
export const JOURNAL_SCRIPT = `journalctl -u kubelet -n "$1" --no-pager 2>&1 || true`;

/**
 * Reset: $@ = paths Bootdeck installed. Stops and disables the kubelet, stops the pods it started (the
 * kubelet's children), removes the files, the kubelet's state and etcd's data.
 */
export const RESET_SCRIPT = `${LOCK}systemctl stop kubelet 2>/dev/null || true
systemctl disable kubelet 2>/dev/null || true
# Pods outlive the kubelet (they belong to the container runtime): stop and remove them all.
if command -v crictl >/dev/null 2>&1; then crictl rmp --all --force >/dev/null 2>&1 || true; fi
for p in "$@"; do rm -rf -- "$p"; done
systemctl daemon-reload 2>/dev/null || true
rm -f ${HOST_LOCK_FILE}
echo "bootdeck-reset removed $# paths"`;
