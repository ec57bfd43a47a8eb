import "server-only";
// etcd snapshots of each cluster: encrypted files in the data directory (backups/<clusterId>/<id>.snapshot),
// one row per snapshot with its sealed data key, checksum, size and etcd revision; the cluster's
// schedule and retention. Why files and not the database: a snapshot is megabytes to gigabytes; as a
// SQLite blob it would be written through the WAL, held whole in memory by the driver, copied into every
// backup of the database, and freed only by a VACUUM. As a file it streams in and out, and retention
// frees the space at once. Only its metadata and key live in the database.
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { recordAudit } from "../audit/record";
import { getDb } from "../db/client";
import type { Tx } from "../db/client";
import { getEnv } from "../env";
import { AppError, notFound } from "../http/errors";
import { scheduleHealth, defaultBackupPolicy, type BackupPolicyBody, type BackupPolicyView, type BackupView } from "./schemas";
import { openSealedReader, verifySealedFile, type SealedFile, type SealedRef } from "./sealed-file";
import { clusterMustExist } from "../clusters/exists";

export const BACKUPS_DIR = "backups";

/** Where a backup's encrypted file lives, relative to the data directory. */
export const backupRelPath = (clusterId: string, backupId: string) => path.join(BACKUPS_DIR, clusterId, `${backupId}.snapshot`);
export const dataPath = (rel: string) => path.join(getEnv().BOOTDECK_DATA_DIR, rel);

export type SnapshotFacts = { member: string; revision: string; totalKeys: number; etcdVersion: string };

/**
 * Records a stored snapshot (idempotent per run: a repeated step replaces its own row), in `db` — the
 * backup run writes it as its lease holder (lib/engine/lease.ts).
 */
export async function recordBackup(input: { id: string; clusterId: string; runId: string | null; trigger: "manual" | "schedule"; createdById?: string | null; sealed: SealedFile; facts: SnapshotFacts }, db: Tx = getDb()): Promise<void> {
  const data = {
    clusterId: input.clusterId,
    runId: input.runId,
    trigger: input.trigger,
    member: input.facts.member,
    file: path.relative(getEnv().BOOTDECK_DATA_DIR, input.sealed.path),
    keyCipher: input.sealed.keyCipher,
    nonce: input.sealed.nonce,
    tag: input.sealed.tag,
    sha256: input.sealed.sha256,
    size: input.sealed.size,
    storedSize: input.sealed.storedSize,
    revision: input.facts.revision,
    totalKeys: input.facts.totalKeys,
    etcdVersion: input.facts.etcdVersion,
    createdById: input.createdById ?? null,
  };
  const previous = input.runId ? await db.backup.findUnique({ where: { runId: input.runId }, select: { id: true, file: true } }) : null;
  if (previous && previous.id !== input.id) {
    await db.backup.delete({ where: { id: previous.id } });
    rmSync(dataPath(previous.file), { force: true });
  }
  await db.backup.upsert({ where: { id: input.id }, create: { id: input.id, ...data }, update: data });
}

type DbBackupRow = Awaited<ReturnType<ReturnType<typeof getDb>["backup"]["findFirstOrThrow"]>>;
/** A stored backup with its sizes as numbers: 64-bit in the database, exact as numbers below 8 PiB. */
export type BackupRow = Omit<DbBackupRow, "size" | "storedSize"> & { size: number; storedSize: number };
const fromDb = (b: DbBackupRow): BackupRow => ({ ...b, size: Number(b.size), storedSize: Number(b.storedSize) });

function view(b: BackupRow, users: Map<string, string>): BackupView {
  const local = existsSync(dataPath(b.file));
  return {
    id: b.id,
    trigger: b.trigger === "schedule" ? "schedule" : "manual",
    member: b.member,
    sha256: b.sha256,
    size: b.size,
    storedSize: b.storedSize,
    revision: b.revision,
    totalKeys: b.totalKeys,
    etcdVersion: b.etcdVersion,
    runId: b.runId,
    createdBy: b.createdById ? (users.get(b.createdById) ?? "a deleted user") : null,
    createdAt: b.createdAt.toISOString(),
    copies: { local, bucket: b.remoteKey && b.remoteWhere && b.remoteAt ? { where: b.remoteWhere, at: b.remoteAt.toISOString() } : null, bucketError: b.remoteKey ? null : b.remoteError },
  };
}

