import { parseBackupKey } from "@/lib/backups/backup-key";
import { listRemoteSnapshots } from "@/lib/backups/remote";
import { remoteSourceBody } from "@/lib/backups/schemas";
import { targetFromBody } from "@/lib/backups/target";
import { json, readJson, route } from "@/lib/http/route";

// POST /api/backups/remote — the snapshots a bucket holds that a backup key opens (admins; a POST, for the secrets in its body).
export const POST = route({ permission: "cluster:write" }, async ({ req }) => {
  const body = await readJson(req, remoteSourceBody, 8192);
  return json(await listRemoteSnapshots(targetFromBody(body.target), parseBackupKey(body.backupKey)));
});
