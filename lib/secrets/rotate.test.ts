import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { newId } from "../ids";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { decryptSecret, encryptSecret, sealedKeyId } from "./cipher";
import { ensureMasterKeyFile, generateMasterKey, getMasterKey, masterKeyText, pendingKeyFile, resetMasterKeyCache, retiredKeyFiles } from "./master-key";
import { rotateMasterKey } from "./rotate";
import { testKeyPair } from "../../test/ssh-key";

const secrets = { key: "", passphrase: "rotate-passphrase-\u00e9\u00e8-42", password: "rotate-password-Xy9!", token: "abcdef.0123456789abcdef", caKey: "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIRotateTestCaKey\n-----END EC PRIVATE KEY-----\n" };

async function seed(): Promise<void> {
  secrets.key ||= testKeyPair({ passphrase: secrets.passphrase, cipher: "aes256-ctr", rounds: 4 }).private;
  const def = exampleDefinition({ name: "rot" }) as ReturnType<typeof exampleDefinition>;
  def.spec.credentials!.push({ name: "pw", type: "password" });
  await createCluster({ definition: def, secrets: { "admin-key": { privateKey: secrets.key, passphrase: secrets.passphrase }, pw: { password: secrets.password } } });
  const cluster = await getDb().cluster.findFirstOrThrow();
  const set = await getDb().assetSet.create({ data: { id: newId("as"), clusterId: cluster.id, version: 1 } });
  for (const [p, content, sensitive] of [["tls/ca.key", secrets.caKey, true], ["auth/token", secrets.token, true], ["tls/ca.crt", "PUBLIC CERT", false]] as const)
    await getDb().asset.create({
      data: { id: newId("ast"), assetSetId: set.id, path: p, sensitive, content: sensitive ? encryptSecret(content) : content, sha256: "x", size: content.length },
    });
}

async function sealedValues(): Promise<string[]> {
  const creds = await getDb().credential.findMany();
  const assets = await getDb().asset.findMany({ where: { sensitive: true } });
  return [...creds.flatMap((c) => [c.secretCipher, c.passphraseCipher]).filter((v): v is string => !!v), ...assets.map((a) => a.content)];
}

async function plainValues(): Promise<string[]> {
  return (await sealedValues()).map((s) => decryptSecret(s)).sort();
}
const expectedPlain = () => [secrets.key, secrets.passphrase, secrets.password, secrets.token, secrets.caKey].sort();

