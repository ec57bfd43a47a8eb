import { clusterMembers, lifecycleOf } from "@/lib/clusters/lifecycle-facts";
import type { ClusterPageView } from "@/lib/clusters/lifecycle";
import { recordAudit } from "@/lib/audit/record";
import { deleteCluster, getClusterOrThrow, updateCluster } from "@/lib/clusters/repository";
import { clusterIdParams, deleteClusterBody, saveClusterBody } from "@/lib/clusters/schemas";
import { json, readJson, route } from "@/lib/http/route";
import { renderAhead } from "@/lib/clusters/render-ahead";

// GET /api/clusters/:id — the definition, hosts and credential fingerprints (never secrets), and where
// the cluster stands (not bootstrapped, bootstrapping, changing, healthy, degraded).
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ params }) => {
  const view: ClusterPageView = { ...(await getClusterOrThrow(params)), lifecycle: await lifecycleOf(params.id), members: await clusterMembers(params.id) };
  return json(view);
});

// PUT /api/clusters/:id — replace the definition; secrets left empty keep their stored values.
export const PUT = route({ permission: "cluster:write", params: clusterIdParams }, async ({ req, params, user, ip }) => {
  const body = await readJson(req, saveClusterBody);
  const result = await updateCluster({ id: params.id, ...body });
  await recordAudit({ action: "cluster.update", userId: user.id, username: user.username, ip, target: params.id, details: { hostKeys: result.hostKeys } });
  await renderAhead({ clusterId: params.id, user, ip });
  return json(result);
});

// DELETE /api/clusters/:id — delete after the caller typed the cluster's name.
export const DELETE = route({ permission: "cluster:write", params: clusterIdParams }, async ({ req, params, user, ip }) => {
  const body = await readJson(req, deleteClusterBody);
  await deleteCluster({ id: params.id, ...body });
  await recordAudit({ action: "cluster.delete", userId: user.id, username: user.username, ip, target: params.id });
  return json({ ok: true });
});
