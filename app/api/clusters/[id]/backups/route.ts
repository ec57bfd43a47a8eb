import { recordAudit } from "@/lib/audit/record";
import { startBackupRun } from "@/lib/engine/backup-runs";
import { getBackupPolicy, listBackups } from "@/lib/backups/store";
import { getTargetView } from "@/lib/backups/target";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { scheduleRun } from "@/lib/engine/start";
import { getClusterOrThrow } from "@/lib/clusters/repository";
import { json, route } from "@/lib/http/route";

// GET /api/clusters/:id/backups — the stored snapshots (never their keys) with where each copy is, the schedule with its health, the bucket.
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ params }) => {
  await getClusterOrThrow({ id: params.id });
  return json({ backups: await listBackups({ clusterId: params.id }), policy: await getBackupPolicy({ clusterId: params.id }), target: await getTargetView(params.id) });
});

// POST /api/clusters/:id/backups — take a snapshot now: plans and starts a backup run (admin or lead).
export const POST = route({ permission: "backup:create", params: clusterIdParams }, async ({ params, user, ip }) => {
  const runId = await startBackupRun({ clusterId: params.id, createdById: user.id, trigger: "manual" });
  await recordAudit({ action: "backup.create", userId: user.id, username: user.username, ip, target: runId, details: { clusterId: params.id } });
  await scheduleRun(runId);
  return json({ runId }, { status: 201 });
});
