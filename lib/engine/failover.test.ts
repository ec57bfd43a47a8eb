// Failover between worker processes on PostgreSQL, and live events across instances. Two real
// worker processes (test/pg-fake-worker.ts: the real queue and runner, test-double hosts) share the
// database; the one that holds a running run is killed with SIGKILL mid-step. The other must finish
// the run with a gap-free log and no step done twice, and take it over quickly (goal under 5 s; the
// test allows 10 s so a loaded machine does not make it flaky, and prints the figure). Then an event
// stream opened in this process (instance A) follows a run executed by the surviving worker (as if
// attached to instance B): every event must arrive within 1 s of its commit — through LISTEN/NOTIFY,
// since on PostgreSQL the stream reads the database on its own only every 5 s.
// Runs only with BOOTDECK_TEST_DATABASE_URL set to a PostgreSQL server (scripts/test.sh does).
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempDb, onPostgres, type TempDb } from "../../test/temp-db";
import { sessionRecheck } from "../auth/session-recheck";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { listRunEvents, stopListeningForRunEvents, type StoredRunEvent } from "./events";
import { PgBossRunQueue } from "./pg-queue";
import { planRun } from "./plan-run";
import { startRun } from "./runs";
import { runEventStream } from "./sse";
import { testKeyPair } from "../../test/ssh-key";

const root = path.resolve(__dirname, "../..");
const HOSTS = ["master-1", "master-2", "master-3", "worker-1", "worker-2", "worker-3"];
let db: TempDb;
let clusterId: string;
const children: ChildProcess[] = [];
let sender: PgBossRunQueue;

beforeAll(async () => {
  if (!onPostgres) return;
  db = await createTempDb();
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "failover", hosts: HOSTS.length }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
  sender = new PgBossRunQueue({ url: db.databaseUrl, workerId: "sender" });
}, 60_000);
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await sender?.stop();
  await stopListeningForRunEvents();
  await db?.cleanup();
});

/** A worker process; resolves once it takes jobs. */
async function startWorker(workerId: string, stepDelayMs: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, "test/pg-fake-worker.ts")], {
    cwd: root,
    env: { ...process.env, WORKER_ID: workerId, HOSTS: HOSTS.join(","), STEP_DELAY_MS: String(stepDelayMs) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let err = "";
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
    process.stderr.write(`[${workerId}] ${d.toString()}`);
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`worker ${workerId} exited (${code}): ${err}`)));
  });
  return child;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function startedCheck(): Promise<string> {
  const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
  await startRun({ runId });
  return runId;
}

const run = (runId: string) => getDb().run.findUniqueOrThrow({ where: { id: runId } });

describe.skipIf(!onPostgres)("failover between worker processes (PostgreSQL)", () => {
  it("kill -9 of the worker holding a running run: another worker finishes it, log gap-free, no step done twice, quick takeover", async () => {
    // Both workers are up before the run is queued (starting one takes seconds); whichever fetches it is killed.
    const workers = new Map([
      ["w-a", await startWorker("w-a", 1_500)],
      ["w-b", await startWorker("w-b", 1_500)],
    ]);
    const runId = await startedCheck();
    await sender.enqueueRun(runId);
    // The holder has finished some steps and is in the middle of others.
    const holder = await until("a worker mid-run", async () => {
      const r = await run(runId);
      if (!r.workerId) return false;
      const steps = await getDb().step.findMany({ where: { runId } });
      return steps.some((s) => s.status === "done") && steps.some((s) => s.status === "running") && r.workerId;
    });
    const other = holder === "w-a" ? "w-b" : "w-a";
    const doneBefore = new Set((await getDb().step.findMany({ where: { runId, status: "done" } })).map((s) => s.key));
    const killedAt = Date.now();
    workers.get(holder)!.kill("SIGKILL");
    await until(`worker ${other} holding the run`, async () => (await run(runId)).workerId === other);
    const takeoverMs = Date.now() - killedAt;
    expect((await until("the run to end", async () => ((await run(runId)).status !== "running" ? run(runId) : undefined))).status).toBe("succeeded");

    const events = await listRunEvents({ runId, limit: 100_000 });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const finishedAt = new Map<string, number[]>();
    const startedAt = new Map<string, number[]>();
    for (const e of events) {
      const key = String(e.data.key);
      if (e.type === "step.finished") finishedAt.set(key, [...(finishedAt.get(key) ?? []), e.seq]);
      if (e.type === "step.started") startedAt.set(key, [...(startedAt.get(key) ?? []), e.seq]);
    }
    const steps = await getDb().step.findMany({ where: { runId } });
    for (const s of steps) {
      expect(s.status).toBe("done");
      expect(finishedAt.get(s.key)).toHaveLength(1);
      // Never started again once done.
      expect(Math.max(...startedAt.get(s.key)!)).toBeLessThan(finishedAt.get(s.key)![0]!);
    }
    // What A had done, B did not do again.
    for (const key of doneBefore) expect(startedAt.get(key)).toHaveLength(1);
    const resumed = events.filter((e) => e.type === "step.started" && e.data.resumed === true).map((e) => String(e.data.key));
    expect(resumed.length).toBeGreaterThan(0);
    console.log(`failover: takeover ${takeoverMs} ms after SIGKILL; ${resumed.length} step(s) in flight repeated (${resumed.join(", ")}), ${doneBefore.size} done step(s) kept`);
    expect(takeoverMs).toBeLessThan(10_000);
    workers.get(other)!.kill("SIGTERM");
  });

  it("an event stream on instance A is woken for each event of a run executed by a worker attached to instance B: median under 1 s, none near the 5 s read", async () => {
    await startWorker("w-c", 200);
    const runId = await startedCheck();
    const controller = new AbortController();
    const stream = await runEventStream({ runId, afterSeq: (await run(runId)).lastSeq, signal: controller.signal, session: sessionRecheck(async () => true) });
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    await sender.enqueueRun(runId);
    const latencies: number[] = [];
    let buffer = "";
    let done = false;
    while (!done) {
      const chunk = await reader.read();
      if (chunk.done) break;
      const receivedAt = Date.now();
      buffer += decoder.decode(chunk.value);
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.split("\n").find((l) => l.startsWith("data: "));
        if (!data) continue;
        const e = JSON.parse(data.slice(6)) as StoredRunEvent;
        latencies.push(receivedAt - Date.parse(e.at));
        if (e.type === "run.finished") done = true;
      }
    }
    controller.abort();
    latencies.sort((x, y) => x - y);
    console.log(`cross-instance events: ${latencies.length}, median ${latencies[Math.floor(latencies.length / 2)]} ms, max ${latencies.at(-1)} ms after commit`);
    expect(latencies.length).toBeGreaterThan(20);
    // Streams read on their own every 5 s on PostgreSQL: events found that way would wait 2.5 s on
    // average. Woken by NOTIFY they take tens of ms; a busy machine adds a rare outlier, which is why
    // the bound on the slowest is half that read, and the 1 s goal applies to the median.
    expect(latencies[Math.floor(latencies.length / 2)]!).toBeLessThan(1_000);
    expect(latencies.at(-1)!).toBeLessThan(2_500);
  });
});
