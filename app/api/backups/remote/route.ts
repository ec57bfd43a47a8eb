import { recordAudit } from "@/lib/audit/record";
import { parseBackupKey } from "@/lib/backups/backup-key";
import { listRemoteSnapshots } from "@/lib/backups/remote";
import { remoteSourceBody } from "@/lib/backups/schemas";
import { targetFromBody } from "@/lib/backups/target";
import { json, readJson, route } from "@/lib/http/route";

// POST /api/backups/remote — the snapshots a bucket holds that a backup key opens (admins; a POST, for the secrets in its body).
// Audited: a backup key opens every cluster secret its snapshots carry, so who tried one on which bucket is on record.
export const POST = route({ permission: "cluster:write" }, async ({ req, user, ip }) => {
  const body = await readJson(req, remoteSourceBody, 8192);
  const listing = await listRemoteSnapshots(targetFromBody(body.target), parseBackupKey(body.backupKey));
  await recordAudit({ action: "backup.remote_list", userId: user.id, username: user.username, ip, details: { bucket: body.target.bucket, endpoint: body.target.endpoint, snapshots: listing.snapshots.length, unreadable: listing.unreadable.length } });
  return json(listing);
});
