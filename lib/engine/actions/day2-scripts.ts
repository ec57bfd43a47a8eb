// The fixed shell scripts of the day-2 runs (membership, upgrades, the API address). Like
// host-scripts.ts: constant text, data as positional parameters, changing scripts behind the host-side
// run lock ($1 = this run; see host-scripts.ts).
import { LOCK } from "./host-scripts";
import { ENDPOINT_PATHS, ENDPOINT_UNIT, resetAddressConnections } from "../../assets/endpoint";


/** Where the kubelet's previous binary and files wait while a node is upgraded (rollback). */
export const ROLLBACK_DIR = "/var/lib/bootdeck/rollback";
/** Where an upgrade's preflight leaves the new kubelet and kubectl, verified, for the swap. */
export const STAGE_DIR = "/var/lib/bootdeck/stage";

/**
 * etcd's membership through etcdctl in the master's own etcd container (upstream's etcd image carries
 * it; the hosts need none), authenticated with the member's certificates. $1 = action:
 *   status                    member list, endpoint status and endpoint health of every member, as JSON sections
 *   add-learner NAME PEER     `member add --learner` unless a member has that peer URL already
 *   promote PEER              `member promote` of the learner with that peer URL (etcd refuses until it caught up)
 *   remove PEER               `member remove` of the member with that peer URL, unless it is gone
 * Members are found by peer URL (an added learner has no name until it starts).
 */
export const ETCD_SCRIPT = `set -u
act=$1; shift
c=$(crictl ps -q --state running --label io.kubernetes.pod.namespace=kube-system --label io.kubernetes.container.name=etcd 2>/dev/null | head -n 1)
[ -n "$c" ] || { echo "no running etcd container on $(hostname)" >&2; exit 3; }
# etcdctl's own retry log lines (JSON) are dropped; its errors stay.
ctl() {
  crictl exec "$c" etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/etcd/ca.crt --cert=/etc/kubernetes/etcd/server.crt --key=/etc/kubernetes/etcd/server.key --dial-timeout=3s --command-timeout=8s "$@" 2>/tmp/bootdeck-etcdctl.$$
  rc=$?; grep -v '^{"level"' /tmp/bootdeck-etcdctl.$$ >&2; rm -f /tmp/bootdeck-etcdctl.$$; return $rc
}
section() {
  name=$1; shift; echo "--- $name"
  err=$( { "$@" > /tmp/bootdeck-etcd.$$; } 2>&1 ); cat /tmp/bootdeck-etcd.$$; echo; rm -f /tmp/bootdeck-etcd.$$
  [ -z "$err" ] || printf '%s\\n' "$err" | sed 's/^/error: /'
}
member() { ctl member list -w simple | awk -F', ' -v u="$1" '{ n = split($4, p, ","); for (i = 1; i <= n; i++) if (p[i] == u) { print $1, $6; exit } }'; }
case "$act" in
  status)
    section members ctl member list -w json
    section status ctl endpoint status --cluster -w json
    section health ctl endpoint health --cluster -w json ;;
  add-learner)
    m=$(member "$2") || exit 1
    if [ -n "$m" ]; then echo "bootdeck-etcd present $m"; exit 0; fi
    ctl member add "$1" --peer-urls="$2" --learner >/dev/null && echo "bootdeck-etcd added $1 as a learner" ;;
  promote)
    m=$(member "$1") || exit 1
    [ -n "$m" ] || { echo "no etcd member has the peer URL $1" >&2; exit 1; }
    set -- $m
    if [ "$2" = false ]; then echo "bootdeck-etcd voting $1"; exit 0; fi
    ctl member promote "$1" >/dev/null && echo "bootdeck-etcd promoted $1" ;;
  remove)
    m=$(member "$1") || exit 1
    if [ -z "$m" ]; then echo "bootdeck-etcd absent $1"; exit 0; fi
    set -- $m
    ctl member remove "$1" >/dev/null && echo "bootdeck-etcd removed $1" ;;
  *) echo "unknown etcd action $act" >&2; exit 2 ;;
esac`;

