// npm run bench:queue -- [--runs 20] [--workers 1,2,4] [--step-delay 200] [--hosts 6]
// npm run bench:queue -- --lab 200 [--lab-name queue] [--keep] [--runs 20] [--workers 1,2,4]
// Runs on PostgreSQL as pg-boss jobs: N concurrent `check` runs (one per cluster: a run holds its
// cluster) on 1, 2 and 4 worker processes sharing one database. Two modes, one measurement:
// - no lab (the default): each worker is test/pg-fake-worker.ts — the real queue (pg-queue.ts) and
//   runner, with the tests' fake executor and cluster API standing in for the hosts (every command
//   answers after --step-delay ms); no lab host is touched, so the figures are the engine's and the
//   database's overhead, not SSH's.
// - --lab H: a lab (--lab-name, default "queue") of H plain hosts is brought up (labUp, without the
//   image registry: a check run pulls no image), or reused if it is up with at least H hosts. Its hosts
//   are split by position into --runs clusters of H / runs hosts each (3 masters, then workers), each
//   defined as lab/cluster-yaml.ts defines a lab's cluster (the lab's admin key as its credential) with
//   the lab's host keys pinned beforehand, as bench/lab-targets.ts pins them. Each worker is a real
//   `bin/bootdeck worker` process (as scripts/two-instances.sh starts them) on the same database, data
//   directory and master key as this script: a check run is its facts and preflight phases over SSH on
//   the cluster's hosts. The lab is taken down at the end unless --keep; bring-up time and memory are
//   printed when this script brought it up, then it waits (up to 3 min) for the 1-minute load average
//   to fall to 6 or less before measuring.
// For each worker count: a fresh migrated database, the clusters created and the runs planned, the
// workers started, then all runs started and queued at once; it measures the wall time from queueing to
// the last run finished (throughput), each step's time from started to finished (p50/p95) and each run's
// wait from queueing to its first step, and the database's load from pg_stat_database over that window
// (transactions committed, rows returned/fetched/inserted/updated/deleted; the snapshots are taken with
// every counter flushed: before, after 11 s of idle workers; after, once the workers have exited). The
// load includes the workers' polling (a fetch every 0.5 s, the reaper every second, the reconcile every
// 5 s) and this script's check for finished runs (every 200 ms). Also over that window: the machine's
// CPU busy share (/proc/stat, every process on it), the workers' CPU time, the machine's memory in use
// (MemTotal − MemAvailable, peak), the load average at the start and at the end, and the CPU time
// of the processes alive at the end by command name (what shared the cores; short-lived processes such
// as the hosts' SSH sessions and scripts are not in it).
// Run outcomes are reported as they are: every run that did not succeed is listed with its failed
// steps; steps done with preflight warnings are counted; the spread of the clock offsets the facts
// steps measured is printed (lab hosts share this machine's clock, so any spread is measurement error).
// PostgreSQL: BOOTDECK_BENCH_DATABASE_URL, else what scripts/postgres.sh prints (needs root). --lab
// needs root too (it starts the lab).
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import pg from "pg";
import { testKeyPair } from "../test/ssh-key";
import type { LabState } from "../lab/state";
import { machineMemoryUsed } from "../lab/memory";
import { cpuByProcess, cpuTicks, processCpuS, topCpu } from "./cpu";

const root = path.resolve(__dirname, "..");

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}
const flag = (name: string) => process.argv.includes(`--${name}`);
const runCount = Number(arg("runs", "20"));
const workerCounts = arg("workers", "1,2,4").split(",").map(Number);
const stepDelayMs = Number(arg("step-delay", "200"));
const labHosts = Number(arg("lab", "0"));
const labName = arg("lab-name", "queue");
const keepLab = flag("keep");
// Hosts per cluster: --hosts in the fake mode; the lab's hosts split between the runs with --lab.
const hostCount = labHosts ? Math.floor(labHosts / runCount) : Number(arg("hosts", "6"));
if (!(runCount >= 1) || workerCounts.some((n) => !(n >= 1)) || !(hostCount >= 1)) {
  throw new Error(`bench:queue: bad arguments (runs ${runCount}, workers ${workerCounts.join(",")}, hosts per cluster ${hostCount}${labHosts ? `: --lab ${labHosts} must be at least --runs` : ""})`);
}
const masterCount = hostCount >= 3 ? 3 : 1;

