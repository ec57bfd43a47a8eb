import { Readable } from "node:stream";
import { recordAudit } from "@/lib/audit/record";
import { backupIdParams } from "@/lib/backups/schemas";
import { fetchAndOpenBackup } from "@/lib/backups/remote";
import { backupFileName, getBackupOrThrow } from "@/lib/backups/store";
import { route } from "@/lib/http/route";

// GET /api/clusters/:id/backups/:backupId/download — the plain etcd snapshot (admins), checked whole before a byte is sent (fetched from the cluster's bucket first when only the bucket has it).
export const GET = route({ permission: "backup:download", params: backupIdParams }, async ({ params, user, ip }) => {
  const backup = await getBackupOrThrow({ clusterId: params.id, backupId: params.backupId });
  const { stream, size } = await fetchAndOpenBackup(backup);
  await recordAudit({ action: "backup.download", userId: user.id, username: user.username, ip, target: backup.id, details: { clusterId: params.id, revision: backup.revision, sha256: backup.sha256 } });
  return new Response(Readable.toWeb(stream()) as ReadableStream, {
    headers: {
      "content-type": "application/octet-stream",
      "content-length": String(size),
      "content-disposition": `attachment; filename="${await backupFileName(backup)}"`,
      "x-content-sha256": backup.sha256,
      "cache-control": "no-store",
    },
  });
});
