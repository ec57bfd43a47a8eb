import { recordAudit } from "@/lib/audit/record";
import { backupPolicyBody } from "@/lib/backups/schemas";
import { setBackupPolicy } from "@/lib/backups/store";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { json, readJson, route } from "@/lib/http/route";

// PUT /api/clusters/:id/backups/policy — the backup schedule and retention (admins).
export const PUT = route({ permission: "cluster:write", params: clusterIdParams }, async ({ req, params, user, ip }) => {
  const body = await readJson(req, backupPolicyBody, 4096);
  const policy = await setBackupPolicy({ clusterId: params.id, body, by: user.username });
  await recordAudit({ action: "backup.policy", userId: user.id, username: user.username, ip, target: params.id, details: body });
  return json(policy);
});
