import { recordAudit } from "@/lib/audit/record";
import { parseBackupKey } from "@/lib/backups/backup-key";
import { importClusterFromBucket } from "@/lib/backups/remote";
import { remoteImportBody } from "@/lib/backups/schemas";
import { targetFromBody } from "@/lib/backups/target";
import { json, readJson, route } from "@/lib/http/route";

// POST /api/backups/remote/import — take a cluster over from its bucket: definition, credentials, assets and its snapshots (admins).
export const POST = route({ permission: "cluster:write" }, async ({ req, user, ip }) => {
  const body = await readJson(req, remoteImportBody, 8192);
  const result = await importClusterFromBucket({ target: targetFromBody(body.target), key: parseBackupKey(body.backupKey), clusterId: body.clusterId, backupId: body.backupId, by: user.username });
  await recordAudit({ action: "backup.import-cluster", userId: user.id, username: user.username, ip, target: result.clusterId, details: { bucket: body.target.bucket, endpoint: body.target.endpoint, fromBackup: result.fromBackup, backups: result.backups } });
  return json(result, { status: 201 });
});
