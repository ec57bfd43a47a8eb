// The confirmed plan is the code that runs: for every run type (check, bootstrap, join, reset and a
// retry; a static control plane's bootstrap; backup, restore and recover) every command that reaches a
// host is one the plan shows for that host, quoted exactly as shown; every file pushed is one the plan lists, with the planned mode and checksum; and the run uses
// the definition it was planned from, whatever happens to the cluster's definition afterwards.
// A recording executor stands in for the hosts and a fake API for the cluster.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { FakeClusterApi, RecordingExecutor, scriptName, type RecordedRun, type Reply } from "../../test/fake-cluster";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { renderAndSaveAssetSet } from "../assets/store";
import { exampleDefinition } from "../cluster/example";
import { createCluster, getClusterOrThrow, updateCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { shellCommand } from "../ssh/quote";
import type { RunPlan } from "./plan";
import { planRun } from "./plan-run";
import { executeRun } from "./runner";
import { getRunPlan, retryRun, startRun } from "./runs";
import type { CreateRunBody } from "./schemas";
import { testKeyPair } from "../../test/ssh-key";

let db: TempDb;
let clusterId: string;
let privateKey: string;
const HOSTS = ["master-1", "master-2", "master-3", "worker-1", "worker-2"];

beforeAll(async () => {
  db = await createTempDb();
  privateKey = testKeyPair().private;
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "as-planned", hosts: 5 }), secrets: { "admin-key": { privateKey } } })).id;
  await renderAndSaveAssetSet({ clusterId, options: {} });
}, 60_000);
afterAll(async () => db?.cleanup());

type Recorded = RecordedRun & { address: string };

/** A recording executor that also keeps each command's target address. */
function recorder(reply?: (call: RecordedRun) => Reply) {
  const rec = new RecordingExecutor(reply);
  const addresses: Recorded[] = [];
  const run = rec.run.bind(rec);
  rec.run = async (host, argv, opts) => {
    addresses.push({ host: host.id, argv: [...argv], step: opts?.step ?? "", address: host.address });
    return run(host, argv, opts);
  };
  return { rec, addresses };
}

async function runPlanned(body: CreateRunBody, rec: RecordingExecutor): Promise<{ runId: string; status: string; plan: RunPlan }> {
  const runId = await planRun({ clusterId, body, by: "test" });
  await startRun({ runId });
  let status: string = await executeRun(runId, { workerId: "w-test", executor: rec, api: () => new FakeClusterApi(HOSTS), heartbeatMs: 50 });
  // A failing test says why.
  if (status === "failed") status = `failed: ${(await getDb().step.findMany({ where: { runId, status: "failed" } })).map((s) => `${s.key}: ${s.error}`).join("; ")}`;
  return { runId, status, plan: await getRunPlan(runId) };
}

