// The fixed shell scripts of the disaster-recovery runs (backup, restore, recover, certificate
// rotation). Like host-scripts.ts: constant text, data as positional parameters, changing scripts behind
// the host-side run lock ($1 = this run, shifted off before the script's own parameters). A host has no
// etcdctl of its own: the tools come from the etcd image the master already runs — `crictl exec` into
// the running etcd container while etcd runs, `ctr run` of the same image while it is stopped (both
// ship with the container runtime Bootdeck installs).
import { CRICTL_REMOVE_ALL_PODS, LOCK } from "./host-scripts";

/** etcd's certificates on a master and the data directory, as the etcd static pod mounts them. */
export const ETCD_DIRS = { certs: "/etc/kubernetes/etcd", data: "/var/lib/etcd" } as const;
/** Where restores keep their work: the uploaded snapshot and the restored data before it moves into place. */
export const RESTORE_DIR = "/var/lib/bootdeck/restore";

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

/** Read-only: the SHA-256 of a restore's uploaded snapshot, when one is there. $1 = its path. */
export const SNAPSHOT_PROBE_SCRIPT = `[ -f "$1" ] && sha256sum "$1" | cut -d' ' -f1 || true`;

/**
 * Restore, before anything stops: the snapshot arrives on stdin. $1 = its path, $2 = its SHA-256, $3 =
 * its size (after the run lock's own parameter). Written beside its place, checked, then renamed: a partial or changed file is never used.
 */
export const SNAPSHOT_UPLOAD_SCRIPT = `${LOCK}f=$1; sum=$2; size=$3
mkdir -p "$(dirname "$f")" && chmod 0700 "$(dirname "$f")"
cat > "$f.part" || { echo "writing $f.part failed" >&2; rm -f "$f.part"; exit 1; }
got=$(sha256sum "$f.part" | cut -d' ' -f1); n=$(stat -c %s "$f.part")
if [ "$got" != "$sum" ] || [ "$n" != "$size" ]; then echo "the snapshot arrived changed: $n bytes, sha256 $got (expected $size bytes, $sum)" >&2; rm -f "$f.part"; exit 1; fi
chmod 0600 "$f.part" && mv -f "$f.part" "$f" && echo "bootdeck-snapshot uploaded $n bytes"`;

/**
 * Restore and reboot recovery: stops a master's control plane as a power cut would — the checkpoint
 * watchdog (started again by the run's last steps), the kubelet, then every pod on the host (they belong
 * to the runtime and outlive the kubelet): etcd, the API servers, the checkpoint's. $@ = the static pod
 * manifests to remove (the active checkpoint's).
 */
export const STOP_CONTROL_PLANE_SCRIPT = `${LOCK}systemctl stop bootdeck-checkpoint 2>/dev/null || true
systemctl stop kubelet
for f in "$@"; do rm -f -- "$f"; done
${CRICTL_REMOVE_ALL_PODS} >/dev/null 2>&1 || ${CRICTL_REMOVE_ALL_PODS} >/dev/null
left=$(crictl ps -q 2>/dev/null | wc -l)
[ "$left" = 0 ] || { echo "$left containers still run on $(hostname) after crictl rmp" >&2; exit 1; }
echo "bootdeck-stopped kubelet and every pod"`;

/**
 * Restore, on a stopped master: etcdutl from the etcd image ($1) through ctr (the container runtime's
 * own client; the host needs no etcd tools), into a new data directory, which then replaces etcd's —
 * the old one is kept beside it. $2 = member name, $3 = initial cluster, $4 = the new cluster token,
 * $5 = the member's peer URL. The revision is raised and marked compacted, so watchers and caches of
 * the old revisions start over. Done once per run (a marker names it).
 */
