// How the runner behaves when things go wrong around it: a worker that lost its lease writes nothing
// more; a run that cannot even start fails with the reason and frees the cluster; a planned run that is
// cancelled ends; an admin can release a stuck run; a step's row and its event commit together; a
// resumed bootstrap creates nothing twice and says when it cannot know the pivot's API gap; a join
// proves the node alive; a step past its time limit fails saying so. Hosts and the cluster's API are
// test doubles (test/fake-cluster.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClusterApi, RecordingExecutor, type RecordedRun, type Reply } from "../../test/fake-cluster";
import { createTempDb, onPostgres, type TempDb } from "../../test/temp-db";
import { renderAndSaveAssetSet } from "../clusters/render-assets";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { SshError } from "../ssh/errors";
import { listRunEvents } from "./events";
import { planRun } from "./plan-run";
import { executeRun, type RunnerOptions } from "./runner";
import { listResumableRuns, releaseRun, requestCancel, retryRun, startRun } from "./runs";
import type { CreateRunBody } from "./schemas";
import { testKeyPair } from "../../test/ssh-key";

let db: TempDb;
let clusterId: string;
const HOSTS = ["master-1", "master-2", "master-3", "worker-1", "worker-2"];

beforeAll(async () => {
  db = await createTempDb();
  const privateKey = testKeyPair().private;
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "runner", hosts: 5 }), secrets: { "admin-key": { privateKey } } })).id;
  await renderAndSaveAssetSet({ clusterId, options: {} });
}, 60_000);
afterAll(async () => db?.cleanup());

async function started(body: CreateRunBody): Promise<string> {
  const runId = await planRun({ clusterId, body, by: "test" });
  await startRun({ runId });
  return runId;
}

const options = (executor: RecordingExecutor, api = new FakeClusterApi(HOSTS), extra: Partial<RunnerOptions> = {}): RunnerOptions => ({ workerId: "w-1", executor, api: () => api, heartbeatMs: 50, ...extra });

/** The run's status, with its summary and failed steps when it did not succeed (a failing test says why). */
async function outcome(runId: string, status: string): Promise<string> {
  if (status === "succeeded") return status;
  const run = await getDb().run.findUniqueOrThrow({ where: { id: runId }, include: { steps: { where: { status: "failed" } } } });
  return `${status}: ${run.summary} ${run.steps.map((s) => `${s.key}: ${s.error}`).join("; ")}`;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("leases", () => {
  it("a worker whose run was taken over writes nothing more: no skipped steps, no finished run", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // worker-1's facts hang until the test lets them go.
    const rec = new RecordingExecutor((call: RecordedRun): Reply => (call.step === "facts/worker-1" ? { delayMs: 0 } : undefined));
    const run = rec.run.bind(rec);
    rec.run = async (host, argv, opts) => {
      if (opts?.step === "facts/worker-1") await gate;
      return run(host, argv, opts);
    };
    const runId = await started({ type: "check" });
    const old = executeRun(runId, options(rec, undefined, { heartbeatMs: 60_000 }));
    await until("worker-1's facts in flight", () => getDb().step.findFirst({ where: { runId, key: "facts/worker-1", status: "running" } }));
    // Another worker takes the run over (the old one looked dead to it).
    await getDb().run.update({ where: { id: runId }, data: { workerId: "w-2", heartbeatAt: new Date() } });
    const before = { run: await getDb().run.findUniqueOrThrow({ where: { id: runId } }), steps: await getDb().step.findMany({ where: { runId }, orderBy: { ordinal: "asc" } }) };
    release();
    expect(await old).toBe("lost-lease");
    const after = { run: await getDb().run.findUniqueOrThrow({ where: { id: runId } }), steps: await getDb().step.findMany({ where: { runId }, orderBy: { ordinal: "asc" } }) };
    expect(after.run).toMatchObject({ status: "running", workerId: "w-2", lastSeq: before.run.lastSeq, summary: null });
    expect(after.steps.map((s) => `${s.key} ${s.status} ${s.attempts}`)).toEqual(before.steps.map((s) => `${s.key} ${s.status} ${s.attempts}`));
    // The new holder finishes it.
    expect(await outcome(runId, await executeRun(runId, { ...options(new RecordingExecutor()), workerId: "w-2" }))).toBe("succeeded");
  });

  it("a run that fails before its steps (a credential that cannot be decrypted) ends failed with the reason and frees the cluster", async () => {
    const cred = await getDb().credential.findFirstOrThrow({ where: { clusterId } });
    await getDb().credential.update({ where: { id: cred.id }, data: { secretCipher: "v1:not-a-ciphertext" } });
    try {
      const runId = await started({ type: "check" });
      expect(await executeRun(runId, options(new RecordingExecutor()))).toBe("failed");
      const run = await getDb().run.findUniqueOrThrow({ where: { id: runId } });
      expect(run.status).toBe("failed");
      expect(JSON.parse(run.summary!).message).toMatch(/^could not run: .+/);
      expect(run.workerId).toBeNull();
      expect((await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId } })).activeRunId).toBeNull();
      expect(await listResumableRuns({ workerId: "w-1", staleMs: 15_000 })).not.toContain(runId);
      expect((await listRunEvents({ runId })).at(-1)).toMatchObject({ type: "run.finished", data: { status: "failed" } });
    } finally {
      await getDb().credential.update({ where: { id: cred.id }, data: { secretCipher: cred.secretCipher } });
    }
  });
});