/**
 * Bootdeck's keepalived on a master, when the cluster's API address is a VIP ($2; $3 as ss(8) filters
 * it): `release` stops it (keepalived gives the address up as it stops, and another master takes it at
 * once), `rejoin` starts it again (at equal priority it does not take the address back), `leave` stops
 * and disables it for good.
 * A master releases the address before its API server, its etcd member or its kubelet restarts, or its
 * etcd member is removed: its API server uses only that member, and requests sent to the address
 * meanwhile would hang or be reset. Once the address is gone, the connections that ended here through
 * it are reset, so their clients reconnect to the new holder at once.
 */
export const ADDRESS_SCRIPT = `${LOCK}act=$1 vip=$2 at=$3
if [ ! -f ${ENDPOINT_PATHS.unit} ]; then echo "bootdeck-address none here"; exit 0; fi
case "$act" in
  release) systemctl stop ${ENDPOINT_UNIT} ;;
  rejoin) systemctl start ${ENDPOINT_UNIT} ;;
  leave) systemctl disable --now ${ENDPOINT_UNIT} >/dev/null 2>&1 || systemctl stop ${ENDPOINT_UNIT} ;;
  *) echo "unknown address action $act" >&2; exit 2 ;;
esac
reset=""
if [ "$act" != rejoin ]; then
  n=$( { ${resetAddressConnections('"$vip"', '"$at"')} || true; } 2>/dev/null | tail -n +2 | wc -l)
  reset=", $n of its sockets reset"
fi
echo "bootdeck-address $act: keepalived $(systemctl is-active ${ENDPOINT_UNIT} 2>/dev/null || true)$reset"`;

/**
 * Before a host leaves the cluster: stops and disables its kubelet (so it cannot register its Node
 * again once that is deleted) and Bootdeck's keepalived (the API address moves to another master).
 */
export const STOP_NODE_SCRIPT = `${LOCK}systemctl stop ${ENDPOINT_UNIT} 2>/dev/null || true
systemctl disable ${ENDPOINT_UNIT} 2>/dev/null || true
systemctl stop kubelet 2>/dev/null || true
systemctl disable kubelet 2>/dev/null || true
echo "bootdeck-stopped kubelet$(systemctl is-active --quiet kubelet && echo ' (still active!)')"
if systemctl is-active --quiet kubelet; then exit 1; fi`;

/**
 * The API address on a master, after its files: $@ = those files. Enables Bootdeck's keepalived and
 * (re)starts it only when a file differs from what it last started with (a restart on the holder moves
 * the address), then checks it keeps running for 2 s.
 */
export const ENDPOINT_START_SCRIPT = `${LOCK}stamp=/var/lib/bootdeck/keepalived.stamp
sum=$(cat "$@" | sha256sum | cut -d' ' -f1)
systemctl daemon-reload
systemctl enable ${ENDPOINT_UNIT} >/dev/null 2>&1 || systemctl enable ${ENDPOINT_UNIT}
if [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ] || ! systemctl is-active --quiet ${ENDPOINT_UNIT}; then systemctl restart ${ENDPOINT_UNIT}; echo "$sum" > "$stamp"; fi
before=$(systemctl show -p NRestarts --value ${ENDPOINT_UNIT} 2>/dev/null || echo 0)
sleep 2
after=$(systemctl show -p NRestarts --value ${ENDPOINT_UNIT} 2>/dev/null || echo 0)
if ! systemctl is-active --quiet ${ENDPOINT_UNIT} || [ "\${after:-0}" != "\${before:-0}" ]; then
  echo "keepalived is not running steadily; its journal:" >&2
  journalctl -u ${ENDPOINT_UNIT} -n 30 --no-pager 2>&1 | sed 's/^/journal: /' >&2; exit 1
fi
echo "bootdeck-endpoint $(keepalived --version 2>&1 | head -n 1) active"`;

/**
 * Read-only: the HTTP status of this master's own API server's /readyz ($1 = its port), asked from the
 * master itself. Its API server uses only the local etcd member, so 200 also means that member serves.
 */
export const APISERVER_READYZ_SCRIPT = `curl -sk --max-time 5 -o /dev/null -w '%{http_code}\\n' "https://127.0.0.1:$1/readyz" || true`;

