// A cluster's bucket against a real S3 server (SeaweedFS): a backup's copy is the sealed file as stored
// and reveals nothing (no snapshot byte, no SSH key, no CA key in any object); retention applies there;
// a second dashboard (another database, another master key) given only the bucket and the backup key
// lists the snapshots, takes the cluster over (definition, credentials, host-key pins, assets) and
// gets the plain snapshot back from the bucket, checked.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startS3Server, type S3TestServer } from "../../lab/s3-server";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { testKeyPair } from "../../test/ssh-key";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { newId } from "../ids";
import { assetContent } from "../assets/store";
import { decryptSecret, encryptSecret, secretContexts } from "../secrets/cipher";
import { backupKeyText, clusterBackupKey, parseBackupKey } from "./backup-key";
import { copyBackupToBucket, fetchAndOpenBackup, importClusterFromBucket, listRemoteSnapshots } from "./remote";
import { getObjectBuffer, listObjects, type S3Target } from "./s3";
import { openSealedWriter } from "./sealed-file";
import { backupRelPath, dataPath, getBackupOrThrow, listBackups, recordBackup, setBackupPolicy } from "./store";
import { setTarget, testStoredTarget } from "./target";

let server: S3TestServer;
let db: TempDb | undefined;
let clusterId: string;
let target: S3Target;
const sshKey = testKeyPair().private;
const marker = "etcd-secret-marker-do-not-leak";
const caKey = `-----BEGIN PRIVATE KEY-----\nCA-KEY-${randomBytes(16).toString("hex")}\n-----END PRIVATE KEY-----\n`;

beforeAll(async () => {
  server = await startS3Server();
  await server.createBucket("bootdeck-dr");
  db = await createTempDb();
  ({ id: clusterId } = await createCluster({ definition: exampleDefinition({ name: "far-away", hosts: 4 }), secrets: { "admin-key": { privateKey: sshKey } } }));
  await getDb().host.updateMany({ where: { clusterId, name: "master-1" }, data: { hostKeyFingerprint: "SHA256:pinned-master-1" } });
  const setId = newId("as");
  const caKeyId = newId("ast");
  await getDb().assetSet.create({ data: { id: setId, clusterId, version: 3, options: JSON.stringify({ keyType: "rsa" }) } });
  await getDb().asset.createMany({
    data: [
      { id: newId("ast"), assetSetId: setId, path: "tls/ca.crt", content: "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n", sha256: "a".repeat(64), size: 10, sensitive: false },
      { id: caKeyId, assetSetId: setId, path: "tls/ca.key", content: encryptSecret(caKey, secretContexts.asset(caKeyId)), sha256: "b".repeat(64), size: caKey.length, sensitive: true },
    ],
  });
  target = { endpoint: server.endpoint, region: "us-east-1", bucket: "bootdeck-dr", prefix: "site-a/", forcePathStyle: true, ...server.admin };
}, 30 * 60_000);

afterAll(async () => {
  await db?.cleanup();
  await server?.stop();
});

async function storeBackup(createdAt: Date, content: Buffer): Promise<string> {
  const id = newId("bk");
  const w = openSealedWriter(dataPath(backupRelPath(clusterId, id)), id);
  w.stream.write(content);
  const sealed = await w.finish();
  await recordBackup({ id, clusterId, runId: null, trigger: "schedule", sealed, facts: { member: "master-1", revision: "4242", totalKeys: 7, etcdVersion: "3.6.8" } });
  await getDb().backup.update({ where: { id }, data: { createdAt } });
  return id;
}

const plain = Buffer.concat([Buffer.from(marker), randomBytes(9 * 1024 * 1024 + 17), Buffer.from(marker)]);
let newest: string;
let keyText: string;