export async function listBackups({ clusterId }: { clusterId: string }): Promise<BackupView[]> {
  const rows = await getDb().backup.findMany({ where: { clusterId }, orderBy: { createdAt: "desc" } });
  const ids = [...new Set(rows.map((r) => r.createdById).filter((x): x is string => !!x))];
  const users = new Map((await getDb().user.findMany({ where: { id: { in: ids } }, select: { id: true, username: true } })).map((u) => [u.id, u.username]));
  return rows.map((r) => view(fromDb(r), users));
}

export async function getBackupOrThrow({ clusterId, backupId }: { clusterId: string; backupId: string }): Promise<BackupRow> {
  const b = await getDb().backup.findFirst({ where: { id: backupId, clusterId } });
  if (!b) throw notFound("Backup");
  return fromDb(b);
}

export const sealedRef = (b: Pick<BackupRow, "id" | "file" | "keyCipher" | "nonce" | "tag">): SealedRef => ({ path: dataPath(b.file), keyCipher: b.keyCipher, nonce: b.nonce, tag: b.tag, backupId: b.id });

/**
 * The plain snapshot after checking it whole: the file authenticates under its key and its content has
 * the checksum and size recorded when it was taken. Throws (nothing is handed out) otherwise.
 */
export async function openVerifiedBackup(b: Pick<BackupRow, "id" | "file" | "keyCipher" | "nonce" | "tag" | "sha256" | "size">): Promise<{ stream: () => ReturnType<typeof openSealedReader>; size: number }> {
  const ref = sealedRef(b);
  const unusable = (message: string) => new AppError(409, "backup_unusable", message);
  if (!existsSync(ref.path)) throw unusable(`the file of backup ${b.id} is missing from the data directory (${b.file}) and no copy of it is in a bucket`);
  let got: { sha256: string; size: number };
  try {
    got = await verifySealedFile(ref);
  } catch (err) {
    throw unusable(`backup ${b.id} does not authenticate under its key (the file was changed or damaged): ${err instanceof Error ? err.message : String(err)}`);
  }
  if (got.sha256 !== b.sha256 || got.size !== b.size) throw unusable(`backup ${b.id} is not what was stored: sha256 ${got.sha256} (${got.size} bytes), expected ${b.sha256} (${b.size} bytes)`);
  return { stream: () => openSealedReader(ref), size: b.size };
}

type PolicyRow = NonNullable<Awaited<ReturnType<ReturnType<typeof getDb>["backupPolicy"]["findUnique"]>>>;

function policyView(p: PolicyRow | null, now = new Date()): BackupPolicyView {
  const base = {
    ...defaultBackupPolicy,
    ...(p ? { enabled: p.enabled, intervalMinutes: p.intervalMinutes, keepLast: p.keepLast, keepDays: p.keepDays } : {}),
    nextDueAt: p?.nextDueAt?.toISOString() ?? null,
    lastAttemptAt: p?.lastAttemptAt?.toISOString() ?? null,
    lastRunId: p?.lastRunId ?? null,
    lastStatus: p?.lastStatus ?? null,
    lastError: p?.lastError ?? null,
    lastSuccessAt: p?.lastSuccessAt?.toISOString() ?? null,
    failures: p?.failures ?? 0,
  };
  return { ...base, health: scheduleHealth({ ...base, enabledSince: p?.updatedAt.toISOString() ?? null }, now) };
}

export async function getBackupPolicy({ clusterId }: { clusterId: string }): Promise<BackupPolicyView> {
  return policyView(await getDb().backupPolicy.findUnique({ where: { clusterId } }));
}

/** Every cluster's schedule health (the fleet list): one query. */
export async function listScheduleHealth(): Promise<Map<string, BackupPolicyView["health"]>> {
  const rows = await getDb().backupPolicy.findMany();
  return new Map(rows.map((r) => [r.clusterId, policyView(r).health]));
}

