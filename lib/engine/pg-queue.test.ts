// Runs as pg-boss jobs on PostgreSQL (pg-queue.ts): workers starting together on a new database all
// start; a started run is executed by a worker and its job
// completed; a duplicate delivery runs nothing twice; an execution that throws is retried with back-off;
// a cancel takes a queued delivery back and the run ends at once; a worker cut off from the database
// (its session killed by the server) loses its run to another worker and writes nothing more.
// Runs only with BOOTDECK_TEST_DATABASE_URL set to a PostgreSQL server (scripts/test.sh does).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeClusterApi, RecordingExecutor, type Reply } from "../../test/fake-cluster";
import { createTempDb, onPostgres, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { listRunEvents, stopListeningForRunEvents } from "./events";
import { PgBossRunQueue, RUN_QUEUE } from "./pg-queue";
import { planRun } from "./plan-run";
import { executeRun } from "./runner";
import { startRun } from "./runs";
import { cancelRun } from "./start";
import { setRunQueue } from "./queue";
import { testKeyPair } from "../../test/ssh-key";

const HOSTS = ["master-1", "master-2", "master-3", "worker-1"];
let db: TempDb;
const queues: PgBossRunQueue[] = [];

beforeAll(async () => {
  if (!onPostgres) return;
  db = await createTempDb();
}, 60_000);
afterEach(async () => {
  await Promise.all(queues.splice(0).map((q) => q.stop({ handOver: true, graceMs: 1_000 })));
  setRunQueue(undefined);
});
afterAll(async () => {
  await stopListeningForRunEvents();
  await db?.cleanup();
});

function queue(workerId: string, reply?: (step: string) => Reply, extra: Partial<ConstructorParameters<typeof PgBossRunQueue>[0]> = {}): PgBossRunQueue {
  const q = new PgBossRunQueue({
    url: db.databaseUrl,
    workerId,
    fetchMs: 100,
    runner: { executor: new RecordingExecutor((call) => reply?.(call.step)), api: () => new FakeClusterApi(HOSTS), heartbeatMs: 100 },
    ...extra,
  });
  queues.push(q);
  return q;
}

async function startedCheck(name: string): Promise<string> {
  const { id: clusterId } = await createCluster({ definition: exampleDefinition({ name, hosts: HOSTS.length }), secrets: { "admin-key": { privateKey: testKeyPair().private } } });
  const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
  await startRun({ runId });
  return runId;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const runStatus = async (runId: string) => (await getDb().run.findUniqueOrThrow({ where: { id: runId } })).status;
const finished = (runId: string) => until(`run ${runId} to end`, async () => ((await runStatus(runId)) !== "running" ? runStatus(runId) : undefined));
type JobRow = { id: string; state: string; retryCount: number; startedOn: Date | null; completedOn: Date | null };
const jobs = (runId: string) =>
  getDb().$queryRawUnsafe<JobRow[]>(
    `SELECT id::text AS id, state::text AS state, retry_count AS "retryCount", started_on AS "startedOn", completed_on AS "completedOn" FROM pgboss.job WHERE name = $1 AND data->>'runId' = $2 ORDER BY created_on`,
    RUN_QUEUE,
    runId,
  );

/** Every step started once and finished once, and the log's seq has no gap. */
async function expectCleanLog(runId: string) {
  const events = await listRunEvents({ runId, limit: 100_000 });
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const count = (type: string) => {
    const m = new Map<string, number>();
    for (const e of events.filter((x) => x.type === type)) m.set(String(e.data.key), (m.get(String(e.data.key)) ?? 0) + 1);
    return m;
  };
  const steps = await getDb().step.findMany({ where: { runId } });
  expect(steps.every((s) => s.status === "done")).toBe(true);
  expect([...count("step.finished").values()].every((n) => n === 1)).toBe(true);
  expect(count("step.finished").size).toBe(steps.length);
  return { events, starts: count("step.started") };
}

describe.skipIf(!onPostgres)("runs as pg-boss jobs", () => {
  it("workers starting together on a database without pg-boss's tables all start (first in this file: the database is new)", async () => {
    const none = await getDb().$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'pgboss'`);
    expect(none[0]!.n).toBe(0);
    const started = await Promise.allSettled(["s-1", "s-2", "s-3", "s-4"].map((w) => queue(w).startWorkerLoop()));
    expect(started.filter((r) => r.status === "rejected")).toEqual([]);
  });

  it("a started run is a job: a worker executes it and the job is completed", async () => {
    const q = queue("w-a");
    setRunQueue(q);
    await q.startWorkerLoop();
    const runId = await startedCheck("pgq-basic");
    await q.enqueueRun(runId);
    expect(await finished(runId)).toBe("succeeded");
    const { starts } = await expectCleanLog(runId);
    expect([...starts.values()].every((n) => n === 1)).toBe(true);
    await until("the job completed", async () => (await jobs(runId)).every((j) => j.state === "completed"));
    expect((await getDb().run.findUniqueOrThrow({ where: { id: runId } })).workerId).toBeNull();
  });

  it("a duplicate delivery runs nothing twice, whichever worker gets it", async () => {
    const [a, b] = [queue("w-a"), queue("w-b")];
    const runId = await startedCheck("pgq-dup");
    await a.enqueueRun(runId);
    await a.enqueueRun(runId);
    await a.enqueueRun(runId);
    await Promise.all([a.startWorkerLoop(), b.startWorkerLoop()]);
    expect(await finished(runId)).toBe("succeeded");
    const { starts } = await expectCleanLog(runId);
    expect([...starts.values()].every((n) => n === 1)).toBe(true);
    await until("every delivery completed", async () => (await jobs(runId)).every((j) => j.state === "completed"));
    expect(await jobs(runId)).toHaveLength(3);
  });

  it("an execution that throws is retried by the queue after a back-off, and the run then finishes", async () => {
    let calls = 0;
    const q = queue("w-a", undefined, {
      execute: async (runId, options) => {
        if (++calls === 1) throw new Error("injected: the database went away");
        return executeRun(runId, options);
      },
    });
    await q.startWorkerLoop();
    const runId = await startedCheck("pgq-retry");
    const sentAt = Date.now();
    await q.enqueueRun(runId);
    expect(await finished(runId)).toBe("succeeded");
    expect(calls).toBe(2);
    // The worker completes the job after the run has ended.
    await until("the job completed", async () => (await jobs(runId))[0]?.state === "completed");
    const [job] = await jobs(runId);
    expect(job).toMatchObject({ state: "completed", retryCount: 1 });
    // The retry waited retryDelay (1 s) × 2^0 × [1, 2) before it was delivered again.
    expect(job!.startedOn!.getTime() - sentAt).toBeGreaterThanOrEqual(900);
  });

  it("a cancel takes a queued delivery back; the run ends cancelled at once", async () => {
    const q = queue("w-a");
    setRunQueue(q);
    const runId = await startedCheck("pgq-cancel");
    await q.enqueueRun(runId);
    // Held back as a retry's back-off would: due in an hour.
    await getDb().$executeRawUnsafe(`UPDATE pgboss.job SET start_after = now() + interval '1 hour' WHERE name = $1 AND data->>'runId' = $2`, RUN_QUEUE, runId);
    await q.startWorkerLoop();
    expect(await cancelRun({ runId, by: "alice" })).toBe("requested");
    expect(await finished(runId)).toBe("cancelled");
    // The delivery that ended the run is completed by its worker after the run has ended.
    await until("the ending delivery completed", async () => !(await jobs(runId)).some((j) => j.state === "active"));
    expect((await jobs(runId)).map((j) => j.state)).toEqual(["cancelled", "completed"]);
  });

  it("a worker cut off from the database loses its run to another worker and writes nothing more", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const a = queue("w-a", (step) => (step === "facts/worker-1" ? { delayMs: 1 } : undefined));
    // worker-1's facts hang on worker A until the test lets them go.
    const exec = (a as unknown as { options: { runner: { executor: RecordingExecutor } } }).options.runner.executor;
    const run = exec.run.bind(exec);
    exec.run = async (host, argv, opts) => {
      if (opts?.step === "facts/worker-1") await gate;
      return run(host, argv, opts);
    };
    await a.startWorkerLoop();
    const runId = await startedCheck("pgq-cutoff");
    await a.enqueueRun(runId);
    await until("worker A in facts/worker-1", () => getDb().step.findFirst({ where: { runId, key: "facts/worker-1", status: "running" } }));
    // The server ends A's lock session (as it does for a worker whose network went away).
    await getDb().$executeRawUnsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'bootdeck locks w-a'`);
    const b = queue("w-b");
    await b.startWorkerLoop();
    await until("worker B holding the run", async () => (await getDb().run.findUniqueOrThrow({ where: { id: runId } })).workerId === "w-b");
    expect(await finished(runId)).toBe("succeeded");
    const before = await listRunEvents({ runId, limit: 100_000 });
    release();
    await a.drain();
    // A wrote nothing after it lost the run: the log is as B left it.
    expect(await listRunEvents({ runId, limit: 100_000 })).toEqual(before);
    const { starts } = await expectCleanLog(runId);
    expect(starts.get("facts/worker-1")).toBe(2);
  });
});
