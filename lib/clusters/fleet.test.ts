import { afterAll, beforeAll, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { renderAndSaveAssetSet } from "../assets/store";
import { exampleDefinition } from "../cluster/example";
import { getDb } from "../db/client";
import { createRun } from "../engine/runs";
import { listFleet, recordNodesSeen } from "./fleet";
import { createCluster } from "./repository";
import { testKeyPair } from "../../test/ssh-key";

let db: TempDb;
beforeAll(async () => {
  db = await createTempDb();
});
afterAll(async () => db?.cleanup());

test("each cluster's health: nodes as last seen, the latest run, the earliest certificate expiry of the latest set", async () => {
  const key = testKeyPair().private;
  const a = (await createCluster({ definition: exampleDefinition({ name: "alpha", hosts: 4 }), secrets: { "admin-key": { privateKey: key } } })).id;
  const b = (await createCluster({ definition: exampleDefinition({ name: "beta", hosts: 3 }), secrets: { "admin-key": { privateKey: key } } })).id;
  const older = await createRun({ clusterId: a, type: "check", plan: { runType: "check", phases: [] } });
  await getDb().run.update({ where: { id: older }, data: { status: "succeeded", createdAt: new Date(Date.now() - 60_000) } });
  const latest = await createRun({ clusterId: a, type: "bootstrap", plan: { runType: "bootstrap", phases: [] } });
  await getDb().run.update({ where: { id: latest }, data: { status: "needs-decision", finishedAt: new Date(), summary: JSON.stringify({ message: "needs a decision: …" }) } });
  await renderAndSaveAssetSet({ clusterId: a, options: { keyType: "ecdsa", leafValidityDays: 400 } });
  await renderAndSaveAssetSet({ clusterId: a, options: { keyType: "ecdsa", leafValidityDays: 20 } });
  const updatedBefore = (await getDb().cluster.findUniqueOrThrow({ where: { id: a } })).updatedAt;
  await recordNodesSeen({ clusterId: a, ready: 3, total: 4 });

  const [alpha, beta] = await listFleet();
  expect(alpha).toMatchObject({ name: "alpha", masters: 3, workers: 1, nodes: { ready: 3, total: 4 }, lastRun: { id: latest, type: "bootstrap", status: "needs-decision", outcome: "needs a decision: …" } });
  // The latest set's earliest expiry: 20-day leaves, not the earlier set's 400.
  const days = (Date.parse(alpha!.certificates!.notAfter) - Date.now()) / 86_400_000;
  expect(alpha!.certificates!.assetSetVersion).toBe(2);
  expect(days).toBeGreaterThan(19);
  expect(days).toBeLessThan(21);
  expect(beta).toMatchObject({ name: "beta", nodes: null, lastRun: null, certificates: null, busy: false });
  // What the live view saw is not a change to the cluster's definition.
  expect((await getDb().cluster.findUniqueOrThrow({ where: { id: a } })).updatedAt).toEqual(updatedBefore);
});

test("a set saved before its expiry was recorded gets it on the first read", async () => {
  const key = testKeyPair().private;
  const c = (await createCluster({ definition: exampleDefinition({ name: "gamma", hosts: 3 }), secrets: { "admin-key": { privateKey: key } } })).id;
  const set = await renderAndSaveAssetSet({ clusterId: c, options: { keyType: "ecdsa" } });
  await getDb().assetSet.update({ where: { id: set.id }, data: { notAfter: null } });
  const gamma = (await listFleet()).find((r) => r.name === "gamma");
  expect(gamma?.certificates?.notAfter).toBeTruthy();
  expect((await getDb().assetSet.findUniqueOrThrow({ where: { id: set.id } })).notAfter).not.toBeNull();
});
