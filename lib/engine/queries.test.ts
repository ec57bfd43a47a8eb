import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { appendRunEvent } from "./events";
import type { RunPlan } from "./plan";
import { getRunView, listClusterRuns } from "./queries";
import { createRun } from "./runs";
import { testKeyPair } from "../../test/ssh-key";

let db: TempDb;
let clusterId: string;

const plan: RunPlan = {
  runType: "bootstrap",
  phases: [
    {
      id: "control-plane",
      title: "Control plane",
      steps: ["master-1", "worker-1"].map((host) => ({
        key: `control-plane/${host}/wait`,
        phase: "control-plane",
        action: "wait",
        title: "Wait for the API server",
        host,
        files: [],
        commands: [],
        dependsOn: [],
        timeoutMs: 300_000,
      })),
    },
  ],
};

beforeAll(async () => {
  db = await createTempDb();
  const key = testKeyPair();
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "views", hosts: 4 }), secrets: { "admin-key": { privateKey: key.private } } })).id;
});
afterAll(async () => db?.cleanup());

describe("getRunView", () => {
  test("lists the cluster's hosts in definition order with role and address", async () => {
    const view = await getRunView({ id: await createRun({ clusterId, type: "bootstrap", plan }) });
    expect(view.hosts).toEqual([
      { name: "master-1", role: "master", address: "192.0.2.11", facts: null, findings: null },
      { name: "master-2", role: "master", address: "192.0.2.12", facts: null, findings: null },
      { name: "master-3", role: "master", address: "192.0.2.13", facts: null, findings: null },
      { name: "worker-1", role: "worker", address: "192.0.2.14", facts: null, findings: null },
    ]);
    expect(view.steps.map((s) => s.waiting)).toEqual([null, null]);
  });

  test("a step still waiting keeps its latest wait; a step whose wait is over and an earlier attempt's wait do not", async () => {
    const runId = await createRun({ clusterId, type: "bootstrap", plan });
    const steps = await getDb().step.findMany({ where: { runId }, orderBy: { ordinal: "asc" } });
    const [master, worker] = steps;
    const started = new Date(Date.now() - 60_000);
    // master-1: waited before (an earlier attempt), started again, now waits for the API server.
    await appendRunEvent({ runId, type: "step.waiting", stepId: master!.id, data: { key: master!.key, what: "old wait", host: "master-1", since: "x", deadline: "y" } });
    await getDb().runEvent.updateMany({ where: { runId }, data: { createdAt: new Date(Date.now() - 120_000) } });
    await getDb().step.update({ where: { id: master!.id }, data: { status: "waiting", startedAt: started } });
    const wait = { what: "kube-apiserver", host: "master-1", since: new Date().toISOString(), deadline: new Date(Date.now() + 300_000).toISOString() };
    await appendRunEvent({ runId, type: "step.waiting", stepId: master!.id, data: { key: master!.key, ...wait } });
    // worker-1: waited, and the wait is over (the runner puts the step back to running).
    await getDb().step.update({ where: { id: worker!.id }, data: { status: "waiting", startedAt: started } });
    await appendRunEvent({ runId, type: "step.waiting", stepId: worker!.id, data: { key: worker!.key, ...wait, host: "worker-1" } });
    await getDb().step.update({ where: { id: worker!.id }, data: { status: "running" } });

    const view = await getRunView({ id: runId });
    expect(view.steps.map((s) => [s.key, s.waiting])).toEqual([
      [master!.key, wait],
      [worker!.key, null],
    ]);
    // A long wait says again what it is still waiting on: the page reloaded then shows that too.
    await appendRunEvent({ runId, type: "step.waiting", stepId: master!.id, data: { key: master!.key, ...wait, why: "not yet Running and Ready: kube-apiserver (seen: kube-system/kube-apiserver-x on master-2 Pending 0/1)" } });
    expect((await getRunView({ id: runId })).steps[0]!.waiting).toEqual({ ...wait, why: "not yet Running and Ready: kube-apiserver (seen: kube-system/kube-apiserver-x on master-2 Pending 0/1)" });
  });
});

describe("listClusterRuns", () => {
  test("gives each run its duration and outcome once finished, null before", async () => {
    const finished = await createRun({ clusterId, type: "check", plan: { runType: "check", phases: [] } });
    const startedAt = new Date("2026-11-30T12:00:00Z");
    await getDb().run.update({
      where: { id: finished },
      data: { status: "failed", startedAt, finishedAt: new Date(startedAt.getTime() + 83_500), summary: JSON.stringify({ message: "failed on 1 of 4 hosts" }) },
    });
    const rows = await listClusterRuns({ clusterId });
    const row = rows.find((r) => r.id === finished);
    expect(row).toMatchObject({ type: "check", status: "failed", durationMs: 83_500, outcome: "failed on 1 of 4 hosts" });
    expect(rows.filter((r) => r.status === "planned").map((r) => [r.durationMs, r.outcome])).toEqual([
      [null, null],
      [null, null],
    ]);
  });

  test("gives each host the findings of this run's latest preflight result", async () => {
    const runId = await createRun({ clusterId, type: "check", plan: { runType: "check", phases: [{ id: "preflight", title: "Preflight", steps: [{ key: "preflight/worker-1", phase: "preflight", action: "preflight", title: "Preflight on worker-1", host: "worker-1", files: [], commands: [], dependsOn: [], timeoutMs: 1000 }] }] } });
    const step = await getDb().step.findFirstOrThrow({ where: { runId } });
    const swap = { check: "swap", severity: "error", message: "swap is on (2048 MiB)", hint: "swapoff -a" };
    await appendRunEvent({ runId, type: "step.failed", stepId: step.id, data: { key: step.key, error: "x", findings: [swap] } });
    await appendRunEvent({ runId, type: "step.finished", stepId: step.id, data: { key: step.key, findings: [{ ...swap, severity: "ok", message: "swap is off" }] } });
    const view = await getRunView({ id: runId });
    expect(view.hosts.find((h) => h.name === "worker-1")?.findings).toEqual([{ check: "swap", severity: "ok", message: "swap is off", hint: "swapoff -a" }]);
    expect(view.hosts.find((h) => h.name === "master-1")?.findings).toBeNull();
  });
});