/** Pulls images through the runtime (its registry mirror and credentials): an upgrade's images are on the node before it needs them. $@ = images. */
export const PULL_IMAGES_SCRIPT = `for img in "$@"; do
  crictl pull "$img" >/dev/null 2>/tmp/bootdeck-pull.$$ || { echo "pulling $img failed: $(tail -n 3 /tmp/bootdeck-pull.$$)" >&2; rm -f /tmp/bootdeck-pull.$$; exit 1; }
  echo "pulled $img"
done
rm -f /tmp/bootdeck-pull.$$`;

/**
 * Keeps what a node's rollback needs, before its kubelet is swapped: $1 = the kubelet's path, $2 = the
 * new kubelet (staged, verified), the rest = the kubelet's files. Only while the installed kubelet is
 * not the new one (a resumed step keeps the copy it made before the swap).
 */
export const KUBELET_SAVE_SCRIPT = `${LOCK}bin=$1; new=$2; shift 2
if cmp -s "$bin" "$new"; then echo "bootdeck-rollback kept (the new kubelet is installed already)"; exit 0; fi
rm -rf ${ROLLBACK_DIR}.new && mkdir -p ${ROLLBACK_DIR}.new/files
cp -a "$bin" ${ROLLBACK_DIR}.new/kubelet
for f in "$@"; do
  if [ -e "$f" ]; then mkdir -p "${ROLLBACK_DIR}.new/files$(dirname "$f")" && cp -a "$f" "${ROLLBACK_DIR}.new/files$f"; else echo "$f" >> ${ROLLBACK_DIR}.new/absent; fi
done
sha256sum "$bin" | cut -d' ' -f1 > ${ROLLBACK_DIR}.new/sha256
rm -rf ${ROLLBACK_DIR} && mv ${ROLLBACK_DIR}.new ${ROLLBACK_DIR}
echo "bootdeck-rollback saved $(cat ${ROLLBACK_DIR}/sha256)"`;

/**
 * Rolls a node's kubelet back to what KUBELET_SAVE_SCRIPT kept: $1 = the kubelet's path. Restores the
 * binary and files (removes those that did not exist), restarts the kubelet.
 */
export const KUBELET_ROLLBACK_SCRIPT = `${LOCK}bin=$1
[ -f ${ROLLBACK_DIR}/kubelet ] || { echo "nothing to roll back to: ${ROLLBACK_DIR} is empty" >&2; exit 1; }
cp -a ${ROLLBACK_DIR}/kubelet "$bin.bootdeck-rollback" && mv -f "$bin.bootdeck-rollback" "$bin"
( cd ${ROLLBACK_DIR}/files && find . -type f ) | while read -r f; do p=\${f#.}; mkdir -p "$(dirname "$p")"; cp -a "${ROLLBACK_DIR}/files$p" "$p"; done
[ -f ${ROLLBACK_DIR}/absent ] && while read -r f; do rm -f "$f"; done < ${ROLLBACK_DIR}/absent
systemctl daemon-reload
systemctl restart kubelet
echo "bootdeck-rolled-back to $(cat ${ROLLBACK_DIR}/sha256)"`;

/**
 * Read-only checks of an upgrade on a host: $1 = the new kubelet's URL, $2 = its published checksum's
 * URL. Prints key=value lines: whether the mirror serves both, the installed kubelet's version, free
 * space where the new binary goes, the cgroup version.
 */
export const UPGRADE_PREFLIGHT_SCRIPT = `fetch_head() { if command -v curl >/dev/null 2>&1; then curl -fsSI --max-time 20 -o /dev/null "$1"; else wget -q --spider -T 20 "$1"; fi; }
fetch_head "$1" && echo "binary=ok" || echo "binary=missing"
fetch_head "$2" && echo "sums=ok" || echo "sums=missing"
echo "kubelet=$( /usr/local/bin/kubelet --version 2>/dev/null | awk '{print $2}' )"
echo "free_kb=$(df -Pk /usr/local/bin | awk 'NR == 2 {print $4}')"
echo "stage_free_kb=$(mkdir -p ${STAGE_DIR} && df -Pk ${STAGE_DIR} | awk 'NR == 2 {print $4}')"
echo "cgroup=$(stat -fc %T /sys/fs/cgroup 2>/dev/null)"`;