export const ETCD_RESTORE_SCRIPT = `${LOCK}image=$1; name=$2; cluster=$3; token=$4; peer=$5
# The lock names the run holding it: this one.
run=$(cat "$lock")
dir=${RESTORE_DIR}; data=${ETCD_DIRS.data}; marker=$dir/restored-$run
if [ -f "$marker" ] && [ -d "$data/member" ]; then echo "bootdeck-etcd restored already by $run"; exit 0; fi
[ -f "$dir/snapshot.db" ] || { echo "no snapshot at $dir/snapshot.db" >&2; exit 1; }
if ! ctr -n k8s.io images ls -q "name==$image" | grep -q .; then crictl pull "$image" >/dev/null || { echo "the etcd image $image is not on $(hostname) and could not be pulled" >&2; exit 1; }; fi
rm -rf "$dir/data"
ctr -n k8s.io tasks kill -s KILL bootdeck-etcdutl >/dev/null 2>&1; ctr -n k8s.io containers rm bootdeck-etcdutl >/dev/null 2>&1
set -- etcdutl snapshot restore "$dir/snapshot.db" --name "$name" --initial-cluster "$cluster" --initial-cluster-token "$token" --initial-advertise-peer-urls "$peer" --data-dir "$dir/data" --bump-revision 1000000000 --mark-compacted
ctr -n k8s.io run --rm --mount "type=bind,src=$dir,dst=$dir,options=rbind:rw" "$image" bootdeck-etcdutl "$@" > "$dir/etcdutl.log" 2>&1 || { echo "etcdutl snapshot restore failed on $(hostname):" >&2; grep -vE '"level":"info"|[[:space:]]info[[:space:]]' "$dir/etcdutl.log" | tail -n 8 >&2; exit 1; }
[ -d "$dir/data/member" ] || { echo "etcdutl left no member directory in $dir/data" >&2; exit 1; }
if [ -e "$data" ]; then rm -rf "$data.before-$run"; mv "$data" "$data.before-$run"; fi
mv "$dir/data" "$data" && chmod 0700 "$data" && echo "$run" > "$marker"
echo "bootdeck-etcd restored $name (the previous data is in $data.before-$run)"`;

/** Starts the kubelet (enabled and started; its static pods come back). */
export const KUBELET_UP_SCRIPT = `${LOCK}systemctl enable kubelet >/dev/null 2>&1 || true
systemctl start kubelet
systemctl is-active --quiet kubelet || { echo "the kubelet did not start on $(hostname)" >&2; journalctl -u kubelet -n 20 --no-pager 2>&1 | sed 's/^/journal: /' >&2; exit 1; }
echo "bootdeck-kubelet active"`;

/**
 * Read-only, on a master: how etcd holds the Secrets. $1 = the prefix every value should begin with (a
 * key's `k8s:enc:secretbox:v1:<name>:`). Prints `secrets=N` and `with-key=M`, and up to 10 lines
 * `other: <etcd key> <first 24 characters>` for values that do not begin with it (`etcdctl -w fields`
 * prints each key and value quoted, so binary values stay on one line).
 */
export const SECRETS_AT_REST_SCRIPT = `set -u
${ETCDCTL}ctl get /registry/secrets/ --prefix -w fields > /tmp/bootdeck-at-rest.$$ || { rm -f /tmp/bootdeck-at-rest.$$; exit 5; }
awk -v want="\\"Value\\" : \\"$1" '
  index($0, "\\"Key\\" : ") == 1 { key = substr($0, 9) }
  index($0, "\\"Value\\" : ") == 1 { n++; if (index($0, want) == 1) ok++; else if (shown++ < 10) print "other: " key " " substr($0, 11, 24) }
  END { print "secrets=" n + 0; print "with-key=" ok + 0 }' /tmp/bootdeck-at-rest.$$
rm -f /tmp/bootdeck-at-rest.$$`;

/** SECRETS_AT_REST_SCRIPT's counts and the first Secrets stored otherwise. */
export function parseSecretsAtRest(stdout: string): { secrets: number; withKey: number; others: string[] } {
  const count = (name: string) => Number(new RegExp(`^${name}=(\\d+)$`, "m").exec(stdout)?.[1] ?? "NaN");
  return { secrets: count("secrets"), withKey: count("with-key"), others: [...stdout.matchAll(/^other: (.*)$/gm)].map((m) => m[1]!) };
}

/**
 * Read-only, on a master: its etcd member's view — `endpoint health --cluster` and `endpoint status
 * --cluster` as JSON sections (every member's health, revision, leader).
 */
export const ETCD_STATUS_SCRIPT = `set -u
${ETCDCTL}echo "--- health"; ctl endpoint health --cluster -w json --command-timeout=5s; echo
echo "--- status"; ctl endpoint status --cluster -w json --command-timeout=5s; echo`;

/**
 * Read-only, on a master: how many containers of each self-hosted control-plane component run there
 * (in ready pods with its k8s-app label; the checkpoint and bootstrap pods have their own labels).
 * Prints "k8s-app=N" per $@.
 */
export const SELF_HOSTED_RUNNING_SCRIPT = `for app in "$@"; do
  n=0
  for pod in $(crictl pods -q --state ready --namespace kube-system --label "k8s-app=$app" 2>/dev/null); do
    crictl ps -q --pod "$pod" --state running 2>/dev/null | grep -q . && n=$((n + 1))
  done
  echo "$app=$n"
done`;

export type EtcdHealth = { members: { endpoint: string; healthy: boolean; error?: string; revision?: string }[]; errors: string[] };

