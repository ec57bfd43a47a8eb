// Failover between worker processes on PostgreSQL, and live events across instances. Two real
// worker processes (test/pg-fake-worker.ts: the real queue and runner, test-double hosts) share the
// database; the one that holds a running run is killed with SIGKILL mid-step. The other must finish
// the run with a gap-free log and no step done twice, and take it over quickly (goal under 5 s; the
// test allows 10 s so a loaded machine does not make it flaky, and prints the figure). A machine that
// is lost sends no FIN or RST: a worker in a network namespace has its link cut mid-run, and another
// must take over once the server's keepalives give up on it. Then an event stream opened in this
// process (instance A) follows a run executed by the surviving worker (as if attached to instance B):
// every event must arrive within 1 s of its commit — through LISTEN/NOTIFY, since on PostgreSQL the
// stream reads the database on its own only every 5 s.
// Runs only with BOOTDECK_TEST_DATABASE_URL set to a PostgreSQL server (scripts/test.sh does); the
// lost machine needs root and scripts/postgres.sh's listener on the namespace's veth.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempDb, onPostgres, type TempDb } from "../../test/temp-db";
import { sessionRecheck } from "../auth/session-recheck";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { processGone } from "../process-gone";
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

/** A worker process, on this machine or on `machine`; resolves once it takes jobs. */
async function startWorker(workerId: string, stepDelayMs: number, machine?: Machine): Promise<ChildProcess> {
  const argv = [process.execPath, "--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, "test/pg-fake-worker.ts")];
  const [command, ...args] = machine ? ["ip", "netns", "exec", machine.ns, ...argv] : argv;
  const child = spawn(command!, args, {
    cwd: root,
    env: { ...process.env, WORKER_ID: workerId, HOSTS: HOSTS.join(","), STEP_DELAY_MS: String(stepDelayMs), ...(machine ? { DATABASE_URL: machine.databaseUrl } : {}) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let err = "";
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
    process.stderr.write(`[${workerId}] ${d.toString()}`);
  });
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const deadline = setTimeout(() => {
      // What the server sees of it: its sessions and what they wait for.
      void getDb()
        .$queryRawUnsafe<object[]>(`SELECT application_name, client_addr::text, state, wait_event_type, wait_event, left(query, 120) AS query FROM pg_stat_activity WHERE datname = current_database()`)
        .catch((e: unknown) => [String(e)])
        .then((sessions) => reject(new Error(`worker ${workerId} not ready after 60 s; stdout: ${out || "(none)"}; stderr: ${err || "(none)"}; its database's sessions: ${JSON.stringify(sessions)}`)));
    }, 60_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("ready")) {
        clearTimeout(deadline);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(deadline);
      reject(new Error(`worker ${workerId} exited (${code}): ${err}`));
    });
  });
  return child;
}

