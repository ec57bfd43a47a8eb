// A whole self-hosted bootstrap of 3 masters and 3 workers on lab hosts, run by real engine worker
// processes (`bootdeck worker`) that are killed with SIGKILL in the middle of phases 5, 8 and 9 and
// replaced; one worker has swap on, so preflight stops it, and it joins after the fault is fixed and
// the host retried. Brings up its own lab ("boot"), since the bootstrap leaves kubelets running.
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { labClusterDefinition } from "../../lab/cluster-yaml";
import { labCut, labDown, labHeal, labSwap, labUp } from "../../lab/lab";
import type { LabState } from "../../lab/state";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { execFileSync } from "node:child_process";
import { validateClusterDefinition } from "../cluster/definition";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { listRunEvents } from "./events";
import { planRun } from "./plan-run";
import { requestCancel, retryRun, startRun } from "./runs";
import { executeRun } from "./runner";

const LAB = "boot";
let lab: LabState;
let db: TempDb;
let clusterId: string;
let worker: ChildProcess | undefined;
const log: string[] = [];
const t0 = Date.now();

function startWorker(): ChildProcess {
  const child = spawn(path.resolve(__dirname, "../../bin/bootdeck"), ["worker"], { env: process.env, stdio: ["ignore", "pipe", "pipe"] });
  const keep = (b: Buffer) => {
    log.push(b.toString());
    appendFileSync(path.join(db.dir, "workers.log"), b);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  child.once("exit", (code, signal) => keep(Buffer.from(`--- worker ${child.pid} exited (${signal ?? code}) ---\n`)));
  return child;
}

function kill9(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; worker log:\n${log.join("").slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Waits until a step of the phase is running or waiting, then kills the worker with SIGKILL and starts
 * another. Returns every step that was in flight at the kill (they may run again; nothing else may).
 */
async function killDuring(runId: string, phase: string): Promise<string[]> {
  await until(`a ${phase} step in flight`, async () => (await getDb().step.findFirst({ where: { runId, phase, status: { in: ["running", "waiting"] } }, select: { key: true } }))?.key, 8 * 60_000);
  await kill9(worker);
  const inFlight = (await getDb().step.findMany({ where: { runId, status: { in: ["running", "waiting"] } }, select: { key: true } })).map((s) => s.key);
  log.push(`\n--- killed during ${inFlight.join(", ")} at ${Math.round((Date.now() - t0) / 1000)} s ---\n`);
  worker = startWorker();
  return inFlight;
}

/** The run's status, with every failed step's error and output tail attached when it is not the expected one. */
async function outcome(runId: string, status: string): Promise<string> {
  if (status === "succeeded") return status;
  const failed = await getDb().step.findMany({ where: { runId, status: "failed" }, select: { key: true, error: true, output: true } });
  return `${status}: ${failed.map((f) => `${f.key}: ${f.error}\n${(f.output ?? "").split("\n").slice(-15).join("\n")}`).join("\n---\n")}`;
}

async function finished(runId: string, ms: number): Promise<string> {
  return until("the run to finish", async () => {
    const r = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
    return ["succeeded", "failed", "cancelled"].includes(r.status) ? r.status : undefined;
  }, ms);
}

beforeAll(async () => {
  labDown(LAB, () => undefined);
  lab = await labUp({ name: LAB, masters: 3, workers: 3, log: () => undefined });
  db = await createTempDb();
  const v = validateClusterDefinition(labClusterDefinition(lab, "boot").definition);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  ({ id: clusterId } = await createCluster({ definition: v.definition, secrets: { "lab-admin": { privateKey: readFileSync(lab.adminKeyPath, "utf8") } } }));
}, 300_000);

afterAll(async () => {
  await kill9(worker);
  console.log(`bootstrap integration: ${Math.round((Date.now() - t0) / 1000)} s in all`);
  if (!process.env.BOOTDECK_KEEP_LAB) labDown(LAB, () => undefined);
  await db?.cleanup();
});

describe("bootstrap of 3 masters + 3 workers on lab hosts", () => {
  let runId: string;
  let legacy: string;

  it("survives SIGKILL of its worker in phases 5, 8 and 9, and stops only the worker with swap on", async () => {
    labSwap(LAB, "worker-3", true);
    // This machine's cgroup v1 is a preflight warning on every lab host: accepted up front, as an admin would.
    runId = await planRun({ clusterId, body: { type: "bootstrap", acceptWarnings: true }, by: "test" });
    await startRun({ runId });
    worker = startWorker();
    const killedKubelet = await killDuring(runId, "kubelet");
    const killedPivot = await killDuring(runId, "pivot");
    const killedJoin = await killDuring(runId, "join");
    expect(killedKubelet.every((k) => k.startsWith("kubelet/"))).toBe(true);
    expect(killedPivot).toEqual(["pivot/cluster"]);
    expect(killedJoin.every((k) => k.startsWith("join/"))).toBe(true);
    const killed = [...killedKubelet, ...killedPivot, ...killedJoin];
    expect(await finished(runId, 12 * 60_000)).toBe("failed");

    const steps = await getDb().step.findMany({ where: { runId }, include: { host: true }, orderBy: { ordinal: "asc" } });
    const byKey = new Map(steps.map((s) => [s.key, s]));
    const preflight = byKey.get("preflight/worker-3")!;
    expect(preflight.status).toBe("failed");
    expect(preflight.error).toMatch(/swap is on/);
    expect(preflight.hint).toMatch(/swapoff -a/);
    expect(steps.filter((s) => s.host?.name === "worker-3" && s.phase !== "facts" && s.phase !== "preflight").every((s) => s.status === "skipped")).toBe(true);
    // Everything else ran to the end: the pivot, every other host joined, the cluster verified.
    expect(steps.filter((s) => s.host?.name !== "worker-3").map((s) => `${s.key} ${s.status}`)).toEqual(steps.filter((s) => s.host?.name !== "worker-3").map((s) => `${s.key} done`));
    const run = await getDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect(JSON.parse(run.summary!).message).toBe("failed on 1 of 6 hosts: worker-3");
    // The steps in flight when the workers died were repeated once; nothing else ran twice.
    for (const key of killed) expect(byKey.get(key)?.attempts).toBeLessThanOrEqual(2);
    expect(steps.filter((s) => !killed.includes(s.key)).every((s) => s.attempts <= 1)).toBe(true);
    const pivot = await listRunEvents({ runId, limit: 100_000 });
    expect(pivot.map((e) => e.seq)).toEqual(pivot.map((_, i) => i + 1));
    expect(pivot.find((e) => e.type === "step.finished" && e.data.key === "pivot/cluster")?.data.summary).toMatch(/API gap \d+\.\d s/);
  }, 16 * 60_000);

  it("joins the worker once its swap is off and the host is retried; the run ends green", async () => {
    labSwap(LAB, "worker-3", false);
    const again = await retryRun({ runId, host: "worker-3" });
    expect(again).toBeGreaterThanOrEqual(6);
    expect(await outcome(runId, await finished(runId, 8 * 60_000))).toBe("succeeded");
    const run = await getDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect(JSON.parse(run.summary!).message).toBe("all 6 hosts done");
    const verify = await getDb().step.findFirstOrThrow({ where: { runId, key: "verify/cluster" } });
    expect(verify.status).toBe("done");
    const events = await listRunEvents({ runId, limit: 100_000 });
    const summary = events.filter((e) => e.type === "step.finished" && e.data.key === "verify/cluster").at(-1)?.data.summary;
    expect(summary).toMatch(/^6 nodes Ready/);
    // Every step's output is in the log before its end, so a page following the run has it all by then.
    const ends = new Map(events.filter((e) => e.type === "step.finished" || e.type === "step.failed").map((e) => [e.data.key, e.seq]));
    const outputs = events.filter((e) => e.type === "step.output");
    expect(outputs.length).toBeGreaterThan(0);
    for (const o of outputs) expect(o.seq, String(o.data.step)).toBeLessThan(ends.get(o.data.step) ?? 0);
  }, 10 * 60_000);

  it("resets every host, then bootstraps the 1.5 legacy profile on them; a cancel stops it, refuses a second run meanwhile, and a retry finishes it", async () => {
    await kill9(worker);
    worker = undefined;
    const hosts = lab.hosts.map((h) => h.name);
    const reset = await planRun({ clusterId, body: { type: "reset", hosts, confirm: true } });
    await startRun({ runId: reset });
    expect(await outcome(reset, await executeRun(reset, { workerId: "test" }))).toBe("succeeded");
    const ssh = (host: string, script: string) =>
      execFileSync("ssh", ["-i", lab.adminKeyPath, "-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "LogLevel=error", `root@${lab.hosts.find((h) => h.name === host)!.address}`, script], { encoding: "utf8" });
    expect(ssh("master-1", "ss -ltnH | awk '{print $4}' | grep -c ':6443$\\|:2379$' || true").trim()).toBe("0");
    expect(ssh("master-1", "ls /etc/kubernetes /var/lib/etcd 2>&1 || true")).toMatch(/No such file/);

    const v = validateClusterDefinition(labClusterDefinition(lab, "boot-legacy", "v1.5.3").definition);
    if (!v.ok) throw new Error(JSON.stringify(v.errors));
    ({ id: legacy } = await createCluster({ definition: v.definition, secrets: { "lab-admin": { privateKey: readFileSync(lab.adminKeyPath, "utf8") } } }));
    const runId = await planRun({ clusterId: legacy, body: { type: "bootstrap", acceptWarnings: true }, by: "test" });
    await startRun({ runId });
    const running = executeRun(runId, { workerId: "test" });
    await until("the control plane wait", async () => (await getDb().step.findFirst({ where: { runId, phase: "control-plane", status: "waiting" } })) ?? undefined, 5 * 60_000);
    const second = await planRun({ clusterId: legacy, body: { type: "check" } });
    await expect(startRun({ runId: second })).rejects.toMatchObject({ status: 409 });
    await requestCancel({ runId });
    expect(await running).toBe("cancelled");
    expect(ssh("master-1", "cat /var/lib/bootdeck/run.lock 2>/dev/null || echo unlocked").trim()).toBe("unlocked");
    expect((await getDb().step.findFirstOrThrow({ where: { runId, phase: "control-plane" } })).status).toBe("cancelled");

    await retryRun({ runId });
    expect(await outcome(runId, await executeRun(runId, { workerId: "test" }))).toBe("succeeded");
    const events = await listRunEvents({ runId, limit: 100_000 });
    expect(events.filter((e) => e.type === "step.finished" && e.data.key === "verify/cluster").at(-1)?.data.summary).toMatch(/^6 nodes Ready/);
    // The 1.5 profile's kubelet is the hyperkube binary: installed executable, and the one the mirror serves for v1.5.3.
    expect(ssh("worker-1", "test -x /usr/bin/hyperkube && echo executable").trim()).toBe("executable");
    expect(ssh("worker-1", "head -n 3 /usr/bin/hyperkube")).toMatch(/^BOOTDECK_LAB_K8S_VERSION=v1\.5\.3$/m);
    // No checksum is pinned in the lab's definition: the one the mirror publishes is what was checked.
    const published = execFileSync("curl", ["-sf", `${lab.mirrorUrl}/dl.k8s.io/release/v1.5.3/bin/linux/amd64/hyperkube.sha256`], { encoding: "utf8" }).trim();
    expect(ssh("worker-1", "sha256sum /usr/bin/hyperkube").split(" ")[0]).toBe(published);
  }, 12 * 60_000);

  it("joins reset workers to the running cluster; one cut off mid-join fails fast with a clear error while the other joins", async () => {
    const reset = await planRun({ clusterId: legacy, body: { type: "reset", hosts: ["worker-2", "worker-3"], confirm: true } });
    await startRun({ runId: reset });
    expect(await outcome(reset, await executeRun(reset, { workerId: "test" }))).toBe("succeeded");
    const resetSteps = await getDb().step.findMany({ where: { runId: reset } });
    const summaries = (await listRunEvents({ runId: reset })).filter((e) => e.type === "step.finished").map((e) => String(e.data.summary));
    expect(resetSteps.every((s) => s.status === "done")).toBe(true);
    expect(summaries.every((m) => m.includes("Node object deleted"))).toBe(true);

    const join = await planRun({ clusterId: legacy, body: { type: "join", hosts: ["worker-2", "worker-3"], acceptWarnings: true }, by: "test" });
    await startRun({ runId: join });
    const running = executeRun(join, { workerId: "test" });
    // Cut while its kubelet is being installed and started: the join of that host is under way.
    await until("worker-3's kubelet step running", async () => ((await getDb().step.findFirst({ where: { runId: join, key: "kubelet/worker-3", status: "running" } })) ? true : undefined), 5 * 60_000);
    labCut(LAB, "worker-3");
    const cutAt = Date.now();
    try {
      expect(await running).toBe("failed");
    } finally {
      labHeal(LAB, "worker-3");
    }
    const steps = await getDb().step.findMany({ where: { runId: join } });
    const failedStep = steps.find((s) => s.status === "failed")!;
    expect(failedStep.key).toBe("kubelet/worker-3");
    expect(failedStep.error).toMatch(/worker-3/);
    expect(failedStep.error).toMatch(/unreachable|lost|closed|timed out|timeout/i);
    expect(failedStep.hint).toBeTruthy();
    expect(steps.find((s) => s.key === "join/worker-3")?.status).toBe("skipped");
    expect(Date.now() - cutAt).toBeLessThan(120_000); // the connection's keep-alive notices, not the 3-minute step deadline
    expect(steps.find((s) => s.key === "join/worker-2")?.status).toBe("done");
    const run = await getDb().run.findUniqueOrThrow({ where: { id: join } });
    expect(JSON.parse(run.summary!).message).toBe("failed on 1 of 2 hosts: worker-3");
  }, 10 * 60_000);
});
