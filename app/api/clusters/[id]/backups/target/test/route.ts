import { recordAudit } from "@/lib/audit/record";
import { testStoredTarget } from "@/lib/backups/target";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { json, route } from "@/lib/http/route";

// POST /api/clusters/:id/backups/target/test — list the bucket, write and delete a probe object (admins); the outcome says which way it is wrong.
export const POST = route({ permission: "cluster:write", params: clusterIdParams }, async ({ params, user, ip }) => {
  const result = await testStoredTarget(params.id);
  await recordAudit({ action: "backup.target-test", userId: user.id, username: user.username, ip, target: params.id, details: { ok: result.ok, problem: result.problem ?? null } });
  return json(result);
});
