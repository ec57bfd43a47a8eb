// The SQLite-file grep: store clusters with known private keys, passwords and passphrases through
// the real code paths (repository, YAML import, HTTP route, asset render), then read the raw
// database and WAL files as bytes and look for the secrets and distinctive pieces of them.
import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { stringify } from "yaml";
import { exampleDefinition } from "../lib/cluster/example";
import { importClusterYaml } from "../lib/clusters/import";
import { createCluster, getClusterOrThrow, getExportableDefinition, updateCluster } from "../lib/clusters/repository";
import { toClusterYaml } from "../lib/cluster/yaml";
import { awaitRunningRender } from "../lib/clusters/render-jobs";
import { getAssetSet } from "../lib/assets/store";
import { renderAndSaveAssetSet } from "../lib/clusters/render-assets";
import { getDb } from "../lib/db/client";
import { rotateMasterKey } from "../lib/secrets/rotate";
import * as clustersRoute from "../app/api/clusters/route";
import { createTempDb, type TempDb } from "./temp-db";
import { call, createActor, signIn, type Handler } from "./http-helpers";
import { testKeyPair } from "./ssh-key";

let db: TempDb;
let renderingAhead: string | undefined;
const secrets: string[] = [];
const keep = <T extends string>(s: T): T => (secrets.push(s), s);

function ed25519(passphrase?: string): string {
  return keep(testKeyPair(passphrase ? { passphrase, cipher: "aes256-ctr", rounds: 4 } : {}).private);
}
function rsaPem(): string {
  return keep(generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs1", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } }).privateKey);
}
function definition(name: string) {
  const d = exampleDefinition({ name, hosts: 2 });
  d.spec.credentials = [
    { name: "admin-key", type: "privateKey" },
    { name: "rsa-key", type: "privateKey" },
    { name: "root-pw", type: "password" },
  ];
  return d;
}

/** 12-character runs of a long value, or the value itself when short. */
function chunks(value: string): string[] {
  const v = value.replace(/\s+/g, "");
  if (v.length < 40) return v.length >= 8 ? [v] : [];
  const out: string[] = [];
  for (let i = 0; i + 12 <= v.length; i += 6) out.push(v.slice(i, i + 12));
  return out;
}

/**
 * The private numbers of a PEM private key (d, p, q, …), as base64 text at each of the three byte
 * alignments, so they are found wherever the key sits in a stored PEM. Public parts (an RSA
 * modulus, an EC public point) are left out: certificates legitimately carry them.
 */
function privateComponents(pem: string): string[] | undefined {
  let jwk: Record<string, unknown>;
  try {
    jwk = createPrivateKey(pem).export({ format: "jwk" }) as Record<string, unknown>;
  } catch {
    return undefined; // OpenSSH format: node cannot read it; its body is all secret to us
  }
  const out: string[] = [];
  for (const k of ["d", "p", "q", "dp", "dq", "qi"]) {
    if (typeof jwk[k] !== "string") continue;
    const bytes = Buffer.from(jwk[k] as string, "base64url");
    for (let a = 0; a < 3; a++) {
      const enc = bytes.subarray(a, a + 3 * Math.floor((bytes.length - a) / 3)).toString("base64");
      if (enc.length >= 24) out.push(enc.slice(4, 20));
    }
  }
  return out;
}

function encodedAtAlignments(text: string): string[] {
  const bytes = Buffer.from(text, "utf8");
  return [0, 1, 2].map((a) => bytes.subarray(a, a + 3 * Math.floor((bytes.length - a) / 3)).toString("base64")).filter((e) => e.length >= 12);
}

function pemNeedles(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g))
    out.push(...(privateComponents(m[0]) ?? chunks(m[0].split("\n").filter((l) => l && !l.startsWith("-----") && !l.includes(":")).join(""))));
  return out;
}

/**
 * Pieces that would give a secret away. Rendered files mix secret and public parts (a kubeconfig
 * carries the server URL and CA certificate too), so for those only the secret parts count:
 * private keys' private numbers, tokens, key or token data in kubeconfigs and Secrets, and the
 * encryption configuration's key (`secret:`).
 */
