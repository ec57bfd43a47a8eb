// The fixed shell scripts of the changing phases and reset. Each takes its data as positional
// parameters and starts with the host-side run lock ($1 = this run), so two dashboards (or a dashboard
// and a hand-run script) never change one host at the same time. Services are restarted when the files
// they run with differ from those they last ran steadily with (a checksum kept in a stamp file), never
// on a flag the engine computes at run time: the command sent is the one the plan shows.
import { KERNEL_MODULES, RUNTIME_PATHS } from "../../assets/runtime";
import { shellScript } from "../../ssh/quote";

export const HOST_LOCK_FILE = "/var/lib/bootdeck/run.lock";
/** Exit code of a script that found the host locked by another run (EX_TEMPFAIL). */
export const LOCKED_EXIT = 75;

/**
 * The host lock names the run that holds it. Checking and setting the name happen under flock(1) on
 * the file itself, so two runs that start at the same moment cannot both find it free; the file is
 * emptied, never removed, so every locker flocks the same inode. The run keeps the name until it ends.
 */
const FLOCK = `lock=${HOST_LOCK_FILE}
mkdir -p /var/lib/bootdeck
command -v flock >/dev/null 2>&1 || { echo "flock is missing on this host (install util-linux)" >&2; exit 1; }
exec 9>>"$lock"
flock -w 30 9 || { echo "bootdeck-locked-by (busy: another process holds $lock)" >&2; exit ${LOCKED_EXIT}; }
holder=$(cat "$lock")
`;

/** The prologue of every locked script: takes the host lock for the run $1 (or finds it held), then shifts it off. */
export const LOCK = `${FLOCK}if [ -n "$holder" ] && [ "$holder" != "$1" ]; then
  echo "bootdeck-locked-by $holder" >&2
  exit ${LOCKED_EXIT}
fi
[ "$holder" = "$1" ] || printf '%s\n' "$1" > "$lock"
exec 9>&-
shift 1
`;

/** Releases the lock if the run $1 holds it (the run's end, or taking over a lock a finished run left). */
export const UNLOCK_SCRIPT = `[ -e ${HOST_LOCK_FILE} ] || exit 0
${FLOCK}[ "$holder" = "$1" ] && : > "$lock"
exit 0`;