describe("cancel and release", () => {
  it("cancelling a planned run ends it, and it can no longer be started", async () => {
    const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    expect(await requestCancel({ runId, by: "lead" })).toBe("cancelled");
    const run = await getDb().run.findUniqueOrThrow({ where: { id: runId }, include: { steps: true } });
    expect(run.status).toBe("cancelled");
    expect(run.finishedAt).not.toBeNull();
    expect(run.steps.every((s) => s.status === "cancelled")).toBe(true);
    await expect(startRun({ runId })).rejects.toMatchObject({ status: 409 });
    expect((await listRunEvents({ runId })).at(-1)).toMatchObject({ type: "run.finished", data: { status: "cancelled" } });
  });

  it("an admin releases a stuck run: it fails saying who released it, the cluster is free, and its worker writes nothing more", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const rec = new RecordingExecutor();
    const run = rec.run.bind(rec);
    rec.run = async (host, argv, opts) => {
      if (opts?.step === "facts/master-2") await gate;
      return run(host, argv, opts);
    };
    const runId = await started({ type: "check" });
    const stuck = executeRun(runId, options(rec, undefined, { heartbeatMs: 60_000 }));
    await until("master-2's facts in flight", () => getDb().step.findFirst({ where: { runId, key: "facts/master-2", status: "running" } }));
    const r = await releaseRun({ runId, by: "admin", reason: "worker wedged" });
    expect(r).toEqual({ status: "failed", previousWorker: "w-1" });
    const lastSeq = (await getDb().run.findUniqueOrThrow({ where: { id: runId } })).lastSeq;
    release();
    expect(await stuck).toBe("lost-lease");
    const after = await getDb().run.findUniqueOrThrow({ where: { id: runId }, include: { steps: true } });
    expect(after).toMatchObject({ status: "failed", lastSeq, workerId: null });
    expect(JSON.parse(after.summary!)).toMatchObject({ message: "released by admin: worker wedged", releasedBy: "admin" });
    expect(after.steps.find((s) => s.key === "facts/master-2")).toMatchObject({ status: "failed", error: expect.stringMatching(/released by admin/) });
    expect(after.steps.some((s) => s.status === "pending" || s.status === "running")).toBe(false);
    expect((await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId } })).activeRunId).toBeNull();
    // A released run is retried like any failed one.
    await retryRun({ runId });
    expect(await outcome(runId, await executeRun(runId, options(new RecordingExecutor())))).toBe("succeeded");
  });
});

