import { recordAudit } from "@/lib/audit/record";
import { backupTargetBody } from "@/lib/backups/schemas";
import { getTargetView, removeTarget, setTarget } from "@/lib/backups/target";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { getClusterOrThrow } from "@/lib/clusters/repository";
import { json, readJson, route } from "@/lib/http/route";
import { notFound } from "@/lib/http/errors";

// GET /api/clusters/:id/backups/target — the cluster's bucket (never its secret key).
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ params }) => {
  await getClusterOrThrow({ id: params.id });
  const target = await getTargetView(params.id);
  if (!target) throw notFound("Backup target");
  return json(target);
});

// PUT /api/clusters/:id/backups/target — set the bucket every backup is copied to (admins); a missing secret key keeps the stored one.
export const PUT = route({ permission: "cluster:write", params: clusterIdParams }, async ({ req, params, user, ip }) => {
  const body = await readJson(req, backupTargetBody, 8192);
  const target = await setTarget({ clusterId: params.id, body, by: user.username });
  const { secretAccessKey, ...shown } = body;
  await recordAudit({ action: "backup.target", userId: user.id, username: user.username, ip, target: params.id, details: { ...shown, secretKeyChanged: !!secretAccessKey } });
  return json(target);
});

// DELETE /api/clusters/:id/backups/target — backups stay on this dashboard only (copies already in the bucket stay there).
export const DELETE = route({ permission: "cluster:write", params: clusterIdParams }, async ({ params, user, ip }) => {
  await getClusterOrThrow({ id: params.id });
  if (!(await removeTarget(params.id))) throw notFound("Backup target");
  await recordAudit({ action: "backup.target-remove", userId: user.id, username: user.username, ip, target: params.id });
  return json({ removed: true });
});