const serverUrl = process.env.BOOTDECK_BENCH_DATABASE_URL ?? execFileSync("bash", [path.join(root, "scripts/postgres.sh")]).toString().trim();
// test/temp-db.ts reads this when it is imported: each worker count gets a database of its own.
process.env.BOOTDECK_TEST_DATABASE_URL = serverUrl;

const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const c of children) c.kill("SIGKILL");
});

/** Starts a worker process; resolves once it takes jobs (it prints `ready`). */
function spawnWorker(workerId: string, argv: string[], env: Record<string, string>, ready: string): Promise<ChildProcess> {
  const [cmd, ...args] = argv;
  const child = spawn(cmd!, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
  child.once("exit", (code, signal) => {
    children.delete(child);
    if (code !== 0 && signal !== "SIGKILL") console.error(`worker ${workerId} exited (${code ?? signal}): ${err.trim()}`);
  });
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes(ready) && resolve(child));
    child.once("exit", (code) => reject(new Error(`worker ${workerId} exited (${code}) before it was ready: ${err}`)));
  });
}

type Definition = { definition: unknown; secrets: Record<string, { privateKey?: string; password?: string }>; hostKeys?: Map<string, string> };
/** What differs between the modes: the clusters the runs are on and the worker processes. */
type Mode = {
  describe: string;
  cluster(i: number): Definition;
  startWorker(workerId: string): Promise<ChildProcess>;
};