describe("the event log and the step rows agree", () => {
  it("a step whose start event cannot be written is not counted as started: the next attempt is attempt 1, not '2 (resumed)'", async () => {
    if (onPostgres) {
      await getDb().$executeRawUnsafe(`CREATE FUNCTION test_refuse_start() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected: the disk went away'; END; $$`);
      await getDb().$executeRawUnsafe(`CREATE TRIGGER test_refuse_start BEFORE INSERT ON "RunEvent" FOR EACH ROW WHEN (NEW.type = 'step.started' AND NEW.data LIKE '%"facts/worker-2"%') EXECUTE FUNCTION test_refuse_start()`);
    } else
      await getDb().$executeRawUnsafe(`CREATE TRIGGER test_refuse_start BEFORE INSERT ON RunEvent WHEN NEW.type = 'step.started' AND NEW.data LIKE '%"facts/worker-2"%' BEGIN SELECT RAISE(ABORT, 'injected: the disk went away'); END`);
    let runId: string;
    try {
      runId = await started({ type: "check" });
      expect(await executeRun(runId, options(new RecordingExecutor()))).toBe("failed");
      expect(await getDb().step.findFirstOrThrow({ where: { runId, key: "facts/worker-2" } })).toMatchObject({ attempts: 0, startedAt: null });
    } finally {
      if (onPostgres) {
        await getDb().$executeRawUnsafe(`DROP TRIGGER test_refuse_start ON "RunEvent"`);
        await getDb().$executeRawUnsafe("DROP FUNCTION test_refuse_start()");
      }
      else await getDb().$executeRawUnsafe("DROP TRIGGER test_refuse_start");
    }
    await retryRun({ runId });
    expect(await outcome(runId, await executeRun(runId, options(new RecordingExecutor())))).toBe("succeeded");
    const starts = (await listRunEvents({ runId, limit: 10_000 })).filter((e) => e.type === "step.started" && e.data.key === "facts/worker-2");
    expect(starts.map((e) => e.data)).toEqual([{ key: "facts/worker-2", attempt: 1, resumed: false }]);
  });
});

describe("a resumed bootstrap", () => {
  it("creates nothing twice: objects an earlier attempt created (a Service with a fixed clusterIP among them) are read and left", async () => {
    const api = new FakeClusterApi(HOSTS);
    const first = await started({ type: "bootstrap" });
    expect(await outcome(first, await executeRun(first, options(new RecordingExecutor(), api)))).toBe("succeeded");
    const created = api.objectsStore.size;
    expect([...api.objectsStore.values()].some((o) => o.kind === "Service" && (o.spec as { clusterIP?: string }).clusterIP)).toBe(true);
    // Everything again against the same cluster (what a resumed self-hosted step meets).
    await getDb().step.updateMany({ where: { runId: first }, data: {} });
    const second = await started({ type: "bootstrap" });
    expect(await outcome(second, await executeRun(second, options(new RecordingExecutor(), api)))).toBe("succeeded");
    expect(api.objectsStore.size).toBe(created);
    const done = (await listRunEvents({ runId: second, limit: 10_000 })).find((e) => e.type === "step.finished" && e.data.key === "self-hosted/cluster");
    expect(done?.data.summary).toMatch(/^0 objects created, (\d+) already present \(of \1\)/);
  });

  it("reports the pivot's API gap as unknown when an earlier attempt removed the bootstrap control plane", async () => {
    // master-1 no longer has the bootstrap manifests: removed before this attempt began.
    const rec = new RecordingExecutor((call) => (call.argv[3] === "bootdeck-present" ? { stdout: "" } : undefined));
    const runId = await started({ type: "bootstrap" });
    expect(await outcome(runId, await executeRun(runId, options(rec)))).toBe("succeeded");
    const pivot = (await listRunEvents({ runId, limit: 10_000 })).find((e) => e.type === "step.finished" && e.data.key === "pivot/cluster");
    expect(pivot?.data.summary).toMatch(/API gap unknown/);
    expect(pivot?.data.apiGapS).toBeNull();
  });
});

