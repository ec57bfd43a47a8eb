// npm run bench:dr -- [--masters 3] [--workers 1] [--objects 10000] [--secrets 10000] [--control-plane self-hosted|static] [--keep]
// Disaster recovery on a fresh lab of real Kubernetes (its own, "drbench"), one cluster, in sequence:
//   1. the cluster filled with N ConfigMaps (1 KiB each), then a backup run: the snapshot's size, etcd's
//      revision and key count, the time etcdctl took, the time the bytes took to stream back encrypted,
//      and the whole run;
//   2. a restore of that backup: the whole run, and the time from the start of the stop phase (the API
//      goes down) until the API answers again, and until the run is done;
//   3. a certificate rotation: the whole run, and the API gap the rotation caused (the API probed every
//      250 ms by the run's steps, and by this script every 100 ms from outside the engine);
//   4. M Secrets (1 KiB each), then an encryption key rotation: the whole run, each step, how fast every
//      Secret was written again, and the API gap from both sides as in 3.
// Needs root and the lab's cached upstream builds (docs/lab-cluster.md).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { LabState } from "../lab/state";
import { labKube } from "../test/lab-kube";
import { labCluster } from "./lab-cluster";
import { startBackupRun } from "../lib/engine/backup-runs";
import { listBackups } from "../lib/backups/store";
import { disconnectDb } from "../lib/db/client";
import { listRunEvents, type StoredRunEvent } from "../lib/engine/events";
import { executeRun } from "../lib/engine/runner";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const exec = promisify(execFile);

