// The fixed shell scripts of phases 3–5 and reset. Each takes its data as positional parameters and
// starts with the host-side run lock ($1 = this run, $2 = a finished run whose lock may be taken over),
// so two dashboards (or a dashboard and a hand-run script) never change one host at the same time.

import { KERNEL_MODULES, RUNTIME_PATHS } from "../../assets/runtime";

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
 * Phases 4 and runtime: $1 = URL, $2 = pinned sha256 or "" (then the checksum is read from $3, the
 * mirror's published sums: a bare digest or sha256sum lines), $4 = target, $5 = "file" or "tar" (a
 * tarball unpacked into the directory $4). Downloads only when what is installed differs (a file's
 * own checksum; for a tarball, the checksum recorded when it was unpacked), verifies before anything
 * is put in place, and leaves files executable (seed 000 forgot chmod).
 */
export const DOWNLOAD_SCRIPT = `${LOCK}url=$1; sum=$2; sums=$3; dest=$4; unpack=$5
name=\${url##*/}
fetch() { if command -v curl >/dev/null 2>&1; then curl -fsSL --retry 3 --connect-timeout 10 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then wget -q -T 10 -t 3 -O "$2" "$1"
  else echo "neither curl nor wget is installed" >&2; return 1; fi; }
if [ -z "$sum" ]; then
  fetch "$sums" /tmp/bootdeck-sums.$$ || { echo "could not read the published checksum $sums" >&2; exit 1; }
  sum=$(awk -v f="$name" 'NF == 1 || $2 == f || $2 == "*" f { print $1; exit }' /tmp/bootdeck-sums.$$); rm -f /tmp/bootdeck-sums.$$
  case "$sum" in *[!0-9a-f]*|"") echo "no checksum for $name in $sums" >&2; exit 1 ;; esac
  [ \${#sum} -eq 64 ] || { echo "no SHA-256 for $name in $sums" >&2; exit 1; }
fi
marker="$dest/.bootdeck-$name.sha256"
if [ "$unpack" = file ] && [ -f "$dest" ] && echo "$sum  $dest" | sha256sum -c --status - 2>/dev/null; then
  chmod 0755 "$dest"; echo "bootdeck-binary present $dest"; exit 0
fi
if [ "$unpack" = tar ] && [ "$(head -n 1 "$marker" 2>/dev/null)" = "$sum" ]; then echo "bootdeck-binary present $dest ($name)"; exit 0; fi
tmp=/var/lib/bootdeck/download.$$; mkdir -p /var/lib/bootdeck; rm -f "$tmp"
fetch "$url" "$tmp" || { echo "download of $url failed" >&2; rm -f "$tmp"; exit 1; }
if ! echo "$sum  $tmp" | sha256sum -c --status -; then
  echo "checksum mismatch for $url: expected $sum, got $(sha256sum "$tmp" | cut -d' ' -f1)" >&2; rm -f "$tmp"; exit 1
fi
if [ "$unpack" = tar ]; then
  mkdir -p "$dest" && tar -xzf "$tmp" -C "$dest" --no-same-owner || { echo "unpacking $name into $dest failed" >&2; rm -f "$tmp"; exit 1; }
  { echo "$sum"; tar -tzf "$tmp"; } > "$marker"; rm -f "$tmp"
  echo "bootdeck-binary installed $dest ($name)"
else
  mkdir -p "$(dirname "$dest")" && chmod 0755 "$tmp" && mv -f "$tmp" "$dest" && echo "bootdeck-binary installed $dest"
fi`;

/** The packages the host's package manager installs when the runtime comes from packages. */
export const RUNTIME_PACKAGES = ["containerd", "runc"];

/** Runtime from the host's packages: $@ = packages (containerd runc), installed when missing. */
export const RUNTIME_PACKAGES_SCRIPT = `${LOCK}missing=""
for p in "$@"; do command -v "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -z "$missing" ]; then echo "bootdeck-packages present"; exit 0; fi
echo "installing:$missing"
if command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  timeout 600 apt-get update -q && timeout 600 apt-get install -y -q --no-install-recommends $missing && exit 0
elif command -v dnf >/dev/null 2>&1; then
  timeout 600 dnf install -y $missing && exit 0
else echo "no apt-get or dnf to install:$missing" >&2; fi
exit 1`;

/**
 * Runtime phase, after its files: $1 = "restart" when a file changed, $2 = the registry credentials
 * drop-in's path (written before, or absent). Loads the kernel modules (a module built into the kernel
 * has nothing to load), applies the sysctls, (re)starts containerd and checks the CRI answers Ready.
 */