function needles(secret: string): string[] {
  if (!secret.includes("\n") && secret.length < 200) return [secret];
  const out = pemNeedles(secret);
  for (const m of secret.matchAll(/^\s*([\w.-]*(?:key|token|secret)[\w.-]*):\s*["']?([A-Za-z0-9+/=._-]{16,})["']?\s*$/gim)) {
    const decoded = Buffer.from(m[2]!, "base64").toString("utf8");
    const inner = pemNeedles(decoded);
    // A PEM inside base64 (client-key-data, Secret data): look for the private numbers' text as
    // it reads once more base64-encoded, at each alignment. Anything else (a token, the encryption
    // configuration's key): its text, and that text base64-encoded, as a Secret's data would hold it.
    out.push(...(inner.length ? inner.flatMap(encodedAtAlignments) : [...chunks(m[2]!), ...encodedAtAlignments(m[2]!)]));
  }
  return out.length ? out : chunks(secret);
}

function rawDatabaseBytes(): Buffer {
  return Buffer.concat([db.dbFile, `${db.dbFile}-wal`, `${db.dbFile}-journal`].filter(existsSync).map((f) => readFileSync(f)));
}

function findLeaks(haystack: Buffer): string[] {
  const leaks: string[] = [];
  for (const s of secrets) for (const n of needles(s)) if (haystack.includes(Buffer.from(n, "utf8"))) leaks.push(`${s.slice(0, 30).replace(/\n/g, "⏎")}… via "${n}"`);
  return leaks;
}

beforeAll(async () => {
  db = await createTempDb();
  // 1. The repository, with a passphrase-protected key, an RSA PEM key and a password.
  const ppA = keep("correct horse battery staple 7f3e");
  const a = await createCluster({
    definition: definition("alpha"),
    secrets: { "admin-key": { privateKey: ed25519(ppA), passphrase: ppA }, "rsa-key": { privateKey: rsaPem() }, "root-pw": { password: keep("Sup3r-Secret-Root-PW!") } },
  });
  // 2. An update that replaces every secret.
  const ppB = keep("a different passphrase c0ffee");
  await updateCluster({
    id: a.id,
    definition: definition("alpha"),
    secrets: { "admin-key": { privateKey: ed25519(ppB), passphrase: ppB }, "rsa-key": { privateKey: rsaPem() }, "root-pw": { password: keep("An0ther-root-password#") } },
  });
  // 3. A YAML import with secrets alongside.
  await importClusterYaml({
    yaml: stringify(definition("bravo")),
    secrets: { "admin-key": { privateKey: ed25519() }, "rsa-key": { privateKey: rsaPem() }, "root-pw": { password: keep("imported-pw-9z8y7x") } },
    replace: false,
  });
  // 4. The HTTP route, as an admin (also exercises the audit trail).
  const admin = await createActor("admin");
  const res = await call(clustersRoute.POST as Handler, {
    method: "POST",
    path: "/api/clusters",
    signed: await signIn(admin),
    body: JSON.stringify({
      definition: definition("charlie"),
      secrets: { "admin-key": { privateKey: ed25519() }, "rsa-key": { privateKey: rsaPem() }, "root-pw": { password: keep("route-pw-QWERTY-555") } },
    }),
  });
  expect(res.status).toBe(201);
  // The route started a render ahead in the background: it must end before the database goes.
  renderingAhead = ((await res.json()) as { id: string }).id;
  // 5. Rendered assets: private keys and tokens (ECDSA keeps the render quick).
  const set = await renderAndSaveAssetSet({ clusterId: a.id, options: {} });
  const rendered = await getAssetSet({ id: set.id, includeSecrets: true });
  const sensitive = rendered.assets.filter((x) => x.sensitive && x.content);
  expect(sensitive.length).toBeGreaterThan(3);
  for (const x of sensitive) keep(x.content!);
}, 120_000);
afterAll(async () => {
  if (renderingAhead) await awaitRunningRender(renderingAhead);
  await db?.cleanup();
});

describe("secrets at rest", () => {
  test("the known secrets are many and distinctive", () => {
    expect(secrets.length).toBeGreaterThan(15);
    // The needle search finds each secret when it is there (the test can fail), and every secret yields needles.
    for (const s of secrets) {
      expect(needles(s).length, s.slice(0, 40)).toBeGreaterThan(0);
      expect(findLeaks(Buffer.from(`xx${s}xx`)).length, s.slice(0, 40)).toBeGreaterThan(0);
    }
  });

  test("no secret, nor any distinctive piece of one, is in the SQLite file or its WAL", async () => {
    expect(existsSync(db.dbFile)).toBe(true);
    expect(findLeaks(rawDatabaseBytes())).toEqual([]);
    // After a checkpoint everything is in the main file; look again.
    await getDb().$queryRawUnsafe("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(findLeaks(rawDatabaseBytes())).toEqual([]);
  });

  test("nor after a master-key rotation", async () => {
    await rotateMasterKey({ newKeyFile: undefined }).catch(async (e: Error) => {
      // The temp database uses BOOTDECK_MASTER_KEY; rotation then needs a key file.
      const { writeFileSync } = await import("node:fs");
      const { generateMasterKey, masterKeyText } = await import("../lib/secrets/master-key");
      const f = `${db.dir}/next.key`;
      writeFileSync(f, masterKeyText(generateMasterKey()), { mode: 0o600 });
      expect(e.message).toMatch(/--new-key-file/);
      await rotateMasterKey({ newKeyFile: f });
    });
    await getDb().$queryRawUnsafe("PRAGMA wal_checkpoint(TRUNCATE)");
    expect(findLeaks(rawDatabaseBytes())).toEqual([]);
  });

  test("what goes to the browser and into exports carries fingerprints, never secrets", async () => {
    for (const c of await getDb().cluster.findMany()) {
      const view = await getClusterOrThrow({ id: c.id });
      expect(view.credentials.filter((x) => x.type === "privateKey").every((x) => x.fingerprint?.startsWith("SHA256:"))).toBe(true);
      expect(findLeaks(Buffer.from(JSON.stringify(view)))).toEqual([]);
      expect(findLeaks(Buffer.from(toClusterYaml(await getExportableDefinition({ id: c.id }))))).toEqual([]);
    }
    const audit = await getDb().auditEvent.findMany();
    expect(findLeaks(Buffer.from(JSON.stringify(audit)))).toEqual([]);
    const withoutSecrets = await getAssetSet({ id: (await getDb().assetSet.findFirstOrThrow()).id });
    expect(withoutSecrets.assets.filter((x) => x.sensitive).every((x) => x.content === undefined)).toBe(true);
  });
});