describe("rotate-master-key with a key file", () => {
  let db: TempDb;
  beforeEach(async () => {
    db = await createTempDb({ masterKey: "file" });
    ensureMasterKeyFile();
    resetMasterKeyCache();
    await seed();
  });
  afterEach(async () => db.cleanup());

  test("re-seals the cluster's backup key and its bucket's secret key too", async () => {
    const cluster = await getDb().cluster.findFirstOrThrow();
    const backupKey = Buffer.alloc(32, 9).toString("base64");
    await getDb().cluster.update({ where: { id: cluster.id }, data: { backupKeyCipher: encryptSecret(backupKey) } });
    await getDb().backupTarget.create({ data: { clusterId: cluster.id, endpoint: "http://127.0.0.1:9", region: "us-east-1", bucket: "b-1", accessKeyId: "AKID", secretKeyCipher: encryptSecret("bucket-secret") } });
    const r = await rotateMasterKey();
    expect(r.credentials).toBe(4);
    const after = await getDb().cluster.findUniqueOrThrow({ where: { id: cluster.id }, include: { backupTarget: true } });
    expect([sealedKeyId(after.backupKeyCipher!), sealedKeyId(after.backupTarget!.secretKeyCipher)]).toEqual([r.newKeyId, r.newKeyId]);
    expect([decryptSecret(after.backupKeyCipher!), decryptSecret(after.backupTarget!.secretKeyCipher)]).toEqual([backupKey, "bucket-secret"]);
  });

  test("re-seals every credential and sensitive asset under a new key, retires the old key file 0600", async () => {
    const oldId = getMasterKey().id;
    const keyFile = path.join(db.dir, "master.key");
    const oldText = readFileSync(keyFile, "utf8");
    const r = await rotateMasterKey({ now: new Date("2026-11-30T06:00:00Z") });
    expect(r).toMatchObject({ oldKeyId: oldId, credentials: 2, assets: 2, resumed: false, source: "file" });
    expect(r.newKeyId).not.toBe(oldId);
    expect(getMasterKey().id).toBe(r.newKeyId);
    expect((await sealedValues()).map(sealedKeyId)).toEqual(Array(5).fill(r.newKeyId));
    expect(await plainValues()).toEqual(expectedPlain());
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(r.retiredKeyFile).toBe(`${keyFile}.old-2026-11-30T06-00-00-000Z`);
    expect(readFileSync(r.retiredKeyFile!, "utf8")).toBe(oldText);
    expect(statSync(r.retiredKeyFile!).mode & 0o777).toBe(0o600);
    expect(existsSync(pendingKeyFile())).toBe(false);
    // The non-sensitive asset is untouched.
    expect((await getDb().asset.findFirstOrThrow({ where: { sensitive: false } })).content).toBe("PUBLIC CERT");
  });

  test("a crash before the commit leaves the old key working and the next run finishes", async () => {
    const oldId = getMasterKey().id;
    await expect(rotateMasterKey({ hooks: { afterPendingWritten: () => { throw new Error("crash"); } } })).rejects.toThrow("crash");
    resetMasterKeyCache();
    expect(getMasterKey().id).toBe(oldId);
    expect((await sealedValues()).map(sealedKeyId)).toEqual(Array(5).fill(oldId));
    expect(await plainValues()).toEqual(expectedPlain());
    const pendingId = (await import("./master-key")).readKeyFile(pendingKeyFile()).id;
    const r = await rotateMasterKey();
    expect(r.resumed).toBe(true);
    expect(r.newKeyId).toBe(pendingId);
    expect((await sealedValues()).map(sealedKeyId)).toEqual(Array(5).fill(pendingId));
    expect(await plainValues()).toEqual(expectedPlain());
  });

  test("a crash after the commit, before the key file moves: records still open (pending key) and the next run finishes", async () => {
    const oldId = getMasterKey().id;
    let newId = "";
    await expect(
      rotateMasterKey({ hooks: { afterCommit: () => { throw new Error("crash"); } } }).then((r) => (newId = r.newKeyId)),
    ).rejects.toThrow("crash");
    resetMasterKeyCache();
    expect(getMasterKey().id).toBe(oldId); // master.key not yet replaced …
    const ids = new Set((await sealedValues()).map(sealedKeyId));
    expect(ids.size).toBe(1);
    expect(ids.has(oldId)).toBe(false); // … but every record is under the new key,
    expect(await plainValues()).toEqual(expectedPlain()); // which the key ring finds in master.key.new.
    const r = await rotateMasterKey();
    expect(r.resumed).toBe(true);
    expect(getMasterKey().id).toBe(r.newKeyId);
    expect((await sealedValues()).map(sealedKeyId)).toEqual(Array(5).fill(r.newKeyId));
    expect(await plainValues()).toEqual(expectedPlain());
    expect(retiredKeyFiles()).toHaveLength(1);
    void newId;
  });

  test("a record under an unknown key aborts the rotation without changing anything", async () => {
    const stranger = generateMasterKey();
    await getDb().credential.updateMany({ where: { kind: "password" }, data: { secretCipher: encryptSecret("x", stranger) } });
    const before = await sealedValues();
    const keyBefore = getMasterKey().id;
    await expect(rotateMasterKey()).rejects.toThrow(/no key with that id/);
    expect(await sealedValues()).toEqual(before);
    resetMasterKeyCache();
    expect(getMasterKey().id).toBe(keyBefore);
  });

  test("--new-key-file uses the given key; a different unfinished rotation must be finished first", async () => {
    const given = generateMasterKey();
    const f = path.join(db.dir, "given.key");
    writeFileSync(f, masterKeyText(given), { mode: 0o600 });
    const r = await rotateMasterKey({ newKeyFile: f });
    expect(r.newKeyId).toBe(given.id);
    await expect(rotateMasterKey({ hooks: { afterCommit: () => { throw new Error("crash"); } } })).rejects.toThrow("crash");
    const other = path.join(db.dir, "other.key");
    writeFileSync(other, masterKeyText(generateMasterKey()), { mode: 0o600 });
    await expect(rotateMasterKey({ newKeyFile: other })).rejects.toThrow(/did not finish/);
    const loose = path.join(db.dir, "loose.key");
    writeFileSync(loose, masterKeyText(generateMasterKey()), { mode: 0o644 });
    await expect(rotateMasterKey({ newKeyFile: loose })).rejects.toThrow(/readable by others/);
  });
});

describe("rotate-master-key with BOOTDECK_MASTER_KEY", () => {
  let db: TempDb;
  beforeEach(async () => {
    db = await createTempDb({ masterKey: "env" });
    await seed();
  });
  afterEach(async () => db.cleanup());

  test("needs --new-key-file, re-seals under it and leaves the variable to the operator", async () => {
    await expect(rotateMasterKey()).rejects.toThrow(/--new-key-file/);
    const given = generateMasterKey();
    const f = path.join(db.dir, "next.key");
    writeFileSync(f, masterKeyText(given), { mode: 0o600 });
    const r = await rotateMasterKey({ newKeyFile: f });
    expect(r).toMatchObject({ source: "env", newKeyId: given.id, credentials: 2, assets: 2 });
    expect((await sealedValues()).map(sealedKeyId)).toEqual(Array(5).fill(given.id));
    expect((await sealedValues()).map((s) => decryptSecret(s, given)).sort()).toEqual(expectedPlain());
  });
});