const NS_PREFIX = "bdlost";
const canMakeNetworkNamespaces = onPostgres && process.getuid?.() === 0 && (() => {
  try {
    execFileSync("ip", ["netns", "list"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
type Machine = { ns: string; databaseUrl: string; cut(): void; remove(): void };

/**
 * Another "machine": a network namespace whose veth leads to this one (it is 10.239.255.2, the
 * database server 10.239.255.1), its link cut by taking its end down — the server then hears nothing,
 * as from a machine powered off or unplugged. Namespaces left by test processes that are gone are removed.
 */
function isolatedMachine(): Machine {
  const ip = (...args: string[]) => execFileSync("ip", args, { stdio: "pipe" });
  // A namespace outlives its name while sockets of it linger (a killed worker's, retrying their FIN
  // over a cut link), and with it its veth: the outside end is deleted by name, which takes the pair.
  const outsideOf = (pid: number) => `bdl${pid}o`;
  for (const name of ip("netns", "list").toString().split("\n").map((l) => l.split(" ")[0] ?? "")) {
    const pid = Number(name.slice(NS_PREFIX.length));
    if (name.startsWith(NS_PREFIX) && pid && processGone(pid)) ip("netns", "del", name);
  }
  for (const [, pid] of ip("-br", "link").toString().matchAll(/^bdl(\d+)o\b/gm)) if (processGone(Number(pid))) ip("link", "del", outsideOf(Number(pid)));
  const ns = `${NS_PREFIX}${process.pid}`;
  const [outside, inside] = [outsideOf(process.pid), `bdl${process.pid}i`];
  ip("netns", "add", ns);
  ip("link", "add", outside, "type", "veth", "peer", "name", inside, "netns", ns);
  ip("addr", "add", "10.239.255.1/30", "dev", outside);
  ip("link", "set", outside, "up");
  ip("-n", ns, "addr", "add", "10.239.255.2/30", "dev", inside);
  ip("-n", ns, "link", "set", inside, "up");
  ip("-n", ns, "link", "set", "lo", "up");
  const url = new URL(db.databaseUrl);
  url.hostname = "10.239.255.1";
  return {
    ns,
    databaseUrl: url.toString(),
    cut: () => ip("-n", ns, "link", "set", inside, "down"),
    remove: () => {
      ip("link", "del", outside);
      ip("netns", "del", ns);
    },
  };
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
    const doneBefore = await doneSteps(runId);
    const killedAt = Date.now();
    workers.get(holder)!.kill("SIGKILL");
    await until(`worker ${other} holding the run`, async () => (await run(runId)).workerId === other);
    const takeoverMs = Date.now() - killedAt;
    const resumed = await expectFinishedCleanly(runId, doneBefore);
    console.log(`failover: takeover ${takeoverMs} ms after SIGKILL; ${resumed.length} step(s) in flight repeated (${resumed.join(", ")}), ${doneBefore.size} done step(s) kept`);
    expect(takeoverMs).toBeLessThan(10_000);
    workers.get(other)!.kill("SIGTERM");
  });

  it.skipIf(!canMakeNetworkNamespaces)(
    "a worker whose machine goes silent (its link cut: no FIN, no RST) loses the run to another worker within seconds, log gap-free, no step done twice",
    async () => {
      // The workers of the test before are gone: only the worker behind the veth is up when the run is queued.
      await until("earlier workers to exit", async () => children.every((c) => c.exitCode !== null || c.signalCode !== null));
      const lost = isolatedMachine();
      let lostWorker: ChildProcess | undefined;
      try {
        // Its commands take long enough for the run to outlast the other worker's start.
        lostWorker = await startWorker("w-lost", 15_000, lost);
        const runId = await startedCheck();
        await sender.enqueueRun(runId);
        await until("w-lost holding the run", async () => (await run(runId)).workerId === "w-lost");
        await startWorker("w-here", 1_500);
        await until("w-lost mid-run", async () => (await doneSteps(runId)).size > 0);
        expect(await run(runId)).toMatchObject({ status: "running", workerId: "w-lost" });
        const doneBefore = await doneSteps(runId);
        const cutAt = Date.now();
        lost.cut();
        lostWorker.stderr!.removeAllListeners("data").resume(); // its complaints about a database it cannot reach
        await until("w-here holding the run", async () => (await run(runId)).workerId === "w-here", 60_000);
        const takeoverMs = Date.now() - cutAt;
        const resumed = await expectFinishedCleanly(runId, doneBefore);
        console.log(`failover: takeover ${takeoverMs} ms after the lost worker's link was cut; ${resumed.length} step(s) in flight repeated, ${doneBefore.size} done step(s) kept`);
        // The server ends a silent session after its keepalives (LOCK_SESSION_KEEPALIVE, about 5 s);
        // without them this waits out Linux's two hours and the test its deadline above.
        expect(takeoverMs).toBeLessThan(30_000);
      } finally {
        lostWorker?.kill("SIGKILL");
        lost.remove();
      }
    },
    120_000,
  );
});

/** The keys of the run's steps done so far. */
async function doneSteps(runId: string): Promise<Set<string>> {
  return new Set((await getDb().step.findMany({ where: { runId, status: "done" } })).map((s) => s.key));
}

/**
 * The run, taken over by another worker, ends succeeded; its log is gap-free, every step finished once
 * and never started again once done, and what was done before the takeover was not done again.
 * Returns the keys of the steps in flight at the takeover, which were started again.
 */
async function expectFinishedCleanly(runId: string, doneBefore: Set<string>): Promise<string[]> {
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
  // What the first worker had done, the second did not do again.
  for (const key of doneBefore) expect(startedAt.get(key)).toHaveLength(1);
  const resumed = events.filter((e) => e.type === "step.started" && e.data.resumed === true).map((e) => String(e.data.key));
  expect(resumed.length).toBeGreaterThan(0);
  return resumed;
}

describe.skipIf(!onPostgres)("live events across instances (PostgreSQL)", () => {

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
