import "server-only";
// AES-256-GCM with a fresh 96-bit nonce per record. Format: v1:<keyId>:<nonce>:<tag>:<ciphertext>
// (base64 parts), so a rotation can tell which key sealed a record.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { findMasterKey, getMasterKey, type MasterKey } from "./master-key";

export function encryptSecret(plain: string, key: MasterKey = getMasterKey()): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key.key, nonce);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", key.id, nonce.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(":");
}

/**
 * Opens a sealed value. Without `key`, the key is found by the id the value carries (current,
 * pending or retired key, see master-key.ts); with `key`, only that key is tried.
 */
export function decryptSecret(sealed: string, key?: MasterKey): string {
  const [version, id, nonce, tag, body] = sealed.split(":");
  if (version !== "v1" || !id || nonce === undefined || tag === undefined || body === undefined)
    throw new Error("not a Bootdeck secret (expected v1:…)");
  const k = key ?? findMasterKey(id);
  if (!k || id !== k.id)
    throw new Error(`secret was sealed with master key ${id}, but ${k ? `the key given is ${k.id}` : "no key with that id is available (current, master.key.new or master.key.old-*)"}`);
  const decipher = createDecipheriv("aes-256-gcm", k.key, Buffer.from(nonce, "base64"));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
}

export function sealedKeyId(sealed: string): string | undefined {
  return sealed.startsWith("v1:") ? sealed.split(":")[1] : undefined;
}
