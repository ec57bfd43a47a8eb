import "server-only";
// The backup run's action: an etcd snapshot on a healthy member, streamed back and stored encrypted
// (lib/backups), then retention. Safe to repeat: a repeated step takes a new snapshot and replaces the
// row (and file) its run stored before.
import { backupRelPath, dataPath, recordBackup, applyRetention } from "../../backups/store";
import { openSealedWriter, type SealedWriter } from "../../backups/sealed-file";
import { copyBackupToBucket } from "../../backups/remote";
import { S3Error } from "../../backups/s3";
import { AppError } from "../../http/errors";
import { getDb } from "../../db/client";
import { parseSnapshotReport } from "./dr-scripts";
import { runPlanned } from "./bootstrap";
import { plannedExec, plannedExecs, type Action, type ActionContext, type ActionOutcome } from "./types";

const MiB = 1024 * 1024;
export const formatBytes = (n: number) => (n >= MiB ? `${(n / MiB).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

/** The masters named by the step's "save" commands, in the planned order. */
function plannedMembers(ctx: ActionContext): string[] {
  return plannedExecs(ctx, "save").map((e) => e.host ?? "");
}

async function snapshotFrom(ctx: ActionContext, member: string, clusterId: string, backupId: string): Promise<{ summary: string; data: Record<string, unknown> }> {
  const send = (id: string, extra: { stdoutTo?: NodeJS.WritableStream } = {}) => runPlanned(ctx, plannedExec(ctx, id, member), { allowFailure: true, quiet: true, ...extra });
  const saved = await send("save");
  if (saved.exitCode !== 0) throw new Error(saved.stderrTail.slice(-4).join("; ") || `exit ${saved.exitCode}`);
  const report = parseSnapshotReport(saved.stdout.toString("utf8"));
  await ctx.emit("step.progress", { key: ctx.planned.key, message: `snapshot saved on ${member}: revision ${report.revision}, ${formatBytes(report.size)}; streaming it back` });
  let writer: SealedWriter | undefined = openSealedWriter(dataPath(backupRelPath(clusterId, backupId)), backupId);
  const started = Date.now();
  try {
    const fetched = await send("fetch", { stdoutTo: writer.stream });
    if (fetched.exitCode !== 0) throw new Error(`reading the snapshot failed: ${fetched.stderrTail.slice(-3).join("; ")}`);
    const sealed = await writer.finish();
    writer = undefined;
    if (sealed.sha256 !== report.sha256 || sealed.size !== report.size)
      throw new Error(`the snapshot arrived changed: ${sealed.size} bytes with sha256 ${sealed.sha256}, the host has ${report.size} bytes with sha256 ${report.sha256}`);
    await send("discard");
    const run0 = await getDb().run.findUniqueOrThrow({ where: { id: ctx.runId }, select: { createdById: true } });
    const trigger = ctx.planned.params?.trigger === "schedule" ? "schedule" : "manual";
    // Recorded as the run's lease holder: a worker that lost the run records nothing.
    await ctx.store((tx) => recordBackup({ id: backupId, clusterId, runId: ctx.runId, trigger, createdById: run0.createdById, sealed, facts: { member, revision: report.revision, totalKeys: report.totalKeys, etcdVersion: report.etcdVersion } }, tx));
    const expired = await applyRetention({ clusterId });
    const seconds = (Date.now() - started) / 1000;
    return {
      summary: `backup ${backupId} from ${member}: etcd revision ${report.revision}, ${report.totalKeys} keys, ${formatBytes(report.size)} (sha256 ${report.sha256.slice(0, 12)}…), streamed in ${seconds.toFixed(1)} s, stored encrypted${expired.length ? `; retention removed ${expired.length} older backup${expired.length === 1 ? "" : "s"}` : ""}`,
      data: { backupId, member, revision: report.revision, size: report.size, sha256: report.sha256, totalKeys: report.totalKeys, fetchSeconds: seconds, expired },
    };
  } catch (err) {
    await writer?.abort();
    await send("discard").catch(() => undefined);
    throw err;
  }
}

export const backupActions: Record<string, Action> = {
  /** The stored snapshot copied to the cluster's bucket, verified there, then retention in the bucket. */
  async "backup-upload"(ctx): Promise<ActionOutcome> {
    const backupId = ctx.planned.params?.backupId;
    if (!backupId) return { ok: false, error: "the plan names no backup id; plan the run again" };
    try {
      const r = await copyBackupToBucket({ backupId, signal: ctx.signal, progress: (message) => void ctx.emit("step.progress", { key: ctx.planned.key, message }).catch(() => undefined) });
      return {
        ok: true,
        summary: `backup ${backupId} copied to ${r.where} in ${r.seconds.toFixed(1)} s, verified (${r.verifiedBy === "etag" ? "the bucket's ETag is the one computed here" : "read back and hashed"})${r.expired.length ? `; retention removed ${r.expired.length} older cop${r.expired.length === 1 ? "y" : "ies"} from the bucket` : ""}`,
        data: { backupId, where: r.where, verifiedBy: r.verifiedBy, expiredRemote: r.expired },
      };
    } catch (err) {
      const hint = err instanceof S3Error ? err.hint : undefined;
      const retention = err instanceof AppError && err.code === "bucket_retention";
      const text = err instanceof S3Error ? err.what : err instanceof Error ? err.message : String(err);
      return { ok: false, error: retention ? text : `copying backup ${backupId} to the bucket failed: ${text}`, hint: `${hint ? `${hint}; ` : ""}the snapshot is stored on this dashboard; "Test the target" on the cluster page checks the bucket, then retry this run` };
    }
  },

  /** Snapshot etcd on the first healthy master of the planned ones, stream it back, store it encrypted, apply retention. */
  async "etcd-snapshot"(ctx): Promise<ActionOutcome> {
    const backupId = ctx.planned.params?.backupId;
    if (!backupId) return { ok: false, error: "the plan names no backup id; plan the run again" };
    const { clusterId } = await getDb().run.findUniqueOrThrow({ where: { id: ctx.runId }, select: { clusterId: true } });
    const errors: string[] = [];
    for (const member of plannedMembers(ctx)) {
      if (ctx.signal.aborted) break;
      try {
        const r = await snapshotFrom(ctx, member, clusterId, backupId);
        return { ok: true, summary: `${r.summary}${errors.length ? ` (skipped: ${errors.join("; ")})` : ""}`, data: r.data };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        errors.push(`${member}: ${message}`);
        await ctx.emit("step.progress", { key: ctx.planned.key, message: `no snapshot from ${member}: ${message}` });
      }
    }
    return {
      ok: false,
      error: `no master could take a snapshot: ${errors.join("; ") || "cancelled"}`,
      hint: "a snapshot needs one healthy etcd member; check the etcd pods on the masters (crictl ps --name etcd) and their logs",
    };
  },
};
