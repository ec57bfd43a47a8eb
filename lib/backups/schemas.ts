// Backups as the API and the pages see them, the schedule's request body and the rule that says
// whether a schedule is failing. Browser-safe: the cluster page and the fleet list use the same rule.
import { z } from "zod";

export const backupIdParams = z.strictObject({ id: z.string().regex(/^cl_[A-Za-z0-9_-]{16}$/), backupId: z.string().regex(/^bk_[A-Za-z0-9_-]{16}$/) });

/** PUT /api/clusters/:id/backups/policy */
export const backupPolicyBody = z.strictObject({
  enabled: z.boolean(),
  /** Minutes between scheduled snapshots: from 15 minutes to a week. */
  intervalMinutes: z.number().int().min(15, "must be at least 15 minutes").max(7 * 24 * 60, "must be at most a week (10080 minutes)"),
  /** The newest N backups are always kept. */
  keepLast: z.number().int().min(1, "must keep at least one backup").max(1000),
  /** Backups beyond the newest N are deleted once they are older than this many days. */
  keepDays: z.number().int().min(1).max(3650),
});
export type BackupPolicyBody = z.output<typeof backupPolicyBody>;

export const defaultBackupPolicy: BackupPolicyBody = { enabled: false, intervalMinutes: 360, keepLast: 14, keepDays: 30 };

export type BackupView = {
  id: string;
  trigger: "manual" | "schedule";
  member: string;
  sha256: string;
  size: number;
  storedSize: number;
  revision: string;
  totalKeys: number;
  etcdVersion: string;
  runId: string | null;
  createdBy: string | null;
  createdAt: string;
  /** Where its copies are: this dashboard's data directory, and the cluster's bucket. */
  copies: {
    local: boolean;
    /** s3://bucket/key at the endpoint, once verified there; the last upload's error otherwise. */
    bucket: { where: string; at: string } | null;
    bucketError: string | null;
  };
};

const endpointText = z
  .string()
  .max(300)
  .refine((s) => {
    if (s === "") return true;
    try {
      const u = new URL(s);
      return (u.protocol === "https:" || u.protocol === "http:") && !u.username && !u.password && !u.search && !u.hash && (u.pathname === "/" || u.pathname === "");
    } catch {
      return false;
    }
  }, "must be http(s)://host[:port] with no path, or empty for AWS S3");

/** PUT /api/clusters/:id/backups/target — the cluster's S3-compatible bucket. */
export const backupTargetBody = z.strictObject({
  endpoint: endpointText.transform((s) => s.replace(/\/$/, "")),
  region: z.string().regex(/^[a-z0-9-]{1,32}$/, "a region such as us-east-1").default("us-east-1"),
  bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "3 to 63 lower-case letters, digits, dots and hyphens"),
  /** Objects go under <prefix><clusterId>/; a prefix ends with "/" (added when missing). */
  prefix: z
    .string()
    .max(200)
    .regex(/^(?:[A-Za-z0-9!_.*'()-]+\/)*[A-Za-z0-9!_.*'()-]*$/, "letters, digits and !_.*'()- in segments separated by /")
    .refine((s) => !s.split("/").some((seg) => seg === "." || seg === ".."), "no . or .. segments")
    .default("")
    .transform((s) => (s && !s.endsWith("/") ? `${s}/` : s)),
  forcePathStyle: z.boolean().default(true),
  accessKeyId: z.string().regex(/^[\x21-\x7e]{1,128}$/, "1 to 128 printable characters, no spaces"),
  /** Omitted on an update: the stored one is kept. Never sent back. */
  secretAccessKey: z.string().regex(/^[\x21-\x7e]{1,256}$/, "1 to 256 printable characters, no spaces").optional(),
});
export type BackupTargetBody = z.output<typeof backupTargetBody>;

export type TargetTestView = { ok: boolean; problem?: string; message: string; hint?: string; at: string };

/** The target as the pages see it: never the secret key. */
export type BackupTargetView = Omit<BackupTargetBody, "secretAccessKey"> & { secretKeySet: true; lastTest: TargetTestView | null; updatedAt: string; updatedBy: string | null };

/** A bucket and a backup key as a new dashboard is given them, to list and import what the bucket holds. */
export const remoteSourceBody = z.strictObject({
  target: backupTargetBody.required({ secretAccessKey: true }),
  backupKey: z.string().max(200),
});

/** POST /api/backups/remote/import */
export const remoteImportBody = remoteSourceBody.extend({
  clusterId: z.string().regex(/^cl_[A-Za-z0-9_-]{16}$/),
  /** The snapshot whose cluster export (definition, credentials, assets) is imported; the newest when omitted. */
  backupId: z.string().regex(/^bk_[A-Za-z0-9_-]{16}$/).optional(),
});

export type RemoteSnapshotView = { clusterId: string; clusterName: string; backupId: string; createdAt: string; revision: string; size: number; etcdVersion: string; member: string; trigger: string; kubernetesVersion: string };
export type RemoteListView = { snapshots: RemoteSnapshotView[]; unreadable: { key: string; error: string }[] };

export type ScheduleHealth = { state: "off" | "ok" | "failing" | "pending"; message: string };

export type BackupPolicyView = BackupPolicyBody & {
  nextDueAt: string | null;
  lastAttemptAt: string | null;
  lastRunId: string | null;
  lastStatus: string | null;
  lastError: string | null;
  lastSuccessAt: string | null;
  failures: number;
  health: ScheduleHealth;
};

export type BackupsView = { backups: BackupView[]; policy: BackupPolicyView; target: BackupTargetView | null };

const span = (ms: number) => (ms >= 2 * 86_400_000 ? `${Math.round(ms / 86_400_000)} days` : ms >= 2 * 3_600_000 ? `${Math.round(ms / 3_600_000)} hours` : `${Math.max(1, Math.round(ms / 60_000))} minutes`);

/**
 * Whether a schedule is doing its job. Failing: its last scheduled attempt failed or was skipped, or
 * no backup succeeded for two intervals since the schedule was turned on. Pending: on, nothing run yet.
 */
export function scheduleHealth(
  p: Pick<BackupPolicyView, "enabled" | "intervalMinutes" | "lastStatus" | "lastError" | "lastSuccessAt" | "lastAttemptAt" | "failures"> & { enabledSince?: string | null },
  now: Date = new Date(),
): ScheduleHealth {
  if (!p.enabled) return { state: "off", message: "no schedule: backups are taken on demand only" };
  const interval = p.intervalMinutes * 60_000;
  if (p.lastStatus === "failed" || p.lastStatus === "skipped")
    return { state: "failing", message: `the last scheduled backup ${p.lastStatus === "failed" ? "failed" : "could not start"}${p.failures > 1 ? ` (${p.failures} attempts in a row)` : ""}: ${p.lastError ?? "no reason recorded"}` };
  const since = p.lastSuccessAt ?? p.enabledSince ?? null;
  if (since && now.getTime() - new Date(since).getTime() > 2 * interval)
    return { state: "failing", message: p.lastSuccessAt ? `no backup has succeeded for ${span(now.getTime() - new Date(p.lastSuccessAt).getTime())} (the schedule runs every ${span(interval)})` : `no scheduled backup has run for ${span(now.getTime() - new Date(since).getTime())}` };
  if (!p.lastAttemptAt) return { state: "pending", message: `every ${span(interval)}; none taken yet` };
  return { state: "ok", message: `every ${span(interval)}; the last one succeeded` };
}

export const backupQueryKeys = {
  backups: (clusterId: string) => ["clusters", clusterId, "backups"] as const,
  remote: () => ["backups", "remote"] as const,
};