/** Parses ETCD_STATUS_SCRIPT's sections; etcd's numbers are uint64, read as text. */
export function parseEtcdHealth(stdout: string): EtcdHealth {
  const section = (name: string) => stdout.split(`--- ${name}\n`)[1]?.split("\n--- ")[0]?.trim() ?? "";
  const errors: string[] = [];
  const members = new Map<string, EtcdHealth["members"][number]>();
  try {
    for (const e of JSON.parse(section("health") || "[]") as { endpoint: string; health: boolean; error?: string }[]) members.set(e.endpoint, { endpoint: e.endpoint, healthy: e.health, ...(e.error ? { error: e.error } : {}) });
  } catch {
    errors.push(`etcdctl endpoint health said: ${section("health").slice(0, 300) || "nothing"}`);
  }
  const status = section("status");
  for (const m of status.matchAll(/"Endpoint"\s*:\s*"([^"]+)"[^]*?"revision"\s*:\s*(\d+)/g)) {
    const row = members.get(m[1]!);
    if (row) row.revision = m[2];
  }
  return { members: [...members.values()].sort((a, b) => a.endpoint.localeCompare(b.endpoint)), errors };
}

/**
 * Read-only: whether the temporary API server a rotation starts beside the real one runs and is ready
 * on this master (its pod ready, its container running). Prints "ready" or "waiting".
 */
export const TEMP_APISERVER_READY_SCRIPT = `ready=waiting
for pod in $(crictl pods -q --state ready --namespace kube-system --label k8s-app=bootstrap-kube-apiserver 2>/dev/null); do
  crictl ps -q --pod "$pod" --state running 2>/dev/null | grep -q . && ready=ready
done
echo "$ready"`;

/**
 * Rotation, on one master while a temporary API server serves beside it: restarts the containers of
 * the pods labelled k8s-app=$@ (the API server; on a static control plane also the controller-manager
 * and scheduler) so they read their renewed certificates, and waits until each runs again, in a new
 * container, with its pod ready. The stopped container is removed at once: the kubelet holds a restart
 * back-off (up to 5 min) against a pod whose container exited after recent crashes (a reboot, a
 * recovery), and applies it only while it still sees that exited container. If the kubelet sees it
 * first, the wait covers the longest back-off; past that, what the runtime and the kubelet say is shown.
 */
export const RESTART_CONTAINERS_SCRIPT = `${LOCK}for app in "$@"; do
  pods=$(crictl pods -q --namespace kube-system --label "k8s-app=$app" --state ready 2>/dev/null)
  [ -n "$pods" ] || { echo "no ready pod of $app on $(hostname)" >&2; exit 1; }
  for pod in $pods; do
    old=$(crictl ps -q --pod "$pod" --state running | head -n 1)
    if [ -n "$old" ]; then crictl stop "$old" >/dev/null; crictl rm "$old" >/dev/null 2>&1; fi
    i=0
    while :; do
      new=$(crictl ps -q --pod "$pod" --state running | head -n 1)
      ready=$(crictl pods -q --id "$pod" --state ready)
      [ -n "$new" ] && [ "$new" != "$old" ] && [ -n "$ready" ] && break
      i=$((i + 1))
      [ "$i" -eq 30 ] && echo "$app not running again after 30 s on $(hostname): waiting out the kubelet's restart back-off"
      if [ "$i" -ge 330 ]; then
        echo "$app did not run again within 5.5 min on $(hostname); its containers:" >&2
        crictl ps -a --pod "$pod" >&2
        journalctl -u kubelet --since "-6min" --no-pager 2>/dev/null | grep -i "$app" | tail -n 5 | sed 's/^/kubelet: /' >&2
        exit 1
      fi
      sleep 1
    done
    echo "restarted $app ($old -> $new) after $i s"
  done
done`;

/**
 * Rotation of a node's kubelet certificates: the serving pair (the kubelet makes a new one) and, with
 * $1 = "client", the client certificate (the kubelet asks for a new one through a CSR with its
 * bootstrap token) are moved aside (kept as *.bootdeck-old), then the kubelet restarts.
 */
export const KUBELET_CERTS_SCRIPT = `${LOCK}pki=/var/lib/kubelet/pki; stamp=$(date +%s)
for f in kubelet.crt kubelet.key; do [ -e "$pki/$f" ] && mv -f "$pki/$f" "$pki/$f.bootdeck-old"; done
if [ "$1" = client ] && [ -e "$pki/kubelet-client-current.pem" ]; then
  cp -L "$pki/kubelet-client-current.pem" "$pki/kubelet-client-$stamp.pem.bootdeck-old" && rm -f "$pki/kubelet-client-current.pem"
fi
systemctl restart kubelet
sleep 3
systemctl is-active --quiet kubelet || { echo "the kubelet did not restart on $(hostname)" >&2; journalctl -u kubelet -n 20 --no-pager 2>&1 | sed 's/^/journal: /' >&2; exit 1; }
echo "bootdeck-kubelet restarted with new certificates to come"`;
