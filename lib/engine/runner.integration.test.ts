// The engine against real lab hosts (sshd in network namespaces), with a real SQLite file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { labClusterDefinition, labClusterSecrets } from "../../lab/cluster-yaml";
import { labReboot, labRekey } from "../../lab/lab";
import { labState } from "../../test/lab-hosts";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { listRunEvents } from "./events";
import { probeHostKey, repinHostKey } from "./host-keys";
import { buildCheckPlan } from "./plans";
import { createRun, startRun } from "./runs";
import { executeRun } from "./runner";
import { validateClusterDefinition, type ClusterDefinition } from "../cluster/definition";

let db: TempDb;
let clusterId: string;
let definition: ClusterDefinition;

beforeAll(async () => {
  db = await createTempDb();
  const state = labState();
  const { definition: input } = labClusterDefinition(state, "engine-check");
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  definition = v.definition;
  ({ id: clusterId } = await createCluster({ definition, secrets: labClusterSecrets(state) }));
});
afterAll(() => db.cleanup());

async function checkRun(): Promise<string> {
  const runId = await createRun({ clusterId, type: "check", plan: buildCheckPlan(definition) });
  await startRun({ runId });
  return runId;
}

describe("a check run on lab hosts", () => {
  it("pins every host key, stores facts and passes preflight, with a gap-free event log", async () => {
    const runId = await checkRun();
    expect(await executeRun(runId, { workerId: "w1" })).toBe("succeeded");
    const hosts = await getDb().host.findMany({ where: { clusterId }, orderBy: { position: "asc" } });
    const state = labState();
    expect(hosts.map((h) => h.hostKeyFingerprint)).toEqual(hosts.map((h) => state.hosts.find((s) => s.name === h.name)?.hostKeyFingerprint));
    expect(hosts.every((h) => JSON.parse(h.facts ?? "{}").hostname === h.name)).toBe(true);
    const events = await listRunEvents({ runId });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === "host.key-pinned")).toHaveLength(hosts.length);
    expect(events.at(-1)).toMatchObject({ type: "run.finished", data: { status: "succeeded" } });
    const cluster = await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId } });
    expect(cluster.activeRunId).toBeNull();
    const uses = await getDb().auditEvent.findMany({ where: { action: "secret.use" } });
    expect(uses.map((u) => JSON.parse(u.details))).toEqual([{ credential: "lab-admin", clusterId, runId, purpose: "ssh" }]);
  });

  it("refuses a second run on the cluster while one runs", async () => {
    const first = await checkRun();
    const second = await createRun({ clusterId, type: "check", plan: buildCheckPlan(definition) });
    await expect(startRun({ runId: second })).rejects.toMatchObject({ status: 409 });
    expect(await executeRun(first, { workerId: "w1" })).toBe("succeeded");
    await startRun({ runId: second });
    expect(await executeRun(second, { workerId: "w1" })).toBe("succeeded");
  });

  it("resumes a run whose worker died mid-step, repeating only the step in flight", async () => {
    const runId = await checkRun();
    // A worker took the run, finished host 1's facts, was in the middle of host 2's, and died.
    const steps = await getDb().step.findMany({ where: { runId }, orderBy: { ordinal: "asc" } });
    await getDb().run.update({ where: { id: runId }, data: { workerId: "dead", heartbeatAt: new Date(Date.now() - 60_000) } });
    await getDb().step.update({ where: { id: steps[0]!.id }, data: { status: "done", attempts: 1 } });
    await getDb().step.update({ where: { id: steps[1]!.id }, data: { status: "running", attempts: 1 } });
    expect(await executeRun(runId, { workerId: "w2", staleMs: 30_000 })).toBe("succeeded");
    const after = await getDb().step.findMany({ where: { runId }, orderBy: { ordinal: "asc" } });
    expect(after[0]).toMatchObject({ status: "done", attempts: 1 });
    expect(after[1]).toMatchObject({ status: "done", attempts: 2 });
    expect(after.slice(2).every((s) => s.status === "done" && s.attempts === 1)).toBe(true);
  });

  it("does not let a second worker take a run whose lease is fresh", async () => {
    const runId = await checkRun();
    await getDb().run.update({ where: { id: runId }, data: { workerId: "alive", heartbeatAt: new Date() } });
    expect(await executeRun(runId, { workerId: "w3", staleMs: 30_000 })).toBe("not-claimed");
    expect(await executeRun(runId, { workerId: "alive" })).toBe("succeeded");
  });

  it("refuses a host whose key changed, finishes the others, and says failed on 1 of N hosts", async () => {
    const state = labState();
    const victim = state.hosts[state.hosts.length - 1]!;
    const oldKey = (await getDb().host.findFirstOrThrow({ where: { clusterId, name: victim.name } })).hostKeyFingerprint;
    const newKey = await labRekey(state.name, victim.name);
    try {
      const runId = await checkRun();
      expect(await executeRun(runId, { workerId: "w1" })).toBe("failed");
      const steps = await getDb().step.findMany({ where: { runId }, include: { host: true } });
      const facts = steps.find((s) => s.key === `facts/${victim.name}`)!;
      expect(facts.status).toBe("failed");
      expect(facts.error).toMatch(/host key/i);
      expect(facts.hint).toMatch(/re-pin/);
      expect(steps.find((s) => s.key === `preflight/${victim.name}`)?.status).toBe("skipped");
      expect(steps.filter((s) => s.host && s.host.name !== victim.name).every((s) => s.status === "done")).toBe(true);
      const run = await getDb().run.findUniqueOrThrow({ where: { id: runId } });
      expect(JSON.parse(run.summary!).message).toBe(`failed on 1 of ${state.hosts.length} hosts: ${victim.name}`);

      // The way forward: a probe shows both keys; confirming the old one again is refused; the CLI re-pins the new one.
      expect(await probeHostKey({ clusterId, host: victim.name })).toMatchObject({ pinned: oldKey, offered: newKey, matches: false });
      await expect(repinHostKey({ clusterId, host: victim.name, fingerprint: oldKey!, previous: oldKey, by: "test" })).rejects.toMatchObject({ status: 409 });
      const out = execFileSync(path.resolve(__dirname, "../../bin/bootdeck"), ["host", "repin", "engine-check", victim.name, "--yes"], { env: process.env, encoding: "utf8" });
      expect(out).toContain(`pinned:  ${oldKey}`);
      expect(out).toContain(`offered: ${newKey}`);
      expect(out).toContain(`pinned ${newKey} for ${victim.name}`);
      const row = await getDb().host.findFirstOrThrow({ where: { clusterId, name: victim.name } });
      expect(row).toMatchObject({ hostKeyFingerprint: newKey, hostKeyConfirmedBy: expect.stringMatching(/^cli:/) });
      const audit = await getDb().auditEvent.findFirstOrThrow({ where: { action: "host.repin" } });
      expect(JSON.parse(audit.details)).toMatchObject({ via: "cli", host: victim.name, previous: oldKey, pinned: newKey });
      expect(await executeRun(await checkRun(), { workerId: "w1" })).toBe("succeeded");
    } finally {
      // Later suites read the new key from the lab's state; nothing to restore.
    }
  });
});

