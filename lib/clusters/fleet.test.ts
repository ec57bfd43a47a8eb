import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { renderAndSaveAssetSet } from "./render-assets";
import { exampleDefinition } from "../cluster/example";
import { getDb } from "../db/client";
import { createRun } from "../engine/runs";
import { listFleet, recordNodesSeen } from "./fleet";
import { createCluster } from "./repository";
import { testKeyPair } from "../../test/ssh-key";
import { newId } from "../ids";

let db: TempDb;
beforeAll(async () => {
  db = await createTempDb();
});
afterAll(async () => db?.cleanup());

test("each cluster's health: nodes as last seen, the latest run, the earliest certificate expiry of the latest set", async () => {
  const key = testKeyPair().private;
  const a = (await createCluster({ definition: exampleDefinition({ name: "alpha", hosts: 4 }), secrets: { "admin-key": { privateKey: key } } })).id;
  await createCluster({ definition: exampleDefinition({ name: "beta", hosts: 3 }), secrets: { "admin-key": { privateKey: key } } }); // a second cluster, never run
  const bootstrapped = await createRun({ clusterId: a, type: "bootstrap", plan: { runType: "bootstrap", phases: [] } });
  await getDb().run.update({ where: { id: bootstrapped }, data: { status: "succeeded", createdAt: new Date(Date.now() - 120_000) } });
  const older = await createRun({ clusterId: a, type: "check", plan: { runType: "check", phases: [] } });
  await getDb().run.update({ where: { id: older }, data: { status: "succeeded", createdAt: new Date(Date.now() - 60_000) } });
  const latest = await createRun({ clusterId: a, type: "bootstrap", plan: { runType: "bootstrap", phases: [] } });
  await getDb().run.update({ where: { id: latest }, data: { status: "needs-decision", finishedAt: new Date(), summary: JSON.stringify({ message: "needs a decision: …" }) } });
  await renderAndSaveAssetSet({ clusterId: a, options: { leafValidityDays: 400 } });
  await renderAndSaveAssetSet({ clusterId: a, options: { leafValidityDays: 20 } });
  const updatedBefore = (await getDb().cluster.findUniqueOrThrow({ where: { id: a } })).updatedAt;
  await recordNodesSeen({ clusterId: a, ready: 3, total: 4 });

  const [alpha, beta] = await listFleet();
  expect(alpha).toMatchObject({ name: "alpha", deployed: true, masters: 3, workers: 1, nodes: { ready: 3, total: 4 }, lastRun: { id: latest, type: "bootstrap", status: "needs-decision", outcome: "needs a decision: …" } });
  // The latest set's earliest expiry: 20-day leaves, not the earlier set's 400.
  const days = (Date.parse(alpha!.certificates!.notAfter) - Date.now()) / 86_400_000;
  expect(alpha!.certificates!.assetSetVersion).toBe(2);
  expect(days).toBeGreaterThan(19);
  expect(days).toBeLessThan(21);
  expect(beta).toMatchObject({ name: "beta", deployed: false, nodes: null, lastRun: null, certificates: null, busy: false });
  // What the live view saw is not a change to the cluster's definition.
  expect((await getDb().cluster.findUniqueOrThrow({ where: { id: a } })).updatedAt).toEqual(updatedBefore);
});

test("a cluster only planned and checked has no certificates on any host: none expire", async () => {
  const key = testKeyPair().private;
  const c = (await createCluster({ definition: exampleDefinition({ name: "only-planned", hosts: 3 }), secrets: { "admin-key": { privateKey: key } } })).id;
  await renderAndSaveAssetSet({ clusterId: c, options: {} });
  const check = await createRun({ clusterId: c, type: "check", plan: { runType: "check", phases: [] } });
  await getDb().run.update({ where: { id: check }, data: { status: "succeeded" } });
  await createRun({ clusterId: c, type: "bootstrap", plan: { runType: "bootstrap", phases: [] } });
  expect((await listFleet()).find((r) => r.name === "only-planned")).toMatchObject({ deployed: false, certificates: null });
});

test("a set saved before its expiry was recorded gets it on the first read", async () => {
  const key = testKeyPair().private;
  const c = (await createCluster({ definition: exampleDefinition({ name: "gamma", hosts: 3 }), secrets: { "admin-key": { privateKey: key } } })).id;
  const run = await createRun({ clusterId: c, type: "bootstrap", plan: { runType: "bootstrap", phases: [] } });
  await getDb().run.update({ where: { id: run }, data: { status: "succeeded" } });
  const set = await renderAndSaveAssetSet({ clusterId: c, options: {} });
  await getDb().assetSet.update({ where: { id: set.id }, data: { notAfter: null } });
  const gamma = (await listFleet()).find((r) => r.name === "gamma");
  expect(gamma?.certificates?.notAfter).toBeTruthy();
  expect((await getDb().assetSet.findUniqueOrThrow({ where: { id: set.id } })).notAfter).not.toBeNull();
});

/** A stored backup row as a backup run leaves it (the file itself is not read by the list). */
async function backupAt(clusterId: string, createdAt: Date): Promise<void> {
  const id = newId("bk");
  await getDb().backup.create({
    data: { id, clusterId, trigger: "schedule", member: "master-1", file: `backups/${clusterId}/${id}.snapshot`, keyCipher: "k", nonce: "n", tag: "t", sha256: "0".repeat(64), size: 1, storedSize: 1, revision: "1", totalKeys: 1, etcdVersion: "3.6.0", createdAt },
  });
}

test("each cluster's newest etcd backup and the interval of its schedule when on, in one grouped query for every cluster", async () => {
  const key = testKeyPair().private;
  const make = async (name: string) => (await createCluster({ definition: exampleDefinition({ name, hosts: 3 }), secrets: { "admin-key": { privateKey: key } } })).id;
  const [delta, epsilon, zeta] = [await make("delta"), await make("epsilon"), await make("zeta")];
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
  await backupAt(delta, hoursAgo(30));
  await backupAt(delta, hoursAgo(3));
  await backupAt(delta, hoursAgo(50));
  await backupAt(epsilon, hoursAgo(1));
  await getDb().backupPolicy.create({ data: { clusterId: delta, enabled: true, intervalMinutes: 120 } });
  await getDb().backupPolicy.create({ data: { clusterId: zeta, enabled: false, intervalMinutes: 60 } });

  const db = getDb();
  const grouped = vi.spyOn(db.backup, "groupBy");
  const perCluster = [vi.spyOn(db.backup, "findFirst"), vi.spyOn(db.backup, "findMany"), vi.spyOn(db.backupPolicy, "findUnique")];
  const rows = new Map((await listFleet()).map((r) => [r.name, r]));
  expect(grouped).toHaveBeenCalledTimes(1);
  for (const spy of perCluster) expect(spy).not.toHaveBeenCalled();
  vi.restoreAllMocks();

  expect(Date.parse(rows.get("delta")!.backup.lastAt!)).toBeCloseTo(hoursAgo(3).getTime(), -4);
  expect(rows.get("delta")!.backup.intervalMinutes).toBe(120);
  expect(rows.get("epsilon")!.backup).toMatchObject({ intervalMinutes: null });
  expect(rows.get("epsilon")!.backup.lastAt).not.toBeNull();
  // Never backed up, its schedule off: "never", and no schedule to answer to.
  expect(rows.get("zeta")!.backup).toEqual({ lastAt: null, intervalMinutes: null });
});
