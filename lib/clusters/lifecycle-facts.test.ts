// Which hosts are in the cluster now, and where the cluster stands, from the runs stored for it.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { testKeyPair } from "../../test/ssh-key";
import { exampleDefinition } from "../cluster/example";
import { getDb } from "../db/client";
import { newId } from "../ids";
import { getHostView } from "./hosts";
import { clusterMembers, lifecycleOf } from "./lifecycle-facts";
import { createCluster } from "./repository";

let db: TempDb;
beforeAll(async () => {
  db = await createTempDb();
});
afterAll(async () => db?.cleanup());

/** A finished run with a done step per host in `phase`, finished at `at` (seconds). */
async function ran(clusterId: string, type: string, status: string, phase: string, hosts: string[], at: number): Promise<void> {
  const runId = newId("run");
  const finishedAt = new Date(1_800_000_000_000 + at * 1000);
  await getDb().run.create({ data: { id: runId, clusterId, type, status, plan: "{}", definition: "{}", finishedAt } });
  const ids = await getDb().host.findMany({ where: { clusterId, name: { in: hosts } }, select: { id: true, name: true } });
  let ordinal = 0;
  for (const h of ids) await getDb().step.create({ data: { id: newId("step"), runId, hostId: h.id, phase, key: `${phase}/${h.name}`, ordinal: ordinal++, title: phase, status: "done", finishedAt } });
}

it("a host is in the cluster once a bootstrap or join started its kubelet, and out again after a reset", async () => {
  const { id } = await createCluster({ definition: exampleDefinition({ name: "members", hosts: 4 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } });
  expect(await clusterMembers(id)).toEqual([]);
  expect((await lifecycleOf(id)).state).toBe("not-bootstrapped");
  await ran(id, "check", "succeeded", "facts", ["master-1", "master-2", "master-3", "worker-1"], 1);
  expect(await clusterMembers(id)).toEqual([]);
  await ran(id, "bootstrap", "succeeded", "kubelet", ["master-1", "master-2", "master-3"], 2);
  await ran(id, "reset", "succeeded", "reset", ["master-3"], 3);
  await ran(id, "join", "succeeded", "kubelet", ["worker-1"], 4);
  // An upgrade restarts kubelets too: it puts no host in the cluster.
  await ran(id, "upgrade", "succeeded", "kubelet", ["master-3"], 5);
  expect((await clusterMembers(id)).sort()).toEqual(["master-1", "master-2", "worker-1"]);
  expect(await lifecycleOf(id)).toMatchObject({ state: "healthy", activeRun: null });
  // The host's own page says the same (it offers no Join for a member).
  expect((await getHostView({ clusterId: id, host: "worker-1" })).member).toBe(true);
  expect((await getHostView({ clusterId: id, host: "master-3" })).member).toBe(false);
});