describe("preflight on a host whose init is not systemd", () => {
  it("refuses the systemd cgroup driver there, saying what to set instead", async () => {
    const state = labState();
    await labReboot(state.name, ["host-4"], () => undefined, { withoutSystemd: true });
    try {
      expect(execFileSync("ssh", ["-i", state.adminKeyPath, "-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "LogLevel=error", `root@${state.hosts[3]!.address}`, "cat /proc/1/comm"], { encoding: "utf8" }).trim()).not.toBe("systemd");
      const runId = await checkRun();
      expect(await executeRun(runId, { workerId: "w-init" })).toBe("failed");
      const step = await getDb().step.findFirstOrThrow({ where: { runId, key: "preflight/host-4" } });
      expect(step.status).toBe("failed");
      expect(step.error).toMatch(/cgroupDriver systemd, but this host.s init is .*, not systemd/);
      expect(step.hint).toContain("cgroupDriver: cgroupfs");
      // The hosts whose init is systemd pass the same check.
      const others = await getDb().step.findMany({ where: { runId, key: { in: ["preflight/host-1", "preflight/host-2", "preflight/host-3"] } } });
      expect(others.map((o) => o.status)).toEqual(["done", "done", "done"]);
    } finally {
      await labReboot(state.name, ["host-4"], () => undefined);
    }
  }, 5 * 60_000);
});
