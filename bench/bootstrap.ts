// npm run bench:bootstrap -- --masters 3 --workers 5 [--version v1.32.9] [--keep]
// A whole bootstrap on a fresh lab (its own, "bench"): wall time per phase and in total, and the
// engine's peak memory (RSS of this process, which runs the engine, sampled every 100 ms).
// Needs root. The lab's own processes (stand-in kubelets, etcd) are not counted in the engine's memory.
import { readFileSync } from "node:fs";
import { labClusterDefinition } from "../lab/cluster-yaml";
import { labDown, labUp } from "../lab/lab";
import { createTempDb } from "../test/temp-db";
import { validateClusterDefinition } from "../lib/cluster/definition";
import { createCluster } from "../lib/clusters/repository";
import { getDb } from "../lib/db/client";
import { listRunEvents } from "../lib/engine/events";
import { planRun } from "../lib/engine/plan-run";
import { executeRun } from "../lib/engine/runner";
import { startRun } from "../lib/engine/runs";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

async function main(): Promise<void> {
  const masters = Number(arg("masters", "3"));
  const workers = Number(arg("workers", "5"));
  const version = arg("version", "");
  const LAB = "bench";
  const mib = (b: number) => `${Math.round(b / 1048576)} MiB`;
  console.log(`bench:bootstrap: lab of ${masters} masters + ${workers} workers…`);
  labDown(LAB, () => undefined);
  const lab = await labUp({ name: LAB, masters, workers, log: () => undefined });
  const db = await createTempDb();
  try {
    const input = labClusterDefinition(lab, "bench").definition;
    if (version) (input.spec as { kubernetes: { version: string } }).kubernetes.version = version;
    const v = validateClusterDefinition(input);
    if (!v.ok) throw new Error(JSON.stringify(v.errors));
    const { id: clusterId } = await createCluster({ definition: v.definition, secrets: { "lab-admin": { privateKey: readFileSync(lab.adminKeyPath, "utf8") } } });
    const renderStart = Date.now();
    const runId = await planRun({ clusterId, body: { type: "bootstrap", acceptWarnings: true }, by: "bench" });
    const planMs = Date.now() - renderStart;
    await startRun({ runId });
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
    const start = Date.now();
    const status = await executeRun(runId, { workerId: "bench" });
    const total = Date.now() - start;
    clearInterval(sampler);

    const events = await listRunEvents({ runId, limit: 1_000_000 });
    const started = new Map<string, number>();
    const rows: [string, string][] = [];
    for (const e of events) {
      if (e.type === "phase.started") started.set(String(e.data.phase), Date.parse(e.at));
      if (e.type === "phase.finished") rows.push([String(e.data.phase), `${((Date.parse(e.at) - (started.get(String(e.data.phase)) ?? Date.parse(e.at))) / 1000).toFixed(1)} s`]);
    }
    const failed = await getDb().step.findMany({ where: { runId, status: "failed" }, select: { key: true, error: true } });
    console.log(`\nplan (render assets, RSA keys): ${(planMs / 1000).toFixed(1)} s`);
    console.log("phase            wall time");
    for (const [p, t] of rows) console.log(`${p.padEnd(16)} ${t}`);
    console.log(`total            ${(total / 1000).toFixed(1)} s (${status}; goal: under 60 s for 3 + 5)`);
    console.log(`engine peak RSS  ${mib(peak)}`);
    for (const f of failed) console.log(`failed: ${f.key}: ${f.error}`);
    if (status !== "succeeded") process.exitCode = 1;
  } finally {
    await db.cleanup();
    if (!process.argv.includes("--keep")) labDown(LAB, () => undefined);
  }
}

void main();
