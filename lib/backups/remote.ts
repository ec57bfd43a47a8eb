import "server-only";
// The cluster's bucket: what a backup puts there, how retention applies to it, and how a new dashboard
// given the bucket and the backup key lists what it holds and takes a cluster over from it.
//
// Layout, under <prefix><clusterId>/ (the stamp first, so that key order is time order):
//   <stamp>-<backupId>.snapshot        the sealed file exactly as the data directory holds it (AES-256-GCM
//                                      under the snapshot's own data key)
//   <stamp>-<backupId>.cluster.json    the cluster's export (definition, SSH credentials, host-key pins,
//                                      the asset set with its CA and keys), sealed with the backup key
//   <stamp>-<backupId>.manifest.json   written last: the snapshot's data key, nonce, tag and facts,
//                                      sealed with the backup key; only ids and the time are in clear
// A set without its manifest is incomplete (an upload died): never listed, removed by retention.
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { recordAudit } from "../audit/record";
import { getDb } from "../db/client";
import { runningAssetSet } from "../db/running-asset-set";
import { AppError, conflict, notFound, unprocessable } from "../http/errors";
import { newId } from "../ids";
import { assetContent } from "../assets/store";
import { decryptSecret, encryptSecret, secretContexts } from "../secrets/cipher";
import { clusterBackupKey, open, seal, setClusterBackupKey, type Box } from "./backup-key";
import type { RemoteListView, RemoteSnapshotView } from "./schemas";
import { deleteObjects, describeTarget, getObjectBuffer, getObjectStream, listObjects, objectUrl, putObject, uploadFile, type S3Target } from "./s3";
import { backupRelPath, dataPath, expiredByPolicy, getBackupPolicy, openVerifiedBackup, type BackupRow } from "./store";
import { loadTarget } from "./target";

const MANIFEST_FORMAT = "bootdeck-backup/1";
const EXPORT_FORMAT = "bootdeck-cluster/1";

const stampOf = (d: Date) => d.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
const clusterDir = (t: Pick<S3Target, "prefix">, clusterId: string) => `${t.prefix}${clusterId}/`;
export const objectKeys = (t: Pick<S3Target, "prefix">, clusterId: string, backupId: string, createdAt: Date) => {
  const base = `${clusterDir(t, clusterId)}${stampOf(createdAt)}-${backupId}`;
  return { snapshot: `${base}.snapshot`, cluster: `${base}.cluster.json`, manifest: `${base}.manifest.json` };
};
const KEY_RE = /^(cl_[A-Za-z0-9_-]{16})\/(\d{8}T\d{6}Z)-(bk_[A-Za-z0-9_-]{16})\.(snapshot|cluster\.json|manifest\.json)$/;
const boxContext = (kind: "manifest" | "cluster", clusterId: string, backupId: string) => `${kind === "manifest" ? MANIFEST_FORMAT : EXPORT_FORMAT} ${clusterId}/${backupId}`;

const boxSchema = z.strictObject({ v: z.literal(1), nonce: z.string().max(64), tag: z.string().max(64), data: z.string().max(64 * 1024 * 1024) });
const manifestSchema = z.strictObject({ format: z.literal(MANIFEST_FORMAT), clusterId: z.string(), backupId: z.string(), createdAt: z.string(), snapshot: z.strictObject({ key: z.string(), storedSize: z.number(), sha256: z.string() }), box: boxSchema });
const manifestSecrets = z.strictObject({
  dataKey: z.string(),
  nonce: z.string(),
  tag: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  size: z.number().int().nonnegative(),
  storedSize: z.number().int().nonnegative(),
  revision: z.string().regex(/^\d{1,20}$/),
  totalKeys: z.number().int().nonnegative(),
  etcdVersion: z.string().max(64),
  member: z.string().max(63),
  trigger: z.enum(["manual", "schedule"]),
  clusterName: z.string().max(63),
  kubernetesVersion: z.string().max(32),
});
type ManifestSecrets = z.output<typeof manifestSecrets>;

