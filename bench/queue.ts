// npm run bench:queue -- [--runs 20] [--workers 1,2,4] [--step-delay 200] [--hosts 6]
// Runs on PostgreSQL as pg-boss jobs: N concurrent `check` runs (one per cluster: a run holds its
// cluster) on 1, 2 and 4 worker processes sharing one database. Each worker is test/pg-fake-worker.ts —
// the real queue (pg-queue.ts) and runner, with the tests' fake executor and cluster API standing in for
// the hosts (every command answers after --step-delay ms); no lab host is touched, so the figures are the
// engine's and the database's overhead, not SSH's. For each worker count: a fresh migrated database, the
// runs planned and started, then all queued at once; it measures the wall time from queueing to the last
// run finished (throughput), each step's time from started to finished (p50/p95; the fake command
// delay is part of it) and each run's wait from queueing to its first step, and the database's load
// from pg_stat_database over that window (transactions committed, rows returned/fetched/inserted/
// updated/deleted; the snapshots are taken with every counter flushed: before, after 11 s of idle
// workers; after, once the workers have exited). The load includes the workers' polling (a fetch every
// 0.5 s, the reaper every second, the reconcile every 5 s) and this script's check for finished runs
// (every 200 ms).
// PostgreSQL: BOOTDECK_BENCH_DATABASE_URL, else what scripts/postgres.sh prints (needs root).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import pg from "pg";
import { utils } from "ssh2";

const root = path.resolve(__dirname, "..");

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const runCount = Number(arg("runs", "20"));
const workerCounts = arg("workers", "1,2,4").split(",").map(Number);
const stepDelayMs = Number(arg("step-delay", "200"));
const hostCount = Number(arg("hosts", "6"));

const serverUrl = process.env.BOOTDECK_BENCH_DATABASE_URL ?? execFileSync("bash", [path.join(root, "scripts/postgres.sh")]).toString().trim();
// test/temp-db.ts reads this when it is imported: each worker count gets a database of its own.
process.env.BOOTDECK_TEST_DATABASE_URL = serverUrl;

const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

function startWorker(workerId: string, hosts: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, "test/pg-fake-worker.ts")], {
    cwd: root,
    env: { ...process.env, WORKER_ID: workerId, HOSTS: hosts.join(","), STEP_DELAY_MS: String(stepDelayMs) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve(child));
    child.once("exit", (code) => reject(new Error(`worker ${workerId} exited (${code}): ${err}`)));
  });
}