/** One /readyz through the API endpoint from a host, asynchronously (the engine runs in this process). */
async function probeReadyz(lab: LabState, host: string): Promise<boolean> {
  const h = lab.hosts.find((x) => x.name === host)!;
  try {
    await exec("ssh", ["-i", lab.adminKeyPath, "-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "LogLevel=error", "-o", "BatchMode=yes", `root@${h.address}`, "kubectl --kubeconfig /etc/kubernetes/kubelet.conf get --raw /readyz --request-timeout=2s"], { timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

/** /readyz from a host through the API endpoint, back to back every 100 ms, until stopped: probes, failures, longest gap. */
function probeFromOutside(lab: LabState, host: string): { stop: () => Promise<{ probes: number; failures: number; gap: number }> } {
  let probes = 0;
  let failures = 0;
  let gap = 0;
  let downSince: number | undefined;
  let probing = true;
  const loop = (async () => {
    while (probing) {
      const t = Date.now();
      const ok = await probeReadyz(lab, host);
      probes++;
      if (ok) {
        if (downSince !== undefined) gap = Math.max(gap, t - downSince);
        downSince = undefined;
      } else {
        failures++;
        downSince ??= t;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (Date.now() - t))));
    }
  })();
  return {
    stop: async () => {
      probing = false;
      await loop;
      return { probes, failures, gap };
    },
  };
}

async function main(): Promise<void> {
  const masters = Number(arg("masters", "3"));
  const workers = Number(arg("workers", "1"));
  const objects = Number(arg("objects", "10000"));
  const secrets = Number(arg("secrets", "10000"));
  const mode = arg("control-plane", "self-hosted") as "self-hosted" | "static";
  const LAB = "drbench";
  console.log(`bench:dr: lab of ${masters} masters + ${workers} workers, ${mode} control plane, ${objects} objects, ${secrets} Secrets…`);
  const cluster = await labCluster({ lab: LAB, masters, workers, controlPlane: mode });
  const { lab, clusterId, run } = cluster;
  const kube = labKube(lab);
  try {
    const boot = await run({ type: "bootstrap", acceptWarnings: true });
    console.log(`bootstrap: ${s(boot.ms)}`);

    // 1. N objects, then a backup.
    const fill = Date.now();
    const batch = 500;
    const payload = "x".repeat(1024);
    for (let i = 0; i < objects; i += batch) {
      const items = Array.from({ length: Math.min(batch, objects - i) }, (_, j) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: `bench-${i + j}`, namespace: "default" }, data: { payload } }));
      kube.kubectl("create -f - -o name >/dev/null", { input: JSON.stringify({ apiVersion: "v1", kind: "List", items }) });
    }
    console.log(`${objects} ConfigMaps created in ${s(Date.now() - fill)}`);
    const backupRun = await startBackupRun({ clusterId, trigger: "manual" });
    const bt = Date.now();
    if ((await executeRun(backupRun, { workerId: "bench" })) !== "succeeded") throw new Error("the backup failed");
    const backupMs = Date.now() - bt;
    const [b] = await listBackups({ clusterId });
    const bEvents = await listRunEvents({ runId: backupRun, limit: 100_000 });
    const saved = bEvents.find((e) => e.type === "step.progress" && /snapshot saved/.test(String(e.data.message)));
    const started = bEvents.find((e) => e.type === "step.started");
    const finished = bEvents.find((e) => e.type === "step.finished");
    console.log(`\nbackup: ${b!.totalKeys} keys at etcd revision ${b!.revision}; snapshot ${(b!.size / 1048576).toFixed(1)} MiB (${(b!.storedSize / 1048576).toFixed(1)} MiB stored)`);
    console.log(`  etcdctl snapshot save (with the health check): ${started && saved ? s(Date.parse(saved.at) - Date.parse(started.at)) : "?"}`);
    console.log(`  streamed back and encrypted: ${(Number(finished?.data.fetchSeconds ?? 0)).toFixed(1)} s`);
    console.log(`  whole run: ${s(backupMs)}`);

    // 2. A restore: the API's downtime and the run.
    const restore = await run({ type: "restore", backup: b!.id, confirm: true });
    const at = (e: StoredRunEvent | undefined) => (e ? Date.parse(e.at) : NaN);
    const phase = (events: StoredRunEvent[], id: string, type = "phase.started") => events.find((e) => e.type === type && e.data.phase === id);
    const down = at(phase(restore.events, "stop"));
    const upPhase = mode === "static" ? "api" : "control-plane";
    const up = at(restore.events.find((e) => e.type === "step.finished" && String(e.data.key).startsWith(`${upPhase}/`)));
    console.log(`\nrestore: whole run ${s(restore.ms)}; upload to the masters ${s(at(phase(restore.events, "upload", "phase.finished")) - at(phase(restore.events, "upload")))}`);
    console.log(`  API down (stop) → answering again: ${s(up - down)}; → run done (pivot, checkpoints, verify): ${s(at(restore.events.at(-1)) - down)}`);
    const count = kube.kubectl("get configmaps -n default --no-headers | wc -l").trim();
    console.log(`  ${count} ConfigMaps in default after the restore`);

    // 3. A rotation: the API gap.
    const gapsOf = (events: StoredRunEvent[]) => events.filter((e) => e.type === "step.finished" && typeof e.data.apiGapS === "number").map((e) => `${String(e.data.key)} ${Number(e.data.apiGapS).toFixed(1)} s (${String(e.data.failedProbes)} failed)`);
    const outside = probeFromOutside(lab, "master-2");
    const rotation = await run({ type: "rotate-certs", confirm: true });
    const o = await outside.stop();
    console.log(`\nrotation: whole run ${s(rotation.ms)}; longest API gap seen by the run's probes: ${gapsOf(rotation.events).join(", ")}`);
    console.log(`  from master-2 (kubectl get --raw /readyz through the API endpoint, back to back): ${o.probes} probes, ${o.failures} failed, longest gap ${s(o.gap)}`);
    for (const e of rotation.events.filter((e) => e.type === "step.finished" && Number(e.data.failedProbes) > 0)) console.log(`  ${String(e.data.key)}: ${String(e.data.summary)}`);

    // 4. M Secrets, then an encryption key rotation.
    const made = Date.now();
    const value = Buffer.from("s".repeat(1024)).toString("base64");
    for (let i = 0; i < secrets; i += batch) {
      const items = Array.from({ length: Math.min(batch, secrets - i) }, (_, j) => ({ apiVersion: "v1", kind: "Secret", metadata: { name: `bench-${i + j}`, namespace: "default" }, data: { value } }));
      kube.kubectl("create -f - -o name >/dev/null", { input: JSON.stringify({ apiVersion: "v1", kind: "List", items }) });
    }
    console.log(`\n${secrets} Secrets created in ${s(Date.now() - made)}`);
    const keyOutside = probeFromOutside(lab, "master-2");
    const keys = await run({ type: "rotate-encryption-key", confirm: true });
    const k = await keyOutside.stop();
    const stepMs = (key: string) => {
      const from = keys.events.find((e) => e.type === "step.started" && e.data.key === key);
      const to = keys.events.find((e) => e.type === "step.finished" && e.data.key === key);
      return from && to ? Date.parse(to.at) - Date.parse(from.at) : NaN;
    };
    const rewrite = keys.events.find((e) => e.type === "step.finished" && e.data.key === "rewrite/cluster");
    const rewritten = Number(rewrite?.data.rewritten ?? 0);
    console.log(`key rotation: whole run ${s(keys.ms)}; add ${s(stepMs("add/cluster"))}, write ${s(stepMs("write/cluster"))}, rewrite ${s(stepMs("rewrite/cluster"))}, drop ${s(stepMs("drop/cluster"))}, verify ${s(stepMs("verify/cluster"))}`);
    console.log(`  ${rewritten} Secrets written again (${(rewritten / (stepMs("rewrite/cluster") / 1000)).toFixed(0)} a second, the etcd check included); ${String(rewrite?.data.summary ?? "")}`);
    console.log(`  API gaps seen by the run's probes: ${gapsOf(keys.events).join(", ")}`);
    console.log(`  from master-2: ${k.probes} probes, ${k.failures} failed, longest gap ${s(k.gap)}`);
  } finally {
    await disconnectDb();
    await cluster.close(process.argv.includes("--keep"));
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