const exportSchema = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  cluster: z.strictObject({ id: z.string(), name: z.string(), kubernetesVersion: z.string(), definition: z.string(), revision: z.number().int() }),
  credentials: z.array(z.strictObject({ name: z.string(), kind: z.string(), secret: z.string().nullable(), passphrase: z.string().nullable(), fingerprint: z.string().nullable() })),
  hosts: z.array(z.strictObject({ name: z.string(), address: z.string(), sshPort: z.number().int(), role: z.string(), position: z.number().int(), hostKeyFingerprint: z.string().nullable(), facts: z.string().nullable() })),
  assetSet: z.strictObject({ version: z.number().int(), options: z.string(), notAfter: z.string().nullable(), assets: z.array(z.strictObject({ path: z.string(), mode: z.number().int(), sensitive: z.boolean(), content: z.string(), sha256: z.string(), size: z.number().int(), purpose: z.string() })) }).nullable(),
  policy: z.strictObject({ intervalMinutes: z.number().int(), keepLast: z.number().int(), keepDays: z.number().int() }),
});
type ClusterExport = z.output<typeof exportSchema>;

/** What a new dashboard needs to take the cluster over: everything of it but its runs and its history, secrets opened (the whole is sealed with the backup key). */
async function clusterExport(clusterId: string): Promise<ClusterExport> {
  const db = getDb();
  const c = await db.cluster.findUniqueOrThrow({ where: { id: clusterId }, include: { credentials: true, hosts: true } });
  const setId = await runningAssetSet(clusterId);
  const set = setId ? await db.assetSet.findUnique({ where: { id: setId }, include: { assets: true } }) : null;
  const policy = await getBackupPolicy({ clusterId });
  return {
    format: EXPORT_FORMAT,
    cluster: { id: c.id, name: c.name, kubernetesVersion: c.kubernetesVersion, definition: c.definition, revision: c.revision },
    credentials: c.credentials.map((k) => ({ name: k.name, kind: k.kind, secret: k.secretCipher ? decryptSecret(k.secretCipher, secretContexts.credential(c.id, k.name, "secretCipher")) : null, passphrase: k.passphraseCipher ? decryptSecret(k.passphraseCipher, secretContexts.credential(c.id, k.name, "passphraseCipher")) : null, fingerprint: k.fingerprint })),
    hosts: c.hosts.map((h) => ({ name: h.name, address: h.address, sshPort: h.sshPort, role: h.role, position: h.position, hostKeyFingerprint: h.hostKeyFingerprint, facts: h.facts })),
    assetSet: set
      ? { version: set.version, options: set.options, notAfter: set.notAfter?.toISOString() ?? null, assets: set.assets.map((a) => ({ path: a.path, mode: a.mode, sensitive: a.sensitive, content: assetContent(a), sha256: a.sha256, size: a.size, purpose: a.purpose })) }
      : null,
    policy: { intervalMinutes: policy.intervalMinutes, keepLast: policy.keepLast, keepDays: policy.keepDays },
  };
}

export type CopyProgress = (message: string) => void;

/**
 * Copies a stored backup to the cluster's bucket: the sealed snapshot (verified there), the cluster's
 * export, then the manifest; records where the copy is; then retention in the bucket. Repeatable: the
 * same keys are written again.
 */