type Stats = Record<"xact_commit" | "xact_rollback" | "tup_returned" | "tup_fetched" | "tup_inserted" | "tup_updated" | "tup_deleted", number>;
async function dbStats(url: string): Promise<Stats> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query(
      `SELECT xact_commit, xact_rollback, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = current_database()`,
    );
    return Object.fromEntries(Object.entries(rows[0] as Record<string, string>).map(([k, v]) => [k, Number(v)])) as Stats;
  } finally {
    await c.end();
  }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function once(workers: number) {
  const { createTempDb } = await import("../test/temp-db");
  const { exampleDefinition } = await import("../lib/cluster/example");
  const { createCluster } = await import("../lib/clusters/repository");
  const { getDb } = await import("../lib/db/client");
  const { PgBossRunQueue } = await import("../lib/engine/pg-queue");
  const { planRun } = await import("../lib/engine/plan-run");
  const { startRun } = await import("../lib/engine/runs");

  const tmp = await createTempDb();
  const db = getDb();
  const sender = new PgBossRunQueue({ url: tmp.databaseUrl, workerId: "bench-sender" });
  try {
    const runIds: string[] = [];
    let hosts: string[] = [];
    // One key for every cluster: about 1 in 250 of ssh2's generated Ed25519 keys does not parse back.
    let privateKey: string;
    do privateKey = utils.generateKeyPairSync("ed25519").private;
    while (utils.parseKey(privateKey) instanceof Error);
    for (let i = 0; i < runCount; i++) {
      const definition = exampleDefinition({ name: `bench-${i}`, hosts: hostCount });
      hosts = Array.from({ length: hostCount }, (_, i) => (i < 3 ? `master-${i + 1}` : `worker-${i - 2}`));
      const { id } = await createCluster({ definition, secrets: { "admin-key": { privateKey } } });
      runIds.push(await planRun({ clusterId: id, body: { type: "check" }, by: "bench" }));
    }
    const ws = await Promise.all(Array.from({ length: workers }, (_, i) => startWorker(`bench-w${i + 1}`, hosts)));
    await sleep(11_000); // every backend's counters flushed (idle backends flush within 10 s)
    const before = await dbStats(tmp.databaseUrl);
    const load0 = loadavg()[0]!;
    const queuedAt = Date.now();
    // As the dashboard does on "Start": the run is started, then queued (a worker that saw it started
    // before its job was sent would queue one itself within 5 s).
    await Promise.all(
      runIds.map(async (runId) => {
        await startRun({ runId });
        await sender.enqueueRun(runId);
      }),
    );
    for (;;) {
      const open = await db.run.count({ where: { id: { in: runIds }, status: { in: ["planned", "running"] } } });
      if (open === 0) break;
      if (Date.now() - queuedAt > 15 * 60_000) throw new Error(`${open} run(s) still open after 15 min`);
      await sleep(200);
    }
    const wallMs = Date.now() - queuedAt;
    await sender.stop();
    await Promise.all(ws.map((w) => new Promise((r) => (w.once("exit", r), w.kill("SIGTERM")))));
    await sleep(1_000);
    const after = await dbStats(tmp.databaseUrl);
    const runs = await db.run.findMany({ where: { id: { in: runIds } }, select: { id: true, status: true, summary: true } });
    for (const r of runs.filter((x) => x.status !== "succeeded")) {
      const failed = await db.step.findFirst({ where: { runId: r.id, status: "failed" }, select: { key: true, error: true } });
      console.error(`run ${r.id} ${r.status}: ${r.summary ?? ""} ${failed ? `${failed.key}: ${failed.error}` : ""}`);
    }
    const steps = await db.step.findMany({ where: { runId: { in: runIds }, startedAt: { not: null }, finishedAt: { not: null } }, select: { runId: true, startedAt: true, finishedAt: true } });
    const stepMs = steps.map((s) => s.finishedAt!.getTime() - s.startedAt!.getTime());
    const firstStep = new Map<string, number>();
    for (const s of steps) firstStep.set(s.runId, Math.min(firstStep.get(s.runId) ?? Infinity, s.startedAt!.getTime()));
    const waitMs = [...firstStep.values()].map((t) => t - queuedAt);
    const delta = Object.fromEntries(Object.keys(after).map((k) => [k, after[k as keyof Stats] - before[k as keyof Stats]])) as Stats;
    return {
      workers,
      succeeded: runs.filter((r) => r.status === "succeeded").length,
      runs: runs.length,
      steps: steps.length,
      wallS: wallMs / 1000,
      runsPerMin: (runs.length / wallMs) * 60_000,
      stepsPerS: (steps.length / wallMs) * 1000,
      stepP50: pct(stepMs, 50),
      stepP95: pct(stepMs, 95),
      waitP50: pct(waitMs, 50),
      waitP95: pct(waitMs, 95),
      load: load0,
      ...delta,
    };
  } finally {
    for (const c of children) c.kill("SIGTERM");
    await sender.stop().catch(() => undefined);
    await tmp.cleanup();
  }
}

async function main() {
  console.log(`${runCount} concurrent check runs (${hostCount} fake hosts each, ${stepDelayMs} ms per command) on PostgreSQL, workers: ${workerCounts.join(", ")}`);
  const rows = [];
  for (const n of workerCounts) {
    const r = await once(n);
    rows.push(r);
    console.log(JSON.stringify(r));
  }
  console.log("\n| Workers | Runs ok | Steps | Wall | Runs/min | Steps/s | Step p50 / p95 | Queue→first step p50 / p95 | Commits | Rows returned / fetched | Inserted / updated / deleted | Load avg |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows)
    console.log(
      `| ${r.workers} | ${r.succeeded}/${r.runs} | ${r.steps} | ${r.wallS.toFixed(1)} s | ${r.runsPerMin.toFixed(0)} | ${r.stepsPerS.toFixed(1)} | ${r.stepP50} / ${r.stepP95} ms | ${r.waitP50} / ${r.waitP95} ms | ${r.xact_commit} | ${r.tup_returned} / ${r.tup_fetched} | ${r.tup_inserted} / ${r.tup_updated} / ${r.tup_deleted} | ${r.load.toFixed(1)} |`,
    );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