/** The command that releases the host lock if `runId` holds it. */
export const releaseLockArgv = (runId: string) => shellScript(UNLOCK_SCRIPT, [runId], "bootdeck-unlock");

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
 * is put in place, and leaves files executable (acs-engine's first kubelet install forgot chmod).
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

export const RUNTIME_STAMP_FILE = "/var/lib/bootdeck/containerd.applied";

/**
 * Runtime phase, after its files: $@ = what containerd runs with (its configuration files, the
 * registry credentials drop-in when there is one, and each download: a binary, or the checksum marker
 * of an unpacked tarball). Loads the kernel modules (a module built into the kernel has nothing to
 * load), applies the sysctls, (re)starts containerd when those differ from the stamp or it is not
 * active, and checks the CRI answers Ready (then the stamp is written).
 */
export const RUNTIME_START_SCRIPT = `${LOCK}sum=$(cat -- "$@" 2>/dev/null | sha256sum | cut -d' ' -f1)
for m in ${KERNEL_MODULES.join(" ")}; do
  modprobe "$m" 2>/dev/null || grep -qw "$m" /proc/filesystems /proc/modules 2>/dev/null || [ -d "/sys/module/$m" ] || [ "$m" = br_netfilter -a -e /proc/sys/net/bridge ] || { echo "kernel module $m is not available" >&2; exit 1; }
done
sysctl -q -p ${RUNTIME_PATHS.sysctl} >/dev/null || { echo "applying ${RUNTIME_PATHS.sysctl} failed" >&2; exit 1; }
mkdir -p ${RUNTIME_PATHS.confD} ${RUNTIME_PATHS.cniBin} ${RUNTIME_PATHS.cniConf}
systemctl daemon-reload
systemctl enable containerd >/dev/null 2>&1 || systemctl enable containerd
how=kept
if [ "$sum" != "$(cat ${RUNTIME_STAMP_FILE} 2>/dev/null)" ] || ! systemctl is-active --quiet containerd; then systemctl restart containerd; how=restarted; fi
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
printf '%s\n' "$sum" > ${RUNTIME_STAMP_FILE}
echo "bootdeck-runtime $(containerd --version 2>/dev/null | awk '{print $3}') ready ($how)"`;

export const KUBELET_STAMP_FILE = "/var/lib/bootdeck/kubelet.applied";

/**
 * Phase 5, after the files: $1 = seconds to watch, $2… = the files the step pushed. The kubelet is
 * (re)started when those files differ from the ones it last ran steadily with (their checksum is
 * kept in a stamp file), or when it is not active; so a step repeated after its files were written
 * still restarts it. Then it is watched: a unit that is not active, was skipped by a condition or
 * restarted meanwhile is a failure, reported with its journal.
 */
export const KUBELET_START_SCRIPT = `${LOCK}watch=$1; shift
stamp=${KUBELET_STAMP_FILE}
sum=$(cat -- "$@" 2>/dev/null | sha256sum | cut -d' ' -f1)
systemctl daemon-reload
systemctl enable kubelet >/dev/null 2>&1 || systemctl enable kubelet
how=kept
if [ "$sum" != "$(cat "$stamp" 2>/dev/null)" ] || ! systemctl is-active --quiet kubelet; then systemctl restart kubelet; how=restarted; fi
before=$(systemctl show -p NRestarts --value kubelet 2>/dev/null || echo 0)
sleep "$watch"
state=$(systemctl is-active kubelet 2>/dev/null || true)
after=$(systemctl show -p NRestarts --value kubelet 2>/dev/null || echo 0)
echo "bootdeck-kubelet $how state=$state restarts=$before..$after"
if [ "$state" = active ] && [ "\${after:-0}" = "\${before:-0}" ]; then printf '%s\n' "$sum" > "$stamp"; exit 0; fi
echo "the kubelet is not running steadily (state $state, restarts $before → $after); its journal:" >&2
journalctl -u kubelet -n 40 --no-pager 2>&1 | sed 's/^/journal: /' >&2
exit 1`;

export const CHECKPOINT_STAMP_FILE = "/var/lib/bootdeck/checkpoint.applied";

/**
 * Starts the API server checkpoint's watchdog on a master, restarting it when its files ($@) differ
 * from those it last ran with (or it is not active).
 */
export const CHECKPOINT_ENABLE_SCRIPT = `${LOCK}sum=$(cat -- "$@" 2>/dev/null | sha256sum | cut -d' ' -f1)
systemctl daemon-reload
systemctl enable bootdeck-checkpoint >/dev/null 2>&1 || systemctl enable bootdeck-checkpoint
if [ "$sum" != "$(cat ${CHECKPOINT_STAMP_FILE} 2>/dev/null)" ] || ! systemctl is-active --quiet bootdeck-checkpoint; then systemctl restart bootdeck-checkpoint; fi
systemctl is-active --quiet bootdeck-checkpoint || { echo "bootdeck-checkpoint did not start" >&2; journalctl -u bootdeck-checkpoint -n 20 --no-pager 2>&1 | sed 's/^/journal: /' >&2; exit 1; }
printf '%s\n' "$sum" > ${CHECKPOINT_STAMP_FILE}
echo "bootdeck-checkpoint active"`;

/** Pivot: $@ = paths to remove from the first master (the bootstrap manifests and secrets). */
export const REMOVE_SCRIPT = `${LOCK}for p in "$@"; do rm -rf -- "$p"; done
echo "bootdeck-removed $#"`;

/** Read-only: prints "present" for each of $@ that exists. */
export const PRESENT_SCRIPT = `for p in "$@"; do [ -e "$p" ] && echo "present $p"; done
exit 0`;

/** The kubelet's recent journal, for failures. $1 = lines. */
export const JOURNAL_SCRIPT = `journalctl -u kubelet -n "$1" --no-pager 2>&1 || true`;

/** Removes every pod; crictl's default deadline is 2 s a call, which a busy host's etcd or API server can outlast. */
export const CRICTL_REMOVE_ALL_PODS = "crictl --timeout 60s rmp --all --force";

/**
 * A container the runtime did not remove outlives containerd and its shim (it would keep etcd's or the
 * API server's port, and the next bootstrap's preflight would refuse the host): kills what is left in
 * the pods' cgroups (kubepods, or kubepods.slice with the systemd driver) and waits until it is gone.
 */
export const KILL_POD_LEFTOVERS = `left=$(find /sys/fs/cgroup -path '*kubepods*' -name cgroup.procs -exec cat {} + 2>/dev/null | sort -un | tr '\\n' ' ')
if [ -n "$left" ]; then
  kill -9 $left 2>/dev/null || true
  for _ in $(seq 1 50); do
    alive=""; for p in $left; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    [ -z "$alive" ] && break; sleep 0.2
  done
  echo "bootdeck-reset killed $(echo $left | wc -w) container processes the runtime left behind\${alive:+ (still alive:$alive)}"
fi`;

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
if command -v crictl >/dev/null 2>&1; then ${CRICTL_REMOVE_ALL_PODS} >/dev/null 2>&1 || true; fi
systemctl stop containerd 2>/dev/null || true
systemctl disable containerd 2>/dev/null || true
# "[c]" so the pattern does not match this script's own command line (it contains the pattern's text).
pkill -f '[c]ontainerd-shim' 2>/dev/null || true
${KILL_POD_LEFTOVERS}
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
echo "bootdeck-reset removed $# paths"`;