/** Every command sent is one the plan shows for that host; every planned upload went out as planned. */
function expectSentAsPlanned(plan: RunPlan, rec: RecordingExecutor, runId: string, ran: (stepKey: string) => boolean = () => true) {
  const allowed = new Map<string, Set<string>>();
  const allow = (host: string, line: string) => allowed.set(host, (allowed.get(host) ?? new Set()).add(line));
  const steps = plan.phases.flatMap((p) => p.steps);
  for (const s of steps)
    for (const e of s.exec ?? []) {
      const line = shellCommand(e.argv);
      // What the plan shows for the step is the line sent.
      expect(s.commands, `${s.key} shows ${e.id}`).toContain(line);
      allow(e.host ?? s.host ?? "", line);
    }
  if (plan.lock) for (const h of plan.lock.hosts) allow(h, shellCommand(plan.lock.release));
  expect(rec.runs.length).toBeGreaterThan(0);
  for (const r of rec.runs) expect(allowed.get(r.host)?.has(shellCommand(r.argv)), `${r.host} was sent "${shellCommand(r.argv).slice(0, 160)}" (step ${r.step}), which the plan does not show`).toBe(true);
  // Every command the plan sends always went out, to its host.
  for (const s of steps.filter((x) => ran(x.key)))
    for (const e of (s.exec ?? []).filter((x) => x.when === "always"))
      expect(rec.runs.some((r) => r.host === (e.host ?? s.host) && shellCommand(r.argv) === shellCommand(e.argv)), `${s.key}: ${e.id} was planned but not sent`).toBe(true);
  if (plan.lock) expect(plan.lock.release).toContain(runId);
  // Files: exactly the planned ones for that host, with their mode and checksum (a file from a
  // credential: its path and mode; the plan cannot show a secret's checksum).
  const withFiles = steps.filter((s) => s.files.length && ran(s.key));
  const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
  for (const s of withFiles) {
    const sent = rec.uploads.filter((u) => u.step === s.key);
    expect(sent.length, `${s.key} uploaded`).toBeGreaterThan(0);
    for (const u of sent) {
      const planned = s.files.filter((f) => (f.host ?? s.host) === u.host);
      expect(planned.length, `${s.key} plans files for ${u.host}`).toBeGreaterThan(0);
      const shown = (f: { path: string; mode: number; sha256: string; size: number; credential?: string }) => (f.credential ? { path: f.path, mode: f.mode } : { path: f.path, mode: f.mode, sha256: f.sha256, size: f.size });
      const credentialPaths = new Set(planned.filter((f) => f.credential).map((f) => f.path));
      expect([...u.files].map((f) => (credentialPaths.has(f.path) ? { path: f.path, mode: f.mode } : f)).sort(byPath)).toEqual(planned.map(shown).sort(byPath));
    }
  }
  for (const u of rec.uploads) expect(steps.filter((s) => s.files.length).map((s) => s.key)).toContain(u.step);
}

