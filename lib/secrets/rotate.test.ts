import { createCipheriv, randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { newId } from "../ids";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { decryptSecret, encryptSecret, sealedKeyId, secretContexts, type SecretContext } from "./cipher";
import { ensureMasterKeyFile, generateMasterKey, getMasterKey, masterKeyText, pendingKeyFile, resetMasterKeyCache, retiredKeyFiles, type MasterKey } from "./master-key";
import { rotateMasterKey } from "./rotate";
import { testKeyPair } from "../../test/ssh-key";

const secrets = { key: "", passphrase: "rotate-passphrase-\u00e9\u00e8-42", password: "rotate-password-Xy9!", token: "abcdef.0123456789abcdef", caKey: "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIRotateTestCaKey\n-----END EC PRIVATE KEY-----\n" };

/** A value as Bootdeck sealed it before values carried their row and field (v1: no additional data). */
function sealV1(plain: string, key: MasterKey = getMasterKey()): string {
  const nonce = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", key.key, nonce);
  const body = Buffer.concat([c.update(plain, "utf8"), c.final()]);
  return ["v1", key.id, nonce.toString("base64"), c.getAuthTag().toString("base64"), body.toString("base64")].join(":");
}

async function seed(): Promise<void> {
  secrets.key ||= testKeyPair({ passphrase: secrets.passphrase, cipher: "aes256-ctr", rounds: 4 }).private;
  const def = exampleDefinition({ name: "rot" }) as ReturnType<typeof exampleDefinition>;
  def.spec.credentials!.push({ name: "pw", type: "password" });
  await createCluster({ definition: def, secrets: { "admin-key": { privateKey: secrets.key, passphrase: secrets.passphrase }, pw: { password: secrets.password } } });
  const cluster = await getDb().cluster.findFirstOrThrow();
  const set = await getDb().assetSet.create({ data: { id: newId("as"), clusterId: cluster.id, version: 1 } });
  for (const [p, content, sensitive] of [["tls/ca.key", secrets.caKey, true], ["auth/token", secrets.token, true], ["tls/ca.crt", "PUBLIC CERT", false]] as const) {
    const id = newId("ast");
    await getDb().asset.create({
      data: { id, assetSetId: set.id, path: p, sensitive, content: sensitive ? encryptSecret(content, secretContexts.asset(id)) : content, sha256: "x", size: content.length },
    });
  }
}

async function sealedAt(): Promise<{ sealed: string; at: SecretContext }[]> {
  const creds = await getDb().credential.findMany();
  const assets = await getDb().asset.findMany({ where: { sensitive: true } });
  return [
    ...creds.flatMap((c) => [
      ...(c.secretCipher ? [{ sealed: c.secretCipher, at: secretContexts.credential(c.clusterId, c.name, "secretCipher") }] : []),
      ...(c.passphraseCipher ? [{ sealed: c.passphraseCipher, at: secretContexts.credential(c.clusterId, c.name, "passphraseCipher") }] : []),
    ]),
    ...assets.map((a) => ({ sealed: a.content, at: secretContexts.asset(a.id) })),
  ];
}

async function sealedValues(): Promise<string[]> {
  return (await sealedAt()).map((s) => s.sealed);
}

async function plainValues(key?: MasterKey): Promise<string[]> {
  return (await sealedAt()).map((s) => decryptSecret(s.sealed, s.at, key)).sort();
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
    await getDb().cluster.update({ where: { id: cluster.id }, data: { backupKeyCipher: encryptSecret(backupKey, secretContexts.clusterBackupKey(cluster.id)) } });
    await getDb().backupTarget.create({ data: { clusterId: cluster.id, endpoint: "http://127.0.0.1:9", region: "us-east-1", bucket: "b-1", accessKeyId: "AKID", secretKeyCipher: encryptSecret("bucket-secret", secretContexts.bucketSecret(cluster.id)) } });
    const r = await rotateMasterKey();
    expect(r.credentials).toBe(4);
    const after = await getDb().cluster.findUniqueOrThrow({ where: { id: cluster.id }, include: { backupTarget: true } });
    expect([sealedKeyId(after.backupKeyCipher!), sealedKeyId(after.backupTarget!.secretKeyCipher)]).toEqual([r.newKeyId, r.newKeyId]);
    expect([decryptSecret(after.backupKeyCipher!, secretContexts.clusterBackupKey(cluster.id)), decryptSecret(after.backupTarget!.secretKeyCipher, secretContexts.bucketSecret(cluster.id))]).toEqual([backupKey, "bucket-secret"]);
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

  test("values sealed without their row (v1, before) still open, and the rotation rewrites them bound to it (v2)", async () => {
    // Every record as an older Bootdeck wrote it.
    for (const c of await getDb().credential.findMany())
      await getDb().credential.update({
        where: { id: c.id },
        data: {
          secretCipher: c.secretCipher && sealV1(decryptSecret(c.secretCipher, secretContexts.credential(c.clusterId, c.name, "secretCipher"))),
          passphraseCipher: c.passphraseCipher && sealV1(decryptSecret(c.passphraseCipher, secretContexts.credential(c.clusterId, c.name, "passphraseCipher"))),
        },
      });
    for (const a of await getDb().asset.findMany({ where: { sensitive: true } })) await getDb().asset.update({ where: { id: a.id }, data: { content: sealV1(decryptSecret(a.content, secretContexts.asset(a.id))) } });
    expect((await sealedValues()).every((s) => s.startsWith("v1:"))).toBe(true);
    expect(await plainValues()).toEqual(expectedPlain());
    // A v1 value opens in any row: what v2 ends.
    const [one, other] = await getDb().asset.findMany({ where: { sensitive: true } });
    expect(decryptSecret(one!.content, secretContexts.asset(other!.id))).toBe(decryptSecret(one!.content, secretContexts.asset(one!.id)));
    await rotateMasterKey();
    expect((await sealedValues()).every((s) => s.startsWith("v2:"))).toBe(true);
    expect(await plainValues()).toEqual(expectedPlain());
    const [a, b] = await getDb().asset.findMany({ where: { sensitive: true }, orderBy: { path: "asc" } });
    expect(() => decryptSecret(a!.content, secretContexts.asset(b!.id))).toThrow(/sealed for another row or field/);
    const key = await getDb().credential.findFirstOrThrow({ where: { kind: "privateKey" } });
    expect(() => decryptSecret(key.secretCipher!, secretContexts.credential(key.clusterId, key.name, "passphraseCipher"))).toThrow(/does not authenticate/);
  });

  test("a record under an unknown key aborts the rotation without changing anything", async () => {
    const stranger = generateMasterKey();
    const pw = await getDb().credential.findFirstOrThrow({ where: { kind: "password" } });
    await getDb().credential.update({ where: { id: pw.id }, data: { secretCipher: encryptSecret("x", secretContexts.credential(pw.clusterId, pw.name, "secretCipher"), stranger) } });
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
    expect(await plainValues(given)).toEqual(expectedPlain());
  });
});