export const RUNTIME_START_SCRIPT = `${LOCK}for m in ${KERNEL_MODULES.join(" ")}; do
  modprobe "$m" 2>/dev/null || grep -qw "$m" /proc/filesystems /proc/modules 2>/dev/null || [ -d "/sys/module/$m" ] || [ "$m" = br_netfilter -a -e /proc/sys/net/bridge ] || { echo "kernel module $m is not available" >&2; exit 1; }
done
sysctl -q -p ${RUNTIME_PATHS.sysctl} >/dev/null || { echo "applying ${RUNTIME_PATHS.sysctl} failed" >&2; exit 1; }
mkdir -p ${RUNTIME_PATHS.confD} ${RUNTIME_PATHS.cniBin} ${RUNTIME_PATHS.cniConf}
systemctl daemon-reload
systemctl enable containerd >/dev/null 2>&1 || systemctl enable containerd
if [ "$1" = restart ] || ! systemctl is-active --quiet containerd; then systemctl restart containerd; fi
i=0
until conditions=$(crictl info -o go-template --template '{{range .status.conditions}}{{.type}}={{.status}} {{end}}' 2>&1); do
  i=$((i + 1))
  if [ "$i" -ge 30 ]; then
    echo "containerd does not answer over CRI after 30 s ($conditions); its journal:" >&2
    journalctl -u containerd -n 30 --no-pager 2>&1 | sed 's/^/journal: /' >&2; exit 1
  fi
  sleep 1
done
case " $conditions" in *" RuntimeReady=true "*) ;; *) echo "containerd answers but is not RuntimeReady: $conditions" >&2; exit 1 ;; esac
echo "bootdeck-runtime $(containerd --version 2>/dev/null | awk '{print $3}') ready"`;

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

/** Starts (or, when a file changed, restarts) the API server checkpoint's watchdog on a master. $1 = "restart" or "keep". */
export const CHECKPOINT_ENABLE_SCRIPT = `${LOCK}systemctl daemon-reload
systemctl enable bootdeck-checkpoint >/dev/null 2>&1 || systemctl enable bootdeck-checkpoint
if [ "$1" = restart ] || ! systemctl is-active --quiet bootdeck-checkpoint; then systemctl restart bootdeck-checkpoint; fi
systemctl is-active --quiet bootdeck-checkpoint || { echo "bootdeck-checkpoint did not start" >&2; journalctl -u bootdeck-checkpoint -n 20 --no-pager 2>&1 | sed 's/^/journal: /' >&2; exit 1; }
echo "bootdeck-checkpoint active"`;

/** Pivot: $@ = paths to remove from the first master (the bootstrap manifests and secrets). */
export const REMOVE_SCRIPT = `${LOCK}for p in "$@"; do rm -rf -- "$p"; done
echo "bootdeck-removed $#"`;

/** Read-only: prints "present" for each of $@ that exists. */
export const PRESENT_SCRIPT = `for p in "$@"; do [ -e "$p" ] && echo "present $p"; done
exit 0`;

/** The kubelet's recent journal, for failures. $1 = lines. */
export const JOURNAL_SCRIPT = `journalctl -u kubelet -n "$1" --no-pager 2>&1 || true`;

/**
 * Reset: $@ = paths Bootdeck installed. Stops and disables the kubelet, removes every pod (they belong
 * to the container runtime and outlive the kubelet), stops containerd and what it left (shims, mounts,
 * the pod network's interfaces and rules), then removes the files, the kubelet's and containerd's state
 * and etcd's data. A directory that is a mount point keeps existing, emptied.
 */
export const RESET_SCRIPT = `${LOCK}systemctl stop bootdeck-keepalived 2>/dev/null || true
systemctl disable bootdeck-keepalived 2>/dev/null || true
systemctl stop bootdeck-checkpoint 2>/dev/null || true
systemctl disable bootdeck-checkpoint 2>/dev/null || true
systemctl stop kubelet 2>/dev/null || true
systemctl disable kubelet 2>/dev/null || true
if command -v crictl >/dev/null 2>&1; then crictl rmp --all --force >/dev/null 2>&1 || true; fi
systemctl stop containerd 2>/dev/null || true
systemctl disable containerd 2>/dev/null || true
# "[c]" so the pattern does not match this script's own command line (it contains the pattern's text).
pkill -f '[c]ontainerd-shim' 2>/dev/null || true
awk '$2 ~ "^/(var/lib/kubelet|run/containerd|var/lib/containerd|run/netns)/" { print $2 }' /proc/mounts | sort -r | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
for i in cni0 flannel.1; do ip link del "$i" 2>/dev/null || true; done
if command -v iptables-save >/dev/null 2>&1; then iptables-save | grep -v -e KUBE- -e FLANNEL -e CNI- | iptables-restore 2>/dev/null || true; fi
for p in "$@"; do
  case "$p" in
    */.bootdeck-*.sha256) [ -f "$p" ] && tail -n +2 "$p" | while read -r f; do case "$f" in */) ;; *) rm -f -- "$(dirname "$p")/$f" ;; esac; done ;;
  esac
done
for p in "$@"; do
  if mountpoint -q "$p" 2>/dev/null; then find "$p" -mindepth 1 -maxdepth 1 -exec rm -rf -- {} + 2>/dev/null; else rm -rf -- "$p"; fi
done
systemctl daemon-reload 2>/dev/null || true
rm -f ${HOST_LOCK_FILE}
echo "bootdeck-reset removed $# paths"`;