describe("a backup's copy in the bucket", () => {
  it("is tested, then written as the sealed file, the sealed export and the manifest, and shows where it is", async () => {
    await setTarget({ clusterId, body: { ...target, secretAccessKey: target.secretAccessKey }, by: "test" });
    expect(await testStoredTarget(clusterId)).toMatchObject({ ok: true });
    newest = await storeBackup(new Date(), plain);
    const progress: string[] = [];
    const r = await copyBackupToBucket({ backupId: newest, progress: (m) => progress.push(m) });
    expect(r.verifiedBy).toBe("etag");
    expect(progress.some((m) => /uploading to s3:\/\/bootdeck-dr\/site-a\/.*: 100%/.test(m))).toBe(true);
    const keys = (await listObjects(target, `site-a/${clusterId}/`)).map((o) => o.key);
    expect(keys).toHaveLength(3);
    expect(keys.map((k) => k.replace(/^.*-bk_[A-Za-z0-9_-]{16}/, ""))).toEqual([".cluster.json", ".manifest.json", ".snapshot"]);
    const row = await getBackupOrThrow({ clusterId, backupId: newest });
    const snapshotKey = keys.find((k) => k.endsWith(".snapshot"))!;
    expect(row.remoteKey).toBe(snapshotKey);
    // The object is the stored file itself.
    expect((await getObjectBuffer(target, snapshotKey, 64 * 1024 * 1024)).equals(readFileSync(dataPath(row.file)))).toBe(true);
    // Nothing in the bucket reveals the snapshot, the SSH key or the CA key.
    for (const k of keys) {
      const body = (await getObjectBuffer(target, k, 64 * 1024 * 1024)).toString("latin1");
      expect(body.includes(marker)).toBe(false);
      expect(body.includes(sshKey.split("\n")[1]!)).toBe(false);
      expect(body.includes(caKey.split("\n")[1]!)).toBe(false);
    }
    const [shown] = await listBackups({ clusterId });
    expect(shown?.copies).toEqual({ local: true, bucket: { where: `s3://bootdeck-dr/${snapshotKey} at ${server.endpoint}`, at: expect.any(String) }, bucketError: null });
  });

  it("retention applies in the bucket too: the newest stay, older ones go", async () => {
    await setBackupPolicy({ clusterId, body: { enabled: false, intervalMinutes: 60, keepLast: 1, keepDays: 1 }, by: "test" });
    const old = await storeBackup(new Date(Date.now() - 10 * 86_400_000), Buffer.from("an old snapshot"));
    // Copying the old one runs retention: it is the one past both limits.
    const r = await copyBackupToBucket({ backupId: old });
    expect(r.expired).toEqual([old]);
    const left = (await listObjects(target, `site-a/${clusterId}/`)).map((o) => o.key);
    expect(left.every((k) => k.includes(newest))).toBe(true);
    expect((await getBackupOrThrow({ clusterId, backupId: old })).remoteKey).toBeNull();
    await setBackupPolicy({ clusterId, body: { enabled: false, intervalMinutes: 60, keepLast: 14, keepDays: 30 }, by: "test" });
    await getDb().backup.delete({ where: { id: old } });
  });

  it("lists what a backup key opens; another key opens nothing", async () => {
    keyText = backupKeyText(await clusterBackupKey(clusterId));
    const listed = await listRemoteSnapshots(target, parseBackupKey(keyText));
    expect(listed.snapshots).toEqual([{ clusterId, clusterName: "far-away", backupId: newest, createdAt: expect.any(String), revision: "4242", size: plain.length, etcdVersion: "3.6.8", member: "master-1", trigger: "schedule", kubernetesVersion: expect.stringMatching(/^v1\./) }]);
    const other = await listRemoteSnapshots(target, randomBytes(32));
    expect(other.snapshots).toEqual([]);
    expect(other.unreadable[0]?.error).toMatch(/does not open with this backup key/);
    expect(() => parseBackupKey("bdk1:short")).toThrow(/not a backup key/);
  });
});

describe("a new dashboard given the bucket and the backup key", () => {
  it("takes the cluster over and gets the snapshot back from the bucket, checked", async () => {
    const original = await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId }, select: { definition: true } });
    await db!.cleanup();
    db = await createTempDb(); // another database, another data directory, another master key
    expect(await getDb().cluster.count()).toBe(0);

    const r = await importClusterFromBucket({ target, key: parseBackupKey(keyText), clusterId, by: "test" });
    expect(r).toEqual({ clusterId, name: "far-away", backups: 1, fromBackup: newest });
    const c = await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId }, include: { credentials: true, hosts: true, assetSets: { include: { assets: true } }, backupPolicy: true, backupTarget: true } });
    expect(c.definition).toBe(original.definition);
    expect(decryptSecret(c.credentials[0]!.secretCipher!, secretContexts.credential(clusterId, c.credentials[0]!.name, "secretCipher"))).toBe(sshKey);
    expect(c.hosts.find((h) => h.name === "master-1")?.hostKeyFingerprint).toBe("SHA256:pinned-master-1");
    const caKeyRow = c.assetSets[0]!.assets.find((a) => a.path === "tls/ca.key")!;
    expect(assetContent(caKeyRow)).toBe(caKey);
    expect(c.backupPolicy).toMatchObject({ enabled: false });
    expect(c.backupTarget).toMatchObject({ bucket: "bootdeck-dr", prefix: "site-a/" });
    expect(backupKeyText(await clusterBackupKey(clusterId))).toBe(keyText);

    const [b] = await listBackups({ clusterId });
    expect(b?.copies).toMatchObject({ local: false, bucket: { where: expect.stringContaining("s3://bootdeck-dr/site-a/") } });
    const progress: string[] = [];
    const opened = await fetchAndOpenBackup(await getBackupOrThrow({ clusterId, backupId: newest }), (m) => progress.push(m));
    const chunks: Buffer[] = [];
    for await (const chunk of opened.stream()) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(plain)).toBe(true);
    expect(progress[0]).toMatch(/fetching backup bk_.* from s3:\/\/bootdeck-dr\//);
    expect(existsSync(dataPath(backupRelPath(clusterId, newest)))).toBe(true);

    await expect(importClusterFromBucket({ target, key: parseBackupKey(keyText), clusterId, by: "test" })).rejects.toThrow(/has cluster .* already/);
  });
});
