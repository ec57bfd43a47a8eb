// The fixed shell scripts of the disaster-recovery runs (backup, restore, recover, certificate
// rotation). Like host-scripts.ts: constant text, data as positional parameters. A host has no
// etcdctl of its own: the tools come from the etcd image the master already runs — `crictl exec` into
// the running etcd container while etcd runs, `ctr run` of the same image while it is stopped (both
// ship with the container runtime Bootdeck installs).
import { HOST_LOCK_FILE, LOCKED_EXIT } from "./host-scripts";

/** etcd's certificates on a master and the data directory, as the etcd static pod mounts them. */
export const ETCD_DIRS = { certs: "/etc/kubernetes/etcd", data: "/var/lib/etcd" } as const;
/** Where restores keep their work: the uploaded snapshot and the restored data before it moves into place. */
export const RESTORE_DIR = "/var/lib/bootdeck/restore";

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

/** etcdctl in the running etcd container, as the member's own client (its server certificate is also a client certificate). */
const ETCDCTL = `c=$(crictl ps -q --state running --label io.kubernetes.pod.namespace=kube-system --label io.kubernetes.container.name=etcd 2>/dev/null | head -n 1)
[ -n "$c" ] || { echo "no running etcd container on $(hostname)" >&2; exit 3; }
ctl() {
  crictl exec "$c" etcdctl --endpoints=https://127.0.0.1:2379 --cacert=${ETCD_DIRS.certs}/ca.crt --cert=${ETCD_DIRS.certs}/server.crt --key=${ETCD_DIRS.certs}/server.key --dial-timeout=3s "$@" 2>/tmp/bootdeck-etcdctl.$$
  rc=$?; grep -v '^{"level"' /tmp/bootdeck-etcdctl.$$ >&2; rm -f /tmp/bootdeck-etcdctl.$$; return $rc
}
`;

/**
 * Backup, on one master: $1 = the snapshot's path in etcd's data directory (the container sees the host's
 * directory at the same path). Checks the local member is healthy, removes leftovers of earlier
 * attempts, `etcdctl snapshot save`, then prints what `etcdutl snapshot status` says of the file and its
 * SHA-256 and size as the host computes them (compared with what Bootdeck receives).
 */
export const SNAPSHOT_SAVE_SCRIPT = `set -u
f=$1
${ETCDCTL}ctl endpoint health --command-timeout=10s >/dev/null || { echo "the etcd member on $(hostname) is not healthy" >&2; exit 4; }
rm -f ${ETCD_DIRS.data}/bootdeck-snapshot-*.db ${ETCD_DIRS.data}/bootdeck-snapshot-*.db.part
ctl snapshot save "$f" --command-timeout=10m >/dev/null || { echo "etcdctl snapshot save failed on $(hostname)" >&2; rm -f "$f" "$f.part"; exit 1; }
echo "bootdeck-snapshot-status $(crictl exec "$c" etcdutl snapshot status "$f" -w json 2>/dev/null)"
echo "bootdeck-snapshot-file $(sha256sum "$f" | cut -d' ' -f1) $(stat -c %s "$f")"`;

/** The snapshot's bytes on stdout (streamed to Bootdeck, which encrypts them on the way to disk). */
export const snapshotFetchArgv = (file: string) => ["cat", "--", file];
/** Removes the snapshot from the master once Bootdeck holds it. */
export const snapshotDiscardArgv = (file: string) => ["rm", "-f", "--", file];

export type SnapshotReport = { sha256: string; size: number; revision: string; totalKeys: number; etcdVersion: string };

/** Parses SNAPSHOT_SAVE_SCRIPT's report; etcd's numbers are uint64, so the revision is kept as text. */
export function parseSnapshotReport(stdout: string): SnapshotReport {
  const status = /^bootdeck-snapshot-status (.*)$/m.exec(stdout)?.[1] ?? "";
  const file = /^bootdeck-snapshot-file ([0-9a-f]{64}) (\d+)$/m.exec(stdout);
  if (!file) throw new Error(`the snapshot's checksum and size were not reported (output: ${stdout.slice(0, 300)})`);
  const num = (name: string) => new RegExp(`"${name}"\\s*:\\s*(\\d+)`).exec(status)?.[1];
  const revision = num("revision");
  if (!revision) throw new Error(`etcdutl snapshot status did not report a revision (output: ${status.slice(0, 300) || "none"})`);
  return {
    sha256: file[1]!,
    size: Number(file[2]),
    revision,
    totalKeys: Number(num("totalKey") ?? 0),
    etcdVersion: /"version"\s*:\s*"([^"]*)"/.exec(status)?.[1] ?? "",
  };
}
