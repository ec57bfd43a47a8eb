import "server-only";
// The cluster's backup key: 32 random bytes made the first time the cluster's backups leave the
// machine, sealed with the master key in the cluster's row. It wraps everything the bucket holds of the
// cluster (each snapshot's data key, the cluster's definition and assets), so that the bucket alone
// reveals nothing and a new dashboard given the key (and only then) can read it. An admin exports it
// once with `bootdeck backup export-key CLUSTER` (audited) and keeps it away from this machine.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { getDb } from "../db/client";
import { AppError, notFound } from "../http/errors";
import { decryptSecret, encryptSecret, secretContexts } from "../secrets/cipher";

const PREFIX = "bdk1:";

/** A backup key as an admin copies it: "bdk1:" and the key in base64. */
export const backupKeyText = (key: Buffer) => `${PREFIX}${key.toString("base64")}`;

/** Reads a backup key as exported; a clear 4xx for anything else. */
export function parseBackupKey(text: string): Buffer {
  const t = text.trim();
  const raw = t.startsWith(PREFIX) ? t.slice(PREFIX.length) : t;
  const key = /^[A-Za-z0-9+/]{43}=$/.test(raw) ? Buffer.from(raw, "base64") : Buffer.alloc(0);
  if (key.length !== 32) throw new AppError(422, "bad_backup_key", "that is not a backup key: expected bdk1: followed by 32 bytes in base64, as `bootdeck backup export-key` prints it");
  return key;
}

/** The cluster's backup key, made (and stored sealed) on first use. */
export async function clusterBackupKey(clusterId: string): Promise<Buffer> {
  const db = getDb();
  const row = await db.cluster.findUnique({ where: { id: clusterId }, select: { backupKeyCipher: true } });
  if (!row) throw notFound("Cluster");
  if (row.backupKeyCipher) return Buffer.from(decryptSecret(row.backupKeyCipher, secretContexts.clusterBackupKey(clusterId)), "base64");
  const made = randomBytes(32);
  // Guarded: two processes making one at once keep the first.
  await db.cluster.updateMany({ where: { id: clusterId, backupKeyCipher: null }, data: { backupKeyCipher: encryptSecret(made.toString("base64"), secretContexts.clusterBackupKey(clusterId)) } });
  const stored = await db.cluster.findUniqueOrThrow({ where: { id: clusterId }, select: { backupKeyCipher: true } });
  return Buffer.from(decryptSecret(stored.backupKeyCipher!, secretContexts.clusterBackupKey(clusterId)), "base64");
}

/** Stores a given backup key for a cluster (a cluster restored from its bucket keeps its key). */
export async function setClusterBackupKey(clusterId: string, key: Buffer, db: Pick<ReturnType<typeof getDb>, "cluster"> = getDb()): Promise<void> {
  await db.cluster.update({ where: { id: clusterId }, data: { backupKeyCipher: encryptSecret(key.toString("base64"), secretContexts.clusterBackupKey(clusterId)) } });
}

export type Box = { v: 1; nonce: string; tag: string; data: string };

/**
 * AES-256-GCM under the backup key with a fresh nonce; `context` (what the box is, e.g. its object key)
 * is authenticated too, so a box moved to another name does not open.
 */
export function seal(key: Buffer, plain: Buffer, context: string): Box {
  const nonce = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", key, nonce);
  c.setAAD(Buffer.from(context, "utf8"));
  const data = Buffer.concat([c.update(plain), c.final()]);
  return { v: 1, nonce: nonce.toString("base64"), tag: c.getAuthTag().toString("base64"), data: data.toString("base64") };
}

export class WrongBackupKeyError extends AppError {
  constructor(what: string) {
    super(422, "wrong_backup_key", `${what} does not open with this backup key: it is another cluster's key, or the object was changed`);
  }
}

export function open(key: Buffer, box: Box, context: string, what: string): Buffer {
  try {
    const d = createDecipheriv("aes-256-gcm", key, Buffer.from(box.nonce, "base64"));
    d.setAAD(Buffer.from(context, "utf8"));
    d.setAuthTag(Buffer.from(box.tag, "base64"));
    return Buffer.concat([d.update(Buffer.from(box.data, "base64")), d.final()]);
  } catch {
    throw new WrongBackupKeyError(what);
  }
}
