import "server-only";
// AES-256-GCM with a fresh 96-bit nonce per record. Format: v2:<keyId>:<nonce>:<tag>:<ciphertext>
// (base64 parts), so a rotation can tell which key sealed a record. v2 binds each value to the row and
// field it is stored in as additional authenticated data: a ciphertext copied into another row (or
// another field of the same row) does not decrypt there. v1 values, written before, carry no such
// data; they still open, and `bootdeck rotate-master-key` rewrites every one as v2.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { findMasterKey, getMasterKey, type MasterKey } from "./master-key";

/** Where a sealed value is stored: its table, the row's identity there, the field. */
export type SecretContext = { table: "Credential" | "Asset" | "Backup" | "Cluster" | "BackupTarget" | "WebhookEndpoint" | "AccessSettings" | "Session" | "OidcLogin"; row: string; field: string };

const aad = (c: SecretContext) => Buffer.from(`bootdeck:${c.table}:${c.row}:${c.field}`, "utf8");

export function encryptSecret(plain: string, context: SecretContext, key: MasterKey = getMasterKey()): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key.key, nonce);
  cipher.setAAD(aad(context));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v2", key.id, nonce.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":");
}

/**
 * Opens a sealed value stored at `context`. Without `key`, the key is found by the id the value carries
 * (current, pending or retired key, see master-key.ts); with `key`, only that key is tried.
 */
export function decryptSecret(sealed: string, context: SecretContext, key?: MasterKey): string {
  const [version, id, nonce, tag, body] = sealed.split(":");
  if ((version !== "v1" && version !== "v2") || !id || nonce === undefined || tag === undefined || body === undefined)
    throw new Error("not a Bootdeck secret (expected v2:… or v1:…)");
  const k = key ?? findMasterKey(id);
  if (!k || id !== k.id)
    throw new Error(`secret was sealed with master key ${id}, but ${k ? `the key given is ${k.id}` : "no key with that id is available (current, master.key.new or master.key.old-*)"}`);
  const decipher = createDecipheriv("aes-256-gcm", k.key, Buffer.from(nonce, "base64"));
  if (version === "v2") decipher.setAAD(aad(context));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  try {
    return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
  } catch {
    throw new Error(`the secret in ${context.table} ${context.row} (${context.field}) does not authenticate: it was changed, or sealed for another row or field`);
  }
}

export function sealedKeyId(sealed: string): string | undefined {
  return /^v[12]:/.test(sealed) ? sealed.split(":")[1] : undefined;
}

/** Whether a sealed value is of the current format (v2, bound to its row and field). */
export const isCurrentFormat = (sealed: string): boolean => sealed.startsWith("v2:");

/** The contexts of the sealed fields, as each table's rows name them. */
export const secretContexts = {
  /** A credential is known by its cluster and name (its row id is made inside the transaction that saves it). */
  credential: (clusterId: string, name: string, field: "secretCipher" | "passphraseCipher"): SecretContext => ({ table: "Credential", row: `${clusterId}/${name}`, field }),
  asset: (assetId: string): SecretContext => ({ table: "Asset", row: assetId, field: "content" }),
  backupKey: (backupId: string): SecretContext => ({ table: "Backup", row: backupId, field: "keyCipher" }),
  /** A cluster's backup key (it seals what the cluster's bucket holds). */
  clusterBackupKey: (clusterId: string): SecretContext => ({ table: "Cluster", row: clusterId, field: "backupKeyCipher" }),
  bucketSecret: (clusterId: string): SecretContext => ({ table: "BackupTarget", row: clusterId, field: "secretKeyCipher" }),
  webhookSecret: (endpointId: string): SecretContext => ({ table: "WebhookEndpoint", row: endpointId, field: "secretCipher" }),
  oidcClientSecret: (settingsId: string): SecretContext => ({ table: "AccessSettings", row: settingsId, field: "clientSecretCipher" }),
  /** A session's refresh token (the row id is the session token's digest). */
  oidcRefreshToken: (sessionId: string): SecretContext => ({ table: "Session", row: sessionId, field: "refreshCipher" }),
  /** A pending sign-in's PKCE verifier (the row id is the state's digest). */
  oidcCodeVerifier: (loginId: string): SecretContext => ({ table: "OidcLogin", row: loginId, field: "codeVerifier" }),
};
