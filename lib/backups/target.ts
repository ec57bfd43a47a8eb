import "server-only";
// Each cluster's off-machine target: an S3-compatible bucket. The secret key is sealed with the master
// key and used only here and by the engine; the pages get the settings and the last test's outcome.
import { randomBytes } from "node:crypto";
import { getDb } from "../db/client";
import { notFound, unprocessable } from "../http/errors";
import { decryptSecret, encryptSecret, secretContexts } from "../secrets/cipher";
import type { BackupTargetBody, BackupTargetView, TargetTestView } from "./schemas";
import { testTarget, type S3Target } from "./s3";
import { clusterMustExist } from "../clusters/exists";

type TargetRow = NonNullable<Awaited<ReturnType<ReturnType<typeof getDb>["backupTarget"]["findUnique"]>>>;

function view(r: TargetRow): BackupTargetView {
  return {
    endpoint: r.endpoint,
    region: r.region,
    bucket: r.bucket,
    prefix: r.prefix,
    forcePathStyle: r.forcePathStyle,
    accessKeyId: r.accessKeyId,
    secretKeySet: true,
    lastTest: r.lastTestAt ? { ok: !!r.lastTestOk, message: r.lastTestMessage ?? "", at: r.lastTestAt.toISOString() } : null,
    updatedAt: r.updatedAt.toISOString(),
    updatedBy: r.updatedBy,
  };
}

export async function getTargetView(clusterId: string): Promise<BackupTargetView | null> {
  const r = await getDb().backupTarget.findUnique({ where: { clusterId } });
  return r ? view(r) : null;
}

/** The target with its secret key opened, for the engine and the tests of it; undefined when none is set. */
export async function loadTarget(clusterId: string): Promise<S3Target | undefined> {
  const r = await getDb().backupTarget.findUnique({ where: { clusterId } });
  return r ? { endpoint: r.endpoint, region: r.region, bucket: r.bucket, prefix: r.prefix, forcePathStyle: r.forcePathStyle, accessKeyId: r.accessKeyId, secretAccessKey: decryptSecret(r.secretKeyCipher, secretContexts.bucketSecret(clusterId)) } : undefined;
}

/** Sets the target; a missing secret key keeps the stored one (there must be one). */
export async function setTarget({ clusterId, body, by }: { clusterId: string; body: BackupTargetBody; by: string }): Promise<BackupTargetView> {
  const db = getDb();
  await clusterMustExist(clusterId);
  const old = await db.backupTarget.findUnique({ where: { clusterId }, select: { secretKeyCipher: true } });
  if (!body.secretAccessKey && !old) throw unprocessable("the secret key is required the first time a target is set");
  const { secretAccessKey, endpoint, region, bucket, prefix, forcePathStyle, accessKeyId } = body;
  const data = { endpoint, region, bucket, prefix, forcePathStyle, accessKeyId, secretKeyCipher: secretAccessKey ? encryptSecret(secretAccessKey, secretContexts.bucketSecret(clusterId)) : old!.secretKeyCipher, updatedBy: by, lastTestAt: null, lastTestOk: null, lastTestMessage: null };
  return view(await db.backupTarget.upsert({ where: { clusterId }, create: { clusterId, ...data }, update: data }));
}

export async function removeTarget(clusterId: string): Promise<boolean> {
  return (await getDb().backupTarget.deleteMany({ where: { clusterId } })).count > 0;
}

/** The object a test writes and deletes again: under the cluster's directory, named so nothing else matches it. */
export const probeKey = (clusterId: string) => `${clusterId}/.bootdeck-probe-${randomBytes(6).toString("hex")}`;

/** Tests the stored target (list, write and delete a probe) and keeps the outcome to show. */
export async function testStoredTarget(clusterId: string): Promise<TargetTestView> {
  const t = await loadTarget(clusterId);
  if (!t) throw notFound("Backup target");
  const r = await testTarget(t, probeKey(clusterId));
  const at = new Date();
  const message = r.ok ? r.message : `${r.message}. ${r.hint}`;
  await getDb().backupTarget.updateMany({ where: { clusterId }, data: { lastTestAt: at, lastTestOk: r.ok, lastTestMessage: message.slice(0, 1000) } });
  return r.ok ? { ok: true, message: r.message, at: at.toISOString() } : { ok: false, problem: r.problem, message: r.message, hint: r.hint, at: at.toISOString() };
}

export const targetFromBody = (body: BackupTargetBody & { secretAccessKey: string }): S3Target => ({ ...body, secretAccessKey: body.secretAccessKey });
