import "server-only";
// Scheduled backups. Every engine process ticks (every 30 s): a cluster whose schedule is due is
// claimed with a guarded update (so one process of many starts it), its backup run is planned and
// started (any worker executes it), and the outcome of the run it started last is written back to the
// schedule — a failure, or a backup that could not start because another run held the cluster, is
// counted and shown until a backup succeeds. Leftover files are swept on the same tick.
import { recordAudit } from "../audit/record";
import { getDb } from "../db/client";
import { scheduleRun } from "./schedule-run";
import { AppError } from "../http/errors";
import { notifyBackupFailing } from "./notification-checks";
import { startBackupRun } from "./backup-runs";
import { sweepOrphanBackupFiles } from "../backups/store";

const TICK_MS = 30_000;
/** A backup that could not start (another run held the cluster) is tried again this much later. */
export const SKIP_RETRY_MS = 5 * 60_000;

/** A notification that could not be queued is logged; the schedule goes on with the other clusters. */
const notifyFailed = (err: unknown) => console.error("[bootdeck backups] could not queue the backup.failing notification:", err);

/** Writes the outcome of each schedule's last run once it has finished. */
export async function reconcileScheduledRuns(): Promise<void> {
  const db = getDb();
  const waiting = await db.backupPolicy.findMany({ where: { lastStatus: "running", lastRunId: { not: null } } });
  for (const p of waiting) {
    const run = await db.run.findUnique({ where: { id: p.lastRunId! }, select: { status: true, summary: true, finishedAt: true } });
    if (run && !["succeeded", "failed", "needs-decision", "cancelled"].includes(run.status)) continue;
    const ok = run?.status === "succeeded";
    const error = !run ? "its run was deleted" : ok ? null : await runError(p.lastRunId!, run.status, run.summary);
    await db.backupPolicy.updateMany({
      where: { clusterId: p.clusterId, lastRunId: p.lastRunId, lastStatus: "running" },
      data: ok ? { lastStatus: "succeeded", lastError: null, lastSuccessAt: run.finishedAt ?? new Date(), failures: 0 } : { lastStatus: "failed", lastError: error, failures: { increment: 1 } },
    });
    if (!ok) {
      await recordAudit({ action: "backup.schedule-failed", target: p.lastRunId!, details: { clusterId: p.clusterId, error } });
      await notifyBackupFailing({ clusterId: p.clusterId, outcome: "failed", error: error ?? "failed", runId: p.lastRunId }).catch(notifyFailed);
    }
  }
}

async function runError(runId: string, status: string, summary: string | null): Promise<string> {
  const failed = await getDb().step.findFirst({ where: { runId, status: "failed" }, select: { error: true } });
  if (failed?.error) return failed.error.slice(0, 500);
  const message = summary ? (JSON.parse(summary) as { message?: string }).message : undefined;
  return `the backup run ${status}${message ? `: ${message}` : ""}`;
}

/** Starts the backups that are due; returns the runs started. */
export async function startDueBackups(now = new Date()): Promise<string[]> {
  const db = getDb();
  const due = await db.backupPolicy.findMany({ where: { enabled: true, nextDueAt: { lte: now }, OR: [{ lastStatus: null }, { lastStatus: { not: "running" } }] } });
  const started: string[] = [];
  for (const p of due) {
    // Claim: only the process whose update matches the old due time goes on.
    const next = new Date(now.getTime() + p.intervalMinutes * 60_000);
    const claimed = await db.backupPolicy.updateMany({ where: { clusterId: p.clusterId, nextDueAt: p.nextDueAt, enabled: true }, data: { nextDueAt: next, lastAttemptAt: now } });
    if (claimed.count === 0) continue;
    try {
      const runId = await startBackupRun({ clusterId: p.clusterId, trigger: "schedule" });
      await db.backupPolicy.update({ where: { clusterId: p.clusterId }, data: { lastRunId: runId, lastStatus: "running" } });
      await recordAudit({ action: "backup.schedule-run", target: runId, details: { clusterId: p.clusterId, intervalMinutes: p.intervalMinutes } });
      started.push(runId);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const busy = err instanceof AppError && err.status === 409;
      await db.backupPolicy.update({
        where: { clusterId: p.clusterId },
        data: { lastStatus: busy ? "skipped" : "failed", lastError: message.slice(0, 500), failures: { increment: 1 }, ...(busy ? { nextDueAt: new Date(now.getTime() + SKIP_RETRY_MS) } : {}) },
      });
      await recordAudit({ action: "backup.schedule-failed", target: p.clusterId, details: { clusterId: p.clusterId, error: message.slice(0, 500), skipped: busy } });
      await notifyBackupFailing({ clusterId: p.clusterId, outcome: busy ? "skipped" : "failed", error: message.slice(0, 500), runId: null, at: now }).catch(notifyFailed);
    }
  }
  return started;
}

export async function backupSchedulerTick(now = new Date()): Promise<void> {
  await reconcileScheduledRuns();
  // Started runs go to the workers: this process's engine (SQLite), or the queue (PostgreSQL).
  for (const runId of await startDueBackups(now)) await scheduleRun(runId);
  await sweepOrphanBackupFiles();
}

const holder = globalThis as unknown as { bootdeckBackupScheduler?: NodeJS.Timeout };

/** Starts the tick in this process (once); its timer does not keep the process alive. */
export function startBackupScheduler(): void {
  if (holder.bootdeckBackupScheduler) return;
  const tick = () => void backupSchedulerTick().catch((err: unknown) => console.error("[bootdeck backups] schedule tick failed:", err));
  holder.bootdeckBackupScheduler = setInterval(tick, TICK_MS);
  holder.bootdeckBackupScheduler.unref();
  tick();
}

export function stopBackupScheduler(): void {
  clearInterval(holder.bootdeckBackupScheduler);
  holder.bootdeckBackupScheduler = undefined;
}