async function fakeMode(): Promise<Mode> {
  const { exampleDefinition } = await import("../lib/cluster/example");
  // One key for every cluster (the fake executor never uses it).
  const privateKey = testKeyPair().private;
  const hosts = Array.from({ length: hostCount }, (_, i) => (i < 3 ? `master-${i + 1}` : `worker-${i - 2}`));
  return {
    describe: `${hostCount} fake hosts each, ${stepDelayMs} ms per command, workers test/pg-fake-worker.ts`,
    cluster(i) {
      return { definition: exampleDefinition({ name: `bench-${i}`, hosts: hostCount }), secrets: { "admin-key": { privateKey } } };
    },
    startWorker(workerId) {
      return spawnWorker(
        workerId,
        [process.execPath, "--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, "test/pg-fake-worker.ts")],
        { WORKER_ID: workerId, HOSTS: hosts.join(","), STEP_DELAY_MS: String(stepDelayMs) },
        "ready",
      );
    },
  };
}

/** The lab mode: clusters of lab hosts, real `bootdeck worker` processes. */
async function labMode(state: LabState): Promise<Mode> {
  const { labClusterDefinition, labClusterSecrets } = await import("../lab/cluster-yaml");
  const secrets = labClusterSecrets(state);
  // bin/bootdeck builds its bundle when a source is newer: once here, not in every worker's start-up.
  execFileSync(path.join(root, "bin/bootdeck"), ["worker", "--help"], { stdio: "ignore" });
  return {
    describe: `${hostCount} lab hosts each (${masterCount} masters), lab "${state.name}" of ${state.hosts.length} hosts, workers bin/bootdeck worker`,
    cluster(i) {
      const hosts = state.hosts.slice(i * hostCount, (i + 1) * hostCount).map((h, j) => ({ ...h, role: j < masterCount ? ("master" as const) : ("worker" as const) }));
      // The lab's cluster definition (its admin key, mirror, …) for these hosts only.
      const { definition } = labClusterDefinition({ ...state, hosts }, `queue-${i + 1}`);
      return { definition, secrets, hostKeys: new Map(hosts.map((h) => [h.name, h.hostKeyFingerprint])) };
    },
    startWorker(workerId) {
      // DATABASE_URL, BOOTDECK_MASTER_KEY and BOOTDECK_DATA_DIR: createTempDb set them in process.env.
      return spawnWorker(workerId, [path.join(root, "bin/bootdeck"), "worker"], {}, "is running");
    },
  };
}

async function ensureLab(): Promise<{ state: LabState; created?: { ms: number; memBefore: number } }> {
  const { labDown, labUp } = await import("../lab/lab");
  const { readState } = await import("../lab/state");
  const s = readState(labName);
  if (s && s.hosts.length >= labHosts) {
    console.log(`[lab] reusing lab "${labName}" (${s.hosts.length} hosts)`);
    return { state: s };
  }
  if (s) labDown(labName, (l) => console.log(`[lab] ${l}`));
  const memBefore = machineMemoryUsed();
  const t0 = Date.now();
  const state = await labUp({ name: labName, hosts: labHosts, images: false, log: (l) => console.log(`[lab] ${l}`) });
  return { state, created: { ms: Date.now() - t0, memBefore } };
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

const MiB = 1024 * 1024;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function once(workers: number, mode: Mode) {
  const { createTempDb } = await import("../test/temp-db");
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
    for (let i = 0; i < runCount; i++) {
      const c = mode.cluster(i);
      const { id } = await createCluster({ definition: c.definition, secrets: c.secrets });
      for (const [name, fp] of c.hostKeys ?? []) await db.host.updateMany({ where: { clusterId: id, name }, data: { hostKeyFingerprint: fp } });
      runIds.push(await planRun({ clusterId: id, body: { type: "check" }, by: "bench" }));
    }
    const ws = await Promise.all(Array.from({ length: workers }, (_, i) => mode.startWorker(`bench-w${i + 1}`)));
    await sleep(11_000); // every backend's counters flushed (idle backends flush within 10 s)
    const before = await dbStats(tmp.databaseUrl);
    const load0 = loadavg()[0]!;
    const cpu0 = cpuTicks();
    const workerCpu0 = ws.map((w) => processCpuS(w.pid));
    const byProcess0 = cpuByProcess();
    const mem0 = machineMemoryUsed();
    let memPeak = mem0;
    const memSampler = setInterval(() => (memPeak = Math.max(memPeak, machineMemoryUsed())), 500);
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
    clearInterval(memSampler);
    const cpu1 = cpuTicks();
    const load1 = loadavg()[0]!;
    const workerCpuS = ws.reduce((sum, w, i) => sum + processCpuS(w.pid) - workerCpu0[i]!, 0);
    console.log(`CPU over the window by command (processes alive at its end): ${topCpu(byProcess0, cpuByProcess())}`);
    await sender.stop();
    await Promise.all(ws.map((w) => new Promise((r) => (w.exitCode !== null || w.signalCode !== null ? r(undefined) : (w.once("exit", r), w.kill("SIGTERM"))))));
    await sleep(1_000);
    const after = await dbStats(tmp.databaseUrl);
    const runs = await db.run.findMany({ where: { id: { in: runIds } }, select: { id: true, status: true, summary: true } });
    for (const r of runs.filter((x) => x.status !== "succeeded")) {
      const failed = await db.step.findMany({ where: { runId: r.id, status: "failed" }, select: { key: true, error: true } });
      console.error(`run ${r.id} ${r.status}: ${r.summary ?? ""}\n${failed.map((f) => `  ${f.key}: ${f.error}`).join("\n")}`);
    }
    // Steps that succeeded with something to say (preflight warnings): how many, and each message once.
    const finished = await db.runEvent.findMany({ where: { runId: { in: runIds }, type: "step.finished" }, select: { data: true } });
    const noted = finished.map((e) => String((JSON.parse(e.data) as { summary?: unknown }).summary ?? "")).filter((s) => /\bwarnings?\b/.test(s));
    const warnings = new Map<string, number>();
    for (const s of noted) warnings.set(s, (warnings.get(s) ?? 0) + 1);
    for (const [summary, n] of warnings) console.log(`${n} step(s) done with: ${summary}`);
    // Each host's clock offset as the facts step measured it (lab hosts share this machine's clock: any spread is the measurement's).
    const offsets = (await db.host.findMany({ where: { facts: { not: null } }, select: { facts: true } })).map((h) => (JSON.parse(h.facts!) as { clockOffsetS: number }).clockOffsetS).filter(Number.isFinite);
    if (offsets.length) console.log(`clock offsets measured by the facts steps: ${Math.min(...offsets).toFixed(2)} … ${Math.max(...offsets).toFixed(2)} s over ${offsets.length} hosts`);
    const steps = await db.step.findMany({ where: { runId: { in: runIds }, startedAt: { not: null }, finishedAt: { not: null } }, select: { runId: true, startedAt: true, finishedAt: true } });
    const stepMs = steps.map((s) => s.finishedAt!.getTime() - s.startedAt!.getTime());
    const firstStep = new Map<string, number>();
    for (const s of steps) firstStep.set(s.runId, Math.min(firstStep.get(s.runId) ?? Infinity, s.startedAt!.getTime()));
    const waitMs = [...firstStep.values()].map((t) => t - queuedAt);
    const delta = Object.fromEntries(Object.keys(after).map((k) => [k, after[k as keyof Stats] - before[k as keyof Stats]])) as Stats;
    const statuses: Record<string, number> = {};
    for (const r of runs) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    return {
      workers,
      succeeded: runs.filter((r) => r.status === "succeeded").length,
      runs: runs.length,
      statuses,
      warningSteps: noted.length,
      steps: steps.length,
      wallS: wallMs / 1000,
      runsPerMin: (runs.length / wallMs) * 60_000,
      stepsPerS: (steps.length / wallMs) * 1000,
      stepP50: pct(stepMs, 50),
      stepP95: pct(stepMs, 95),
      waitP50: pct(waitMs, 50),
      waitP95: pct(waitMs, 95),
      load: load0,
      loadEnd: load1,
      cpuBusy: (cpu1.busy - cpu0.busy) / (cpu1.total - cpu0.total),
      workerCpuS,
      memUsedMiB: mem0 / MiB,
      memPeakMiB: memPeak / MiB,
      ...delta,
    };
  } finally {
    for (const c of children) c.kill("SIGTERM");
    await sender.stop().catch(() => undefined);
    await tmp.cleanup();
  }
}

async function main() {
  let mode: Mode;
  let lab: Awaited<ReturnType<typeof ensureLab>> | undefined;
  if (labHosts) {
    lab = await ensureLab();
    if (lab.state.hosts.length < hostCount * runCount) throw new Error(`lab "${labName}" has ${lab.state.hosts.length} hosts, ${hostCount * runCount} needed`);
    if (lab.created) {
      const { labHostMemory } = await import("../lab/memory");
      const pss = labHostMemory(lab.state.hosts).reduce((s, m) => s + m.pssBytes, 0);
      const grew = machineMemoryUsed() - lab.created.memBefore;
      console.log(
        `[lab] up: ${lab.state.hosts.length} hosts in ${(lab.created.ms / 1000).toFixed(1)} s; hosts' PSS ${(pss / MiB).toFixed(0)} MiB (${(pss / MiB / lab.state.hosts.length).toFixed(1)} MiB per host); machine memory in use grew ${(grew / MiB).toFixed(0)} MiB (${(grew / MiB / lab.state.hosts.length).toFixed(1)} MiB per host)`,
      );
    }
    // What bring-up leaves running (ext4's lazy inode-table init on the hosts' new disks, …) settles first:
    // up to 3 min until the 1-minute load average is at most 6.
    for (const t0 = Date.now(); loadavg()[0]! > 6 && Date.now() - t0 < 180_000; ) await sleep(5_000);
    console.log(`[lab] load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
    mode = await labMode(lab.state);
  } else mode = await fakeMode();
  try {
    console.log(`${runCount} concurrent check runs (${mode.describe}) on PostgreSQL, workers: ${workerCounts.join(", ")}`);
    const rows = [];
    for (const n of workerCounts) {
      const r = await once(n, mode);
      rows.push(r);
      console.log(JSON.stringify(r));
    }
    console.log(
      "\n| Workers | Runs ok | Steps | Wall | Runs/min | Steps/s | Step p50 / p95 | Queue→first step p50 / p95 | Commits | Rows returned / fetched | Inserted / updated / deleted | CPU busy | Workers' CPU | Memory in use (peak) | Load avg start → end |",
    );
    console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (const r of rows)
      console.log(
        `| ${r.workers} | ${r.succeeded}/${r.runs}${r.succeeded < r.runs ? ` (${Object.entries(r.statuses).map(([s, n]) => `${n} ${s}`).join(", ")})` : ""} | ${r.steps} | ${r.wallS.toFixed(1)} s | ${r.runsPerMin.toFixed(0)} | ${r.stepsPerS.toFixed(1)} | ${r.stepP50} / ${r.stepP95} ms | ${r.waitP50} / ${r.waitP95} ms | ${r.xact_commit} | ${r.tup_returned} / ${r.tup_fetched} | ${r.tup_inserted} / ${r.tup_updated} / ${r.tup_deleted} | ${(r.cpuBusy * 100).toFixed(0)} % | ${r.workerCpuS.toFixed(1)} s | ${r.memUsedMiB.toFixed(0)} (${r.memPeakMiB.toFixed(0)}) MiB | ${r.load.toFixed(1)} → ${r.loadEnd.toFixed(1)} |`,
      );
  } finally {
    if (lab && !keepLab) {
      const { labDown } = await import("../lab/lab");
      labDown(labName, (l) => console.log(`[lab] ${l}`));
    }
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