/** Sets the schedule and retention; the next scheduled snapshot is due one interval from now (or now, when none succeeded yet). */
export async function setBackupPolicy({ clusterId, body, by }: { clusterId: string; body: BackupPolicyBody; by: string }): Promise<BackupPolicyView> {
  const db = getDb();
  await clusterMustExist(clusterId);
  const old = await db.backupPolicy.findUnique({ where: { clusterId } });
  const anchor = old?.lastSuccessAt ?? null;
  const nextDueAt = body.enabled ? new Date(Math.max(Date.now(), (anchor?.getTime() ?? 0) + body.intervalMinutes * 60_000)) : null;
  const changedSchedule = !old || old.enabled !== body.enabled || old.intervalMinutes !== body.intervalMinutes;
  const data = { ...body, updatedBy: by, ...(changedSchedule ? { nextDueAt, ...(body.enabled && !old?.enabled ? { lastStatus: null, lastError: null, failures: 0 } : {}) } : {}) };
  const row = await db.backupPolicy.upsert({ where: { clusterId }, create: { clusterId, ...data, nextDueAt }, update: data });
  return policyView(row);
}

/**
 * The retention rule, for the data directory and the bucket alike: of `items` (newest first) the newest
 * `keepLast` stay (at least one), and older ones go once they are older than `keepDays`.
 */
export function expiredByPolicy<T extends { createdAt: Date }>(items: readonly T[], policy: { keepLast: number; keepDays: number }, now: Date): T[] {
  const cutoff = now.getTime() - policy.keepDays * 86_400_000;
  return items.slice(Math.max(1, policy.keepLast)).filter((r) => r.createdAt.getTime() < cutoff);
}

/**
 * Retention: the newest `keepLast` backups stay; older ones go once they are older than `keepDays`.
 * The newest backup is never deleted. Returns the ids removed (files and rows), each audited.
 */
export async function applyRetention({ clusterId, now = new Date() }: { clusterId: string; now?: Date }): Promise<string[]> {
  const db = getDb();
  const policy = policyView(await db.backupPolicy.findUnique({ where: { clusterId } }));
  const rows = await db.backup.findMany({ where: { clusterId }, orderBy: { createdAt: "desc" }, select: { id: true, file: true, createdAt: true, revision: true } });
  const expired = expiredByPolicy(rows, policy, now);
  for (const r of expired) {
    await db.backup.delete({ where: { id: r.id } });
    rmSync(dataPath(r.file), { force: true });
    await recordAudit({ action: "backup.expire", target: r.id, details: { clusterId, revision: r.revision, createdAt: r.createdAt.toISOString(), keepLast: policy.keepLast, keepDays: policy.keepDays } });
  }
  return expired.map((r) => r.id);
}

/** Files under backups/ that no row refers to (a deleted cluster's, a step that died half-way): removed. */
export async function sweepOrphanBackupFiles(): Promise<string[]> {
  const root = dataPath(BACKUPS_DIR);
  if (!existsSync(root)) return [];
  const known = new Set((await getDb().backup.findMany({ select: { file: true } })).map((b) => path.normalize(b.file)));
  const clusters = new Set((await getDb().cluster.findMany({ select: { id: true } })).map((c) => c.id));
  const removed: string[] = [];
  const hourAgo = Date.now() - 3_600_000;
  for (const dir of readdirSync(root, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    const abs = path.join(root, dir.name);
    if (!clusters.has(dir.name)) {
      rmSync(abs, { recursive: true, force: true });
      removed.push(path.join(BACKUPS_DIR, dir.name));
      continue;
    }
    for (const f of readdirSync(abs, { withFileTypes: true })) {
      const rel = path.join(BACKUPS_DIR, dir.name, f.name);
      if (known.has(rel)) continue;
      // A file being written has a recent time: only leftovers older than an hour go.
      const { mtimeMs } = statSync(path.join(abs, f.name));
      if (mtimeMs > hourAgo) continue;
      rmSync(path.join(abs, f.name), { force: true });
      removed.push(rel);
    }
  }
  return removed;
}

/** A download's file name: the cluster's name, the etcd revision and the time, as etcdutl users expect a .db. */
export async function backupFileName(b: Pick<BackupRow, "clusterId" | "revision" | "createdAt">): Promise<string> {
  const c = await getDb().cluster.findUnique({ where: { id: b.clusterId }, select: { name: true } });
  const when = b.createdAt.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "Z");
  return `${c?.name ?? "cluster"}-etcd-${b.revision}-${when}.db`;
}
