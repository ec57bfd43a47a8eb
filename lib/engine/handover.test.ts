// Handing a run over between processes: a worker that shuts down stops its run without ending it and
// gives its lease up, so the next worker resumes at once; a run held by a process of this machine that
// is gone is taken over at once, not after the lease goes stale; a live holder keeps it.
import { spawn } from "node:child_process";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClusterApi, RecordingExecutor } from "../../test/fake-cluster";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { listRunEvents } from "./events";
import { planRun } from "./plan-run";
import { executeRun } from "./runner";
import { claimRun, isLocalWorkerGone, listResumableRuns, startRun } from "./runs";
import { testKeyPair } from "../../test/ssh-key";

let db: TempDb;
let clusterId: string;
const HOSTS = ["master-1", "master-2", "master-3", "worker-1"];

beforeAll(async () => {
  db = await createTempDb();
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "handover", hosts: 4 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
});
afterAll(async () => db?.cleanup());

async function startedCheck(): Promise<string> {
  const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
  await startRun({ runId });
  return runId;
}

/** A pid that existed and is gone: a short child process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  await new Promise((r) => child.once("exit", r));
  return child.pid!;
}

describe("shutdown", () => {
  it("stops the run without ending it and releases the lease; the next worker resumes the step in flight", async () => {
    const rec = new RecordingExecutor((call) => (call.step === "facts/worker-1" ? { delayMs: 60_000 } : undefined));
    const runId = await startedCheck();
    const shutdown = new AbortController();
    const running = executeRun(runId, { workerId: "w-old", executor: rec, api: () => new FakeClusterApi(HOSTS), shutdown: shutdown.signal, heartbeatMs: 50 });
    for (let i = 0; i < 200 && !(await getDb().step.findFirst({ where: { runId, key: "facts/worker-1", status: "running" } })); i++) await new Promise((r) => setTimeout(r, 20));
    const t0 = Date.now();
    shutdown.abort();
    expect(await running).toBe("handed-over");
    expect(Date.now() - t0).toBeLessThan(2_000);
    const run = await getDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect(run).toMatchObject({ status: "running", workerId: null, heartbeatAt: null });
    expect(await getDb().step.findFirstOrThrow({ where: { runId, key: "facts/worker-1" } })).toMatchObject({ status: "running", attempts: 1 });
    expect((await listRunEvents({ runId })).at(-1)).toMatchObject({ type: "run.handed-over", data: { worker: "w-old" } });
    // Unheld: any worker takes it at once.
    expect(await listResumableRuns({ workerId: "w-new", staleMs: 15_000 })).toContain(runId);
    expect(await executeRun(runId, { workerId: "w-new", executor: new RecordingExecutor(), api: () => new FakeClusterApi(HOSTS) })).toBe("succeeded");
    const starts = (await listRunEvents({ runId, limit: 10_000 })).filter((e) => e.type === "step.started" && e.data.key === "facts/worker-1");
    expect(starts.map((e) => e.data)).toEqual([
      { key: "facts/worker-1", attempt: 1, resumed: false },
      { key: "facts/worker-1", attempt: 2, resumed: true },
    ]);
  });

  it("gives the lease up for good: a heartbeat in flight at the shutdown does not take the run back", async () => {
    for (let round = 0; round < 5; round++) {
      const rec = new RecordingExecutor((call) => (call.step === "facts/worker-1" ? { delayMs: 60_000 } : undefined));
      const runId = await startedCheck();
      const shutdown = new AbortController();
      // A heartbeat every millisecond: one is nearly always in flight when the shutdown comes.
      const running = executeRun(runId, { workerId: "w-old", executor: rec, api: () => new FakeClusterApi(HOSTS), shutdown: shutdown.signal, heartbeatMs: 1 });
      for (let i = 0; i < 200 && !(await getDb().step.findFirst({ where: { runId, key: "facts/worker-1", status: "running" } })); i++) await new Promise((r) => setTimeout(r, 20));
      shutdown.abort();
      expect(await running).toBe("handed-over");
      await new Promise((r) => setTimeout(r, 100));
      expect(await getDb().run.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({ status: "running", workerId: null });
      expect(await executeRun(runId, { workerId: "w-new", executor: new RecordingExecutor(), api: () => new FakeClusterApi(HOSTS) })).toBe("succeeded");
    }
  });
});

describe("taking over from a process that is gone", () => {
  it("takes a run at once when its holder is a process of this machine that no longer exists", async () => {
    const runId = await startedCheck();
    const gone = `w_${hostname()}_${await deadPid()}`;
    expect(isLocalWorkerGone(gone)).toBe(true);
    await getDb().run.update({ where: { id: runId }, data: { workerId: gone, heartbeatAt: new Date() } });
    expect(await listResumableRuns({ workerId: "w-new", staleMs: 15_000 })).toContain(runId);
    expect(await claimRun({ runId, workerId: "w-new", staleMs: 15_000 })).toBe(true);
    expect((await getDb().run.findUniqueOrThrow({ where: { id: runId } })).workerId).toBe("w-new");
    expect(await executeRun(runId, { workerId: "w-new", executor: new RecordingExecutor(), api: () => new FakeClusterApi(HOSTS) })).toBe("succeeded");
  });

  it("leaves a fresh lease alone while its holder runs, here or on another machine", async () => {
    const runId = await startedCheck();
    const alive = spawn("sleep", ["30"]);
    try {
      for (const holder of [`w_${hostname()}_${alive.pid}`, `w_another-machine_${await deadPid()}`]) {
        await getDb().run.update({ where: { id: runId }, data: { workerId: holder, heartbeatAt: new Date() } });
        expect(await listResumableRuns({ workerId: "w-new", staleMs: 15_000 })).not.toContain(runId);
        expect(await claimRun({ runId, workerId: "w-new", staleMs: 15_000 })).toBe(false);
      }
    } finally {
      alive.kill();
    }
  });
});