describe("what reaches the hosts is what the plan shows", () => {
  it("check", async () => {
    const rec = new RecordingExecutor();
    const { runId, status, plan } = await runPlanned({ type: "check" }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
  });

  it("bootstrap", async () => {
    const rec = new RecordingExecutor();
    const { runId, status, plan } = await runPlanned({ type: "bootstrap" }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    // The kubelet is started by the planned script with the planned files, whatever the upload wrote.
    expect(rec.runs.filter((r) => r.step === "kubelet/worker-1").map((r) => r.argv.at(-1))).toContain(plan.phases.find((p) => p.id === "kubelet")!.steps.find((s) => s.host === "worker-1")!.files.at(-1)!.path);
  });

  it("join", async () => {
    const rec = new RecordingExecutor();
    const { runId, status, plan } = await runPlanned({ type: "join", hosts: ["worker-2"] }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    expect(new Set(rec.runs.map((r) => r.host))).toEqual(new Set(["worker-2"]));
  });

  it("reset", async () => {
    const rec = new RecordingExecutor();
    const { runId, status, plan } = await runPlanned({ type: "reset", hosts: ["master-2", "worker-1"], confirm: true }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
  });

  it("retry of a failed bootstrap, and the take-over of a lock a finished run left behind", async () => {
    let failOnce = true;
    const first = new RecordingExecutor((call) => {
      if (call.step === "kubelet/worker-1" && (call.argv[2] ?? "").includes("bootdeck-kubelet") && failOnce) {
        failOnce = false;
        return { exitCode: 1, stderr: ["the kubelet is not running steadily"] };
      }
      return undefined;
    });
    const { runId, status, plan } = await runPlanned({ type: "bootstrap" }, first);
    expect(status).toMatch(/^failed: kubelet\/worker-1:/);
    expectSentAsPlanned(plan, first, runId);
    await retryRun({ runId });
    const again = new RecordingExecutor();
    // worker-1 still carries the lock of another run that has finished (a release that never arrived).
    const other = (await getDb().run.findFirstOrThrow({ where: { clusterId, status: { in: ["succeeded", "failed"] }, id: { not: runId } }, select: { id: true } })).id;
    again.locks.set("worker-1", other);
    expect(await executeRun(runId, { workerId: "w-test", executor: again, api: () => new FakeClusterApi(HOSTS), heartbeatMs: 50 })).toBe("succeeded");
    // The take-over is the finished run's own release (the plan's release command with its id), then the planned command again.
    const takeOver = again.runs.filter((r) => r.host === "worker-1" && r.argv[3] === "bootdeck-unlock" && r.argv[4] === other);
    expect(takeOver).toHaveLength(1);
    const allowedExtra = new Set([shellCommand(plan.lock!.release).replace(runId, other)]);
    const rest = new RecordingExecutor();
    rest.runs.push(...again.runs.filter((r) => !allowedExtra.has(shellCommand(r.argv))));
    rest.uploads.push(...again.uploads);
    const retried = (await getDb().runEvent.findFirstOrThrow({ where: { runId, type: "run.retried" } })).data;
    const keys = new Set<string>(JSON.parse(retried).steps);
    expect(keys.has("kubelet/worker-1")).toBe(true);
    expectSentAsPlanned(plan, rest, runId, (k) => keys.has(k));
    const events = await getDb().runEvent.findMany({ where: { runId, type: "host.lock-taken-over" } });
    expect(events.map((e) => JSON.parse(e.data))).toEqual([expect.objectContaining({ host: "worker-1", from: other })]);
  });

  // Disaster recovery: the snapshot a backup streams back, and etcd and the control plane as healthy hosts report them.
  const snapshot = "etcd snapshot bytes of the plan test";
  const masters = HOSTS.filter((h) => h.startsWith("master"));
  const drHosts = (call: RecordedRun): Reply => {
    const name = scriptName(call.argv);
    if (name === "bootdeck-snapshot")
      return { stdout: `bootdeck-snapshot-status {"hash":1,"revision":1234,"totalKey":10,"totalSize":4096,"version":"3.6.8"}\nbootdeck-snapshot-file ${createHash("sha256").update(snapshot).digest("hex")} ${Buffer.byteLength(snapshot)}\n` };
    if (call.argv[0] === "cat") return { stdout: snapshot };
    if (name === "bootdeck-etcd-status") {
      const endpoints = masters.map((_, i) => `https://192.0.2.${11 + i}:2379`);
      return { stdout: `--- health\n${JSON.stringify(endpoints.map((endpoint) => ({ endpoint, health: true })))}\n--- status\n${JSON.stringify(endpoints.map((Endpoint) => ({ Endpoint, Status: { header: { revision: 2000 } } })))}\n` };
    }
    if (name === "bootdeck-running") return { stdout: "kube-apiserver=1\nkube-controller-manager=1\nkube-scheduler=1\n" };
    return undefined;
  };

  it("backup: the first master's snapshot only (the others are asked when needed), stored encrypted", async () => {
    const rec = new RecordingExecutor(drHosts);
    const { runId, status, plan } = await runPlanned({ type: "backup" }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    expect(new Set(rec.runs.map((r) => r.host))).toEqual(new Set(["master-1"]));
    expect(await getDb().backup.count({ where: { runId } })).toBe(1);
  });

  it("restore of that backup", async () => {
    const backup = await getDb().backup.findFirstOrThrow({ where: { clusterId }, orderBy: { createdAt: "desc" }, select: { id: true } });
    const rec = new RecordingExecutor(drHosts);
    const { runId, status, plan } = await runPlanned({ type: "restore", backup: backup.id, confirm: true }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    // The masters were locked for the run and are released at its end.
    expect(plan.lock?.hosts).toEqual(masters);
    for (const m of masters) expect(rec.locks.has(m)).toBe(false);
  });

  it("recover", async () => {
    const rec = new RecordingExecutor(drHosts);
    const { runId, status, plan } = await runPlanned({ type: "recover", confirm: true }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
  });

  it("bootstrap of a static control plane: no checkpoint anywhere", async () => {
    const def = exampleDefinition({ name: "as-planned-static", hosts: 5 });
    def.spec.kubernetes.controlPlane = "static";
    const staticId = (await createCluster({ definition: def, secrets: { "admin-key": { privateKey } } })).id;
    await renderAndSaveAssetSet({ clusterId: staticId, options: {} });
    const rec = new RecordingExecutor();
    const runId = await planRun({ clusterId: staticId, body: { type: "bootstrap" }, by: "test" });
    await startRun({ runId });
    const status = await executeRun(runId, { workerId: "w-test", executor: rec, api: () => new FakeClusterApi(HOSTS), heartbeatMs: 50 });
    const failed = status === "failed" ? (await getDb().step.findMany({ where: { runId, status: "failed" } })).map((s) => `${s.key}: ${s.error}`).join("; ") : "";
    expect(`${status}${failed ? `: ${failed}` : ""}`).toBe("succeeded");
    const plan = await getRunPlan(runId);
    expectSentAsPlanned(plan, rec, runId);
    expect(rec.runs.some((r) => (r.argv[2] ?? "").includes("bootdeck-checkpoint"))).toBe(false);
    expect(rec.uploads.flatMap((u) => u.files).some((f) => f.path.includes("checkpoint"))).toBe(false);
  });

  it("uses the definition it was planned from, never the cluster's current one", async () => {
    const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    await startRun({ runId });
    // The stored definition changes under the running run (an edit that bypassed every guard).
    const cluster = await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId } });
    const changed = JSON.parse(cluster.definition);
    changed.spec.hosts[3].address = "198.51.100.99";
    await getDb().cluster.update({ where: { id: clusterId }, data: { definition: JSON.stringify(changed) } });
    try {
      const { rec, addresses } = recorder();
      expect(await executeRun(runId, { workerId: "w-test", executor: rec, api: () => new FakeClusterApi(HOSTS) })).toBe("succeeded");
      expect(addresses.find((a) => a.host === "worker-1")?.address).toBe("192.0.2.14");
      expect(addresses.some((a) => a.address === "198.51.100.99")).toBe(false);
    } finally {
      await getDb().cluster.update({ where: { id: clusterId }, data: { definition: cluster.definition } });
    }
  });
});

describe("editing a cluster makes its plans stale", () => {
  it("refuses to start or retry a run planned before the cluster was edited, saying to plan again", async () => {
    const planned = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    const failed = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    await startRun({ runId: failed });
    const rec = new RecordingExecutor((call) => (call.step === "preflight/worker-2" ? { error: new Error("worker-2 unreachable") } : undefined));
    expect(await executeRun(failed, { workerId: "w-test", executor: rec, api: () => new FakeClusterApi(HOSTS) })).toBe("failed");
    const view = await getClusterOrThrow({ id: clusterId });
    const edited = structuredClone(view.definition);
    edited.spec.hosts[4]!.address = "192.0.2.99";
    await updateCluster({ id: clusterId, definition: edited, secrets: {} });
    await expect(startRun({ runId: planned })).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/edited after .* was planned.*plan a new run/) });
    await expect(retryRun({ runId: failed })).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/plan a new run/) });
    // A run planned now starts.
    const fresh = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    await startRun({ runId: fresh });
    expect(await executeRun(fresh, { workerId: "w-test", executor: new RecordingExecutor(), api: () => new FakeClusterApi(HOSTS) })).toBe("succeeded");
    await updateCluster({ id: clusterId, definition: view.definition, secrets: {} });
  });

  it("refuses an edit while a run is in progress", async () => {
    const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    await startRun({ runId });
    const view = await getClusterOrThrow({ id: clusterId });
    await expect(updateCluster({ id: clusterId, definition: view.definition, secrets: {} })).rejects.toMatchObject({ status: 409 });
    expect(await executeRun(runId, { workerId: "w-test", executor: new RecordingExecutor(), api: () => new FakeClusterApi(HOSTS) })).toBe("succeeded");
  });
});
