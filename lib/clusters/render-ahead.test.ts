import { createHash } from "node:crypto";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "./repository";
import { getDb } from "../db/client";
import { createRun } from "../engine/runs";
import { awaitRunningRender, ensureAssetSet, runningRenderJob } from "./render-jobs";
import { getRunFile } from "../assets/store";
import { renderAndSaveAssetSet } from "./render-assets";
import { testKeyPair } from "../../test/ssh-key";

let db: TempDb;
beforeAll(async () => {
  db = await createTempDb();
});
afterAll(async () => db?.cleanup());

const key = () => testKeyPair().private;

test("render ahead: a cluster without assets gets one render in the background, asked again it is the same one, then it is ready", async () => {
  const { id } = await createCluster({ definition: exampleDefinition({ name: "ahead", hosts: 3 }), secrets: { "admin-key": { privateKey: key() } } });
  const first = await ensureAssetSet({ clusterId: id });
  expect(first).toMatchObject({ ready: false, started: true });
  const again = await ensureAssetSet({ clusterId: id });
  expect(again).toMatchObject({ ready: false, started: false, job: { id: first.ready ? "" : first.job.id } });
  await awaitRunningRender(id);
  expect(runningRenderJob(id)).toBeUndefined();
  expect(await ensureAssetSet({ clusterId: id })).toEqual({ ready: true });
  expect(await getDb().assetSet.count({ where: { clusterId: id } })).toBe(1);
});

test("a planned file's content by its checksum; a secret stays hidden; an unknown checksum is not found", async () => {
  const { id: clusterId } = await createCluster({ definition: exampleDefinition({ name: "files", hosts: 3 }), secrets: { "admin-key": { privateKey: key() } } });
  const set = await renderAndSaveAssetSet({ clusterId, options: {} });
  const runId = await createRun({ clusterId, type: "bootstrap", plan: { runType: "bootstrap", phases: [] }, assetSetId: set.id });
  const sha = async (path: string) => (await getDb().asset.findFirstOrThrow({ where: { assetSetId: set.id, path } })).sha256;
  const ca = await getRunFile({ runId, sha256: await sha("tls/ca.crt") });
  expect(ca).toMatchObject({ path: "tls/ca.crt", sensitive: false });
  expect(createHash("sha256").update(ca.content!).digest("hex")).toBe(ca.sha256);
  expect(await getRunFile({ runId, sha256: await sha("tls/ca.key") })).toMatchObject({ path: "tls/ca.key", sensitive: true, content: null });
  await expect(getRunFile({ runId, sha256: "0".repeat(64) })).rejects.toThrow(/not found/);
});