describe("joins prove the node alive now", () => {
  it("fails the join of a worker that is Ready in the API but no longer answers, and the run with it", async () => {
    const api = new FakeClusterApi(HOSTS);
    api.frozen.add("worker-2");
    const gone = new SshError({ kind: "timeout", host: "worker-2", phase: "command", afterMs: 10_000, step: "join/worker-2" });
    const rec = new RecordingExecutor((call) => (call.host === "worker-2" && call.step.startsWith("join/") ? { error: gone } : undefined));
    const runId = await started({ type: "join", hosts: ["worker-2"] });
    const t0 = Date.now();
    expect(await executeRun(runId, options(rec, api))).toBe("failed");
    expect(Date.now() - t0).toBeLessThan(20_000);
    const join = await getDb().step.findFirstOrThrow({ where: { runId, key: "join/worker-2" } });
    expect(join.status).toBe("failed");
    expect(join.error).toMatch(/worker-2 stopped answering/);
    // It asked the host itself, not only the API.
    expect(rec.runs.some((r) => r.host === "worker-2" && r.argv.join(" ") === "true")).toBe(true);
  });

  it("waits until the kubelet renewed its Lease after the join began", async () => {
    const api = new FakeClusterApi(HOSTS);
    const runId = await started({ type: "join", hosts: ["worker-1"] });
    expect(await outcome(runId, await executeRun(runId, options(new RecordingExecutor(), api)))).toBe("succeeded");
    const leaseReads = api.requests.filter((r) => r.path.endsWith("/leases/worker-1"));
    expect(leaseReads.length).toBeGreaterThanOrEqual(2);
    const done = (await listRunEvents({ runId, limit: 10_000 })).find((e) => e.type === "step.finished" && e.data.key === "join/worker-1");
    expect(done?.data.summary).toMatch(/Ready and alive \(kubelet Lease renewed, host answering\)/);
  });
});

describe("planning a bootstrap again", () => {
  it("opens the plan already waiting for review when nothing it was made from changed, and ends it once a newer plan replaces it", async () => {
    const first = await planRun({ clusterId, body: { type: "bootstrap" }, by: "test" });
    expect(await planRun({ clusterId, body: { type: "bootstrap" }, by: "test" })).toBe(first);
    expect(await getDb().run.count({ where: { clusterId, status: "planned" } })).toBe(1);
    // The cluster was edited: the waiting plan is stale, a new one is made and the stale one ends.
    await getDb().cluster.update({ where: { id: clusterId }, data: { revision: { increment: 1 } } });
    const second = await planRun({ clusterId, body: { type: "bootstrap" }, by: "test" });
    expect(second).not.toBe(first);
    const ended = await getDb().run.findUniqueOrThrow({ where: { id: first } });
    expect(ended.status).toBe("cancelled");
    expect(ended.summary).toContain(`cancelled before it started by the newer plan ${second}`);
    await requestCancel({ runId: second, by: "test" });
  });
});

describe("time limits", () => {
  it("a step past its time limit fails naming the limit, while the other hosts' steps finish", async () => {
    // worker-1's facts never answer; its step is given 300 ms.
    const rec = new RecordingExecutor((call: RecordedRun): Reply => (call.step === "facts/worker-1" ? { delayMs: 60_000 } : undefined));
    const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    const { plan } = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { plan: true } });
    const steps = (JSON.parse(plan) as { phases: { steps: { key: string; timeoutMs: number; retries?: number }[] }[] }).phases;
    for (const s of steps.flatMap((p) => p.steps)) if (s.key === "facts/worker-1") Object.assign(s, { timeoutMs: 300, retries: 0 });
    await getDb().run.update({ where: { id: runId }, data: { plan: JSON.stringify({ ...JSON.parse(plan), phases: steps }) } });
    await startRun({ runId });
    expect(await executeRun(runId, options(rec))).toBe("failed");
    const rows = await getDb().step.findMany({ where: { runId, phase: "facts" }, select: { key: true, status: true, error: true } });
    expect(rows.find((r) => r.key === "facts/worker-1")).toMatchObject({ status: "failed", error: expect.stringContaining("the step ran past its time limit of 0.3 s") });
    expect(rows.filter((r) => r.key !== "facts/worker-1").every((r) => r.status === "done")).toBe(true);
  });
});
