import { recordAudit } from "@/lib/audit/record";
import { startRenderJob } from "@/lib/clusters/render-jobs";
import { renderAssetsBody } from "@/lib/assets/schemas";
import { listAssetSets } from "@/lib/assets/store";
import { getClusterOrThrow } from "@/lib/clusters/repository";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { json, readJson, route } from "@/lib/http/route";

// GET /api/clusters/:id/assets — the cluster's rendered asset sets, newest first.
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ params }) => {
  await getClusterOrThrow(params);
  return json(await listAssetSets({ clusterId: params.id }));
});

// POST /api/clusters/:id/assets — start a render; poll /assets/jobs/:jobId for progress (202).
export const POST = route({ permission: "cluster:write", params: clusterIdParams }, async ({ req, params, user, ip }) => {
  const body = await readJson(req, renderAssetsBody, 256 * 1024);
  await getClusterOrThrow(params);
  const job = startRenderJob({ clusterId: params.id, options: body });
  await recordAudit({
    action: "assets.render",
    userId: user.id,
    username: user.username,
    ip,
    target: params.id,
    details: { caValidityDays: body.caValidityDays, leafValidityDays: body.leafValidityDays, importedCa: body.importedCa !== undefined },
  });
  return json(job, { status: 202 });
});