export async function copyBackupToBucket({ backupId, progress = () => undefined, signal }: { backupId: string; progress?: CopyProgress; signal?: AbortSignal }): Promise<{ where: string; verifiedBy: string; seconds: number; expired: string[] }> {
  const db = getDb();
  const b = await db.backup.findUnique({ where: { id: backupId } });
  if (!b) throw notFound("Backup");
  const t = await loadTarget(b.clusterId);
  if (!t) throw unprocessable("the cluster has no backup target: set one on the cluster page (or bootdeck backup target)");
  const key = await clusterBackupKey(b.clusterId);
  const keys = objectKeys(t, b.clusterId, b.id, b.createdAt);
  const cluster = await db.cluster.findUniqueOrThrow({ where: { id: b.clusterId }, select: { name: true, kubernetesVersion: true } });
  const started = Date.now();
  try {
    const storedSize = Number(b.storedSize);
    let last = 0;
    const up = await uploadFile(t, keys.snapshot, dataPath(b.file), storedSize, {
      signal,
      onProgress: (sent, total) => {
        if (Date.now() - last < 2_000 && sent < total) return;
        last = Date.now();
        progress(`uploading to ${objectUrl(t, keys.snapshot)}: ${Math.floor((100 * sent) / Math.max(1, total))}% (${sent} of ${total} bytes)`);
      },
    });
    progress(`${objectUrl(t, keys.snapshot)} verified (${up.verifiedBy === "etag" ? `ETag ${up.etag}` : "read back"}); writing the cluster's export and the manifest`);
    const exported = Buffer.from(JSON.stringify(await clusterExport(b.clusterId)), "utf8");
    await putObject(t, keys.cluster, JSON.stringify(seal(key, exported, boxContext("cluster", b.clusterId, b.id))));
    const secrets: ManifestSecrets = {
      dataKey: decryptSecret(b.keyCipher, secretContexts.backupKey(b.id)),
      nonce: b.nonce,
      tag: b.tag,
      sha256: b.sha256,
      size: Number(b.size),
      storedSize,
      revision: b.revision,
      totalKeys: b.totalKeys,
      etcdVersion: b.etcdVersion,
      member: b.member,
      trigger: b.trigger === "schedule" ? "schedule" : "manual",
      clusterName: cluster.name,
      kubernetesVersion: cluster.kubernetesVersion,
    };
    const manifest = { format: MANIFEST_FORMAT, clusterId: b.clusterId, backupId: b.id, createdAt: b.createdAt.toISOString(), snapshot: { key: keys.snapshot, storedSize, sha256: up.sha256 }, box: seal(key, Buffer.from(JSON.stringify(secrets), "utf8"), boxContext("manifest", b.clusterId, b.id)) };
    await putObject(t, keys.manifest, JSON.stringify(manifest));
    const where = `${objectUrl(t, keys.snapshot)} at ${t.endpoint || `AWS S3 (${t.region})`}`;
    await db.backup.update({ where: { id: b.id }, data: { remoteKey: keys.snapshot, remoteWhere: where, remoteEtag: up.etag, remoteAt: new Date(), remoteError: null } });
    let expired: string[];
    try {
      expired = await applyBucketRetention(b.clusterId, t);
    } catch (err) {
      throw new AppError(422, "bucket_retention", `backup ${b.id} is in the bucket and verified, but retention there failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { where, verifiedBy: up.verifiedBy, seconds: (Date.now() - started) / 1000, expired };
  } catch (err) {
    if (!(err instanceof AppError && err.code === "bucket_retention"))
      await db.backup.update({ where: { id: b.id }, data: { remoteError: (err instanceof Error ? err.message : String(err)).slice(0, 500) } }).catch(() => undefined);
    throw err;
  }
}

type RemoteSet = { backupId: string; createdAt: Date; keys: string[]; complete: boolean };

/** The cluster's objects in the bucket, grouped per backup, newest first. */
async function remoteSets(t: S3Target, clusterId: string): Promise<RemoteSet[]> {
  const sets = new Map<string, RemoteSet>();
  for (const o of await listObjects(t, clusterDir(t, clusterId))) {
    const m = KEY_RE.exec(o.key.slice(t.prefix.length));
    if (!m || m[1] !== clusterId) continue;
    const s = sets.get(m[3]!) ?? { backupId: m[3]!, createdAt: new Date(m[2]!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, "$1-$2-$3T$4:$5:$6Z")), keys: [], complete: false };
    s.keys.push(o.key);
    if (m[4] === "manifest.json") s.complete = true;
    sets.set(m[3]!, s);
  }
  return [...sets.values()].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

/**
 * Retention in the bucket: the cluster's policy over the complete sets there (the newest `keepLast`
 * stay, older ones go after `keepDays`, never the newest); incomplete sets older than a day go too.
 * The manifest goes first, so a set half deleted is never listed as a snapshot.
 */
export async function applyBucketRetention(clusterId: string, t: S3Target, now = new Date()): Promise<string[]> {
  const policy = await getBackupPolicy({ clusterId });
  const sets = await remoteSets(t, clusterId);
  const complete = sets.filter((s) => s.complete);
  const expired = new Set(expiredByPolicy(complete, policy, now).map((s) => s.backupId));
  const stale = sets.filter((s) => !s.complete && now.getTime() - s.createdAt.getTime() > 86_400_000);
  const gone: string[] = [];
  for (const s of [...complete.filter((x) => expired.has(x.backupId)), ...stale]) {
    await deleteObjects(t, [...s.keys].sort((a, b) => Number(b.endsWith(".manifest.json")) - Number(a.endsWith(".manifest.json"))));
    gone.push(s.backupId);
    await getDb().backup.updateMany({ where: { id: s.backupId, clusterId }, data: { remoteKey: null, remoteWhere: null, remoteEtag: null, remoteAt: null } });
    if (s.complete) await recordAudit({ action: "backup.expire-remote", target: s.backupId, details: { clusterId, bucket: t.bucket, keepLast: policy.keepLast, keepDays: policy.keepDays } });
  }
  return gone;
}

type OpenedManifest = { clusterId: string; backupId: string; createdAt: Date; snapshotKey: string; secrets: ManifestSecrets; manifestKey: string };

async function readManifest(t: S3Target, key: Buffer, manifestKey: string): Promise<OpenedManifest> {
  let parsed: z.output<typeof manifestSchema>;
  try {
    parsed = manifestSchema.parse(JSON.parse((await getObjectBuffer(t, manifestKey, 1024 * 1024)).toString("utf8")));
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw unprocessable(`${objectUrl(t, manifestKey)} is not a Bootdeck backup manifest`);
  }
  const secrets = manifestSecrets.parse(JSON.parse(open(key, parsed.box, boxContext("manifest", parsed.clusterId, parsed.backupId), objectUrl(t, manifestKey)).toString("utf8")));
  return { clusterId: parsed.clusterId, backupId: parsed.backupId, createdAt: new Date(parsed.createdAt), snapshotKey: parsed.snapshot.key, secrets, manifestKey };
}

/** Every manifest under the prefix that opens with the key; the others counted per cluster (another cluster's key). */
async function readManifests(t: S3Target, key: Buffer, onlyCluster?: string): Promise<{ opened: OpenedManifest[]; unreadable: { key: string; error: string }[] }> {
  const listed = await listObjects(t, onlyCluster ? clusterDir(t, onlyCluster) : t.prefix);
  const manifests = listed.filter((o) => KEY_RE.exec(o.key.slice(t.prefix.length))?.[4] === "manifest.json");
  const opened: OpenedManifest[] = [];
  const unreadable: { key: string; error: string }[] = [];
  for (const m of manifests) {
    try {
      opened.push(await readManifest(t, key, m.key));
    } catch (err) {
      unreadable.push({ key: m.key, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return { opened: opened.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()), unreadable };
}

/** What the bucket holds that this backup key opens: the snapshots, newest first. */
export async function listRemoteSnapshots(t: S3Target, key: Buffer): Promise<RemoteListView> {
  const { opened, unreadable } = await readManifests(t, key);
  const snapshots: RemoteSnapshotView[] = opened.map((m) => ({
    clusterId: m.clusterId,
    clusterName: m.secrets.clusterName,
    backupId: m.backupId,
    createdAt: m.createdAt.toISOString(),
    revision: m.secrets.revision,
    size: m.secrets.size,
    etcdVersion: m.secrets.etcdVersion,
    member: m.secrets.member,
    trigger: m.secrets.trigger,
    kubernetesVersion: m.secrets.kubernetesVersion,
  }));
  return { snapshots, unreadable };
}

/**
 * Takes a cluster over from its bucket on this dashboard: its definition, SSH credentials, host-key
 * pins and asset set from the export beside `backupId` (the newest snapshot when omitted), the target
 * and the backup key, and one backup row per snapshot in the bucket (their files are fetched when a
 * restore or a download needs them). The schedule comes over switched off: turn it on once the old
 * dashboard is gone, or two dashboards back up one cluster into one bucket.
 */
export async function importClusterFromBucket(input: { target: S3Target; key: Buffer; clusterId: string; backupId?: string; by: string }): Promise<{ clusterId: string; name: string; backups: number; fromBackup: string }> {
  const { target: t, key, clusterId } = input;
  const db = getDb();
  const { opened } = await readManifests(t, key, clusterId);
  const mine = opened.filter((m) => m.clusterId === clusterId);
  if (!mine.length) throw notFound(`A snapshot of cluster ${clusterId} that opens with this backup key in ${describeTarget(t)} under "${t.prefix}"`);
  const from = input.backupId ? mine.find((m) => m.backupId === input.backupId) : mine[0];
  if (!from) throw notFound(`Snapshot ${input.backupId} of cluster ${clusterId} in the bucket`);
  const exportKey = objectKeys(t, clusterId, from.backupId, from.createdAt).cluster;
  const box = boxSchema.parse(JSON.parse((await getObjectBuffer(t, exportKey, 64 * 1024 * 1024)).toString("utf8")));
  const exp = exportSchema.parse(JSON.parse(open(key, box as Box, boxContext("cluster", clusterId, from.backupId), objectUrl(t, exportKey)).toString("utf8")));
  if (exp.cluster.id !== clusterId) throw unprocessable(`${objectUrl(t, exportKey)} holds cluster ${exp.cluster.id}, not ${clusterId}`);
  if (await db.cluster.findUnique({ where: { id: clusterId }, select: { id: true } })) throw conflict(`This dashboard has cluster ${clusterId} already`);
  if (await db.cluster.findUnique({ where: { name: exp.cluster.name }, select: { id: true } })) throw conflict(`A cluster named "${exp.cluster.name}" exists on this dashboard already; rename or delete it first`);
  await db.$transaction(
    async (tx) => {
      await tx.cluster.create({ data: { id: clusterId, name: exp.cluster.name, kubernetesVersion: exp.cluster.kubernetesVersion, definition: exp.cluster.definition, revision: exp.cluster.revision } });
      await setClusterBackupKey(clusterId, key, tx);
      for (const c of exp.credentials)
        await tx.credential.create({ data: { id: newId("cred"), clusterId, name: c.name, kind: c.kind, secretCipher: c.secret === null ? null : encryptSecret(c.secret, secretContexts.credential(clusterId, c.name, "secretCipher")), passphraseCipher: c.passphrase === null ? null : encryptSecret(c.passphrase, secretContexts.credential(clusterId, c.name, "passphraseCipher")), fingerprint: c.fingerprint } });
      await tx.host.createMany({ data: exp.hosts.map((h) => ({ id: newId("host"), clusterId, ...h })) });
      if (exp.assetSet) {
        const setId = newId("as");
        await tx.assetSet.create({ data: { id: setId, clusterId, version: exp.assetSet.version, options: exp.assetSet.options, notAfter: exp.assetSet.notAfter ? new Date(exp.assetSet.notAfter) : null } });
        await tx.asset.createMany({
          data: exp.assetSet.assets.map((a) => {
            const id = newId("ast");
            return { id, assetSetId: setId, ...a, content: a.sensitive ? encryptSecret(a.content, secretContexts.asset(id)) : a.content };
          }),
        });
      }
      await tx.backupPolicy.create({ data: { clusterId, enabled: false, ...exp.policy, updatedBy: input.by } });
      await tx.backupTarget.create({ data: { clusterId, endpoint: t.endpoint, region: t.region, bucket: t.bucket, prefix: t.prefix, forcePathStyle: t.forcePathStyle, accessKeyId: t.accessKeyId, secretKeyCipher: encryptSecret(t.secretAccessKey, secretContexts.bucketSecret(clusterId)), updatedBy: input.by } });
      for (const m of mine) {
        const s = m.secrets;
        await tx.backup.create({
          data: {
            id: m.backupId,
            clusterId,
            trigger: s.trigger,
            member: s.member,
            file: backupRelPath(clusterId, m.backupId),
            keyCipher: encryptSecret(s.dataKey, secretContexts.backupKey(m.backupId)),
            nonce: s.nonce,
            tag: s.tag,
            sha256: s.sha256,
            size: BigInt(s.size),
            storedSize: BigInt(s.storedSize),
            revision: s.revision,
            totalKeys: s.totalKeys,
            etcdVersion: s.etcdVersion,
            createdAt: m.createdAt,
            remoteKey: m.snapshotKey,
            remoteWhere: `${objectUrl(t, m.snapshotKey)} at ${t.endpoint || `AWS S3 (${t.region})`}`,
            remoteAt: m.createdAt,
          },
        });
      }
    },
    { timeout: 60_000 },
  );
  return { clusterId, name: exp.cluster.name, backups: mine.length, fromBackup: from.backupId };
}

const fetching = new Map<string, Promise<void>>();

/**
 * A backup known only from the bucket (a cluster taken over from it, or a local file lost) gets its
 * file back: the object streamed into the data directory as it is (written beside, then renamed). The
 * caller checks it whole (openVerifiedBackup): it must authenticate under its data key and match the
 * recorded checksum and size. One fetch per backup at a time in this process.
 */
export async function ensureLocalCopy(b: Pick<BackupRow, "id" | "clusterId" | "file" | "remoteKey" | "storedSize">, progress: CopyProgress = () => undefined): Promise<void> {
  const file = dataPath(b.file);
  if (existsSync(file)) return;
  if (!b.remoteKey) return;
  const running = fetching.get(b.id);
  if (running) return running;
  const job = (async () => {
    const t = await loadTarget(b.clusterId);
    if (!t) throw new AppError(409, "backup_unusable", `backup ${b.id} is only in a bucket, and the cluster has no backup target any more to fetch it from`);
    const started = Date.now();
    progress(`fetching backup ${b.id} from ${objectUrl(t, b.remoteKey!)} (${b.storedSize} bytes)`);
    const obj = await getObjectStream(t, b.remoteKey!);
    const part = `${file}.part-${randomBytes(4).toString("hex")}`;
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      await pipeline(obj.body, createWriteStream(part, { mode: 0o600 }));
      renameSync(part, file);
    } catch (err) {
      rmSync(part, { force: true });
      throw new AppError(502, "backup_fetch_failed", `fetching backup ${b.id} from ${objectUrl(t, b.remoteKey!)} failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      obj.release();
    }
    progress(`backup ${b.id} fetched from the bucket in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  })();
  fetching.set(b.id, job);
  try {
    await job;
  } finally {
    fetching.delete(b.id);
  }
}

/** A backup's plain snapshot, checked whole: fetched from the bucket first when the file is not here. */
export async function fetchAndOpenBackup(b: BackupRow, progress?: CopyProgress): ReturnType<typeof openVerifiedBackup> {
  await ensureLocalCopy(b, progress);
  return openVerifiedBackup(b);
}
