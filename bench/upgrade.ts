// npm run bench:upgrade -- [--masters 3] [--workers 5] [--from v1.36.3] [--to v1.37.2] [--workers-batch 10%] [--keep]
// A minor upgrade of a fresh lab cluster (its own lab, "bupg"): bootstrapped at --from behind the VIP,
// then upgraded to --to. Prints the wall time of each phase and in total, each node's kubelet upgrade
// (cordon to uncordon), and the API's availability during the upgrade: GET /api/v1/namespaces/default
// (a quorum read, admin credentials) on the VIP, a probe started every 100 ms, each on a new
// connection, from one Node process inside the last worker's network namespace (a curl process per
// probe cost the saturated machine more CPU than the API it measured), as a client of the cluster meets
// the address; answered = HTTP 200 within 5 s. Also printed: the share answered within 1 s, answer times,
// failures by kind and when each failure happened. The probe runs outside this process, which also runs
// the engine: a probe in its event loop (as this benchmark had at first) counts the engine's busy
// moments as outages. Needs root.
import { readFileSync } from "node:fs";
import { labClusterDefinition, labVip } from "../lab/cluster-yaml";
import { labDown, labUp } from "../lab/lab";
import { probeFromHost } from "../test/lab-api";
import { availability } from "./availability";
import { createTempDb } from "../test/temp-db";
import { validateClusterDefinition } from "../lib/cluster/definition";
import { createCluster } from "../lib/clusters/repository";
import { disconnectDb, getDb } from "../lib/db/client";
import { listRunEvents } from "../lib/engine/events";
import { planRun } from "../lib/engine/plan-run";
import { executeRun } from "../lib/engine/runner";
import { startRun } from "../lib/engine/runs";
import { adminCredentialsFrom } from "../lib/engine/cluster-api";
import { assetContent } from "../lib/assets/store";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
  const masters = Number(arg("masters", "3"));
  const workers = Number(arg("workers", "5"));
  const from = arg("from", "v1.36.3");
  const to = arg("to", "v1.37.2");
  const LAB = "bupg";
  console.log(`bench:upgrade: lab of ${masters} masters + ${workers} workers, ${from} → ${to}…`);
  labDown(LAB, () => undefined);
  const lab = await labUp({ name: LAB, masters, workers, kubernetesVersions: [from, to], log: () => undefined });
  const db = await createTempDb();
  try {
    const v = validateClusterDefinition(labClusterDefinition(lab, "bench-upgrade", from).definition);
    if (!v.ok) throw new Error(JSON.stringify(v.errors));
    const secrets = { "lab-admin": { privateKey: readFileSync(lab.adminKeyPath, "utf8") }, "lab-registry": { password: readFileSync(lab.registry!.passwordFile, "utf8").trim() } };
    const { id: clusterId } = await createCluster({ definition: v.definition, secrets });
    const boot = await planRun({ clusterId, body: { type: "bootstrap", acceptWarnings: true }, by: "bench" });
    await startRun({ runId: boot });
    const bootStart = Date.now();
    const bootStatus = await executeRun(boot, { workerId: "bench" });
    console.log(`bootstrap at ${from}: ${s(Date.now() - bootStart)} (${bootStatus})`);
    if (bootStatus !== "succeeded") throw new Error("the bootstrap failed: no upgrade to measure");

    const planStart = Date.now();
    const runId = await planRun({ clusterId, body: { type: "upgrade", version: to, batches: { workers: arg("workers-batch", "10%") } }, by: "bench" });
    const planMs = Date.now() - planStart;
    await startRun({ runId });
    // An API request like any client's (a quorum read of the default namespace), with the admin credentials.
    const set = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { assetSet: { select: { assets: { where: { path: "auth/kubeconfig" }, select: { id: true, content: true, sensitive: true } } } } } });
    const admin = adminCredentialsFrom(assetContent(set.assetSet!.assets[0]!));
    const vip = labVip(lab);
    const probeHost = `worker-${workers}`;
    const fromHost = probeFromHost(lab, probeHost, `https://${vip}:6443/api/v1/namespaces/default`, 100, { client: admin, maxTimeS: 5, fixedCadence: true });
    const start = Date.now();
    const status = await executeRun(runId, { workerId: "bench" });
    const total = Date.now() - start;
    const probes = await fromHost.stop();

    const events = await listRunEvents({ runId, limit: 1_000_000 });
    const started = new Map<string, number>();
    console.log(`\nplan (render ${to} keeping the PKI): ${s(planMs)}`);
    console.log("phase            wall time");
    for (const e of events) {
      if (e.type === "phase.started") started.set(String(e.data.phase), Date.parse(e.at));
      if (e.type === "phase.finished") console.log(`${String(e.data.phase).padEnd(16)} ${s(Date.parse(e.at) - (started.get(String(e.data.phase)) ?? Date.parse(e.at)))}`);
    }
    console.log(`total            ${s(total)} (${status})`);
    console.log("\nstep                              time");
    for (const e of events.filter((x) => x.type === "step.finished" && /^(etcd|control-plane|checkpoint|kubelet)\//.test(String(x.data.key))))
      console.log(`${String(e.data.key).padEnd(33)} ${s(Number(e.data.durationMs))}`);
    const nodes = events.filter((x) => x.type === "step.finished" && String(x.data.key).startsWith("kubelet/")).map((x) => Number(x.data.durationMs));
    if (nodes.length) console.log(`kubelet per node: mean ${s(nodes.reduce((a, b) => a + b, 0) / nodes.length)}, max ${s(Math.max(...nodes))}`);
    console.log(`\nAPI availability through ${vip}:6443 during the upgrade (goal ≥ 99 %):`);
    console.log(`  from ${probeHost}: ${availability(probes, start).summary}`);
    const failures = probes.filter((p) => !p.ok);
    // When each failure happened, against the step running then.
    const spans = events.filter((x) => x.type === "step.finished").map((x) => ({ key: String(x.data.key), end: Date.parse(x.at), begin: Date.parse(x.at) - Number(x.data.durationMs) }));
    const during = new Map<string, number>();
    for (const p of failures) {
      const where = spans.filter((sp) => sp.begin <= p.at && p.at <= sp.end).map((sp) => sp.key).join("+") || "between steps";
      during.set(where, (during.get(where) ?? 0) + 1);
    }
    console.log(`failed probes from ${probeHost} by the step(s) running: ${[...during.entries()].map(([k, n]) => `${k} ${n}`).join("; ") || "none"}`);
    const failed = await getDb().step.findMany({ where: { runId, status: "failed" }, select: { key: true, error: true } });
    for (const f of failed) console.log(`failed: ${f.key}: ${f.error}`);
  } finally {
    await disconnectDb();
    await db.cleanup();
    if (!process.argv.includes("--keep")) labDown(LAB, () => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
