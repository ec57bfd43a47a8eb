import { recordAudit } from "@/lib/audit/record";
import { DEFAULT_RENDER, ensureAssetSet } from "@/lib/clusters/render-jobs";
import { getClusterOrThrow } from "@/lib/clusters/repository";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { json, route } from "@/lib/http/route";

// POST /api/clusters/:id/assets/ensure — before planning a bootstrap: "ready" when the cluster has an asset
// set, else the render under way (or one started now, RSA defaults) to poll at /assets/jobs/:jobId.
export const POST = route({ permission: "run:start", params: clusterIdParams }, async ({ params, user, ip }) => {
  await getClusterOrThrow(params);
  const result = await ensureAssetSet({ clusterId: params.id });
  if (!result.ready && result.started)
    await recordAudit({ action: "assets.render", userId: user.id, username: user.username, ip, target: params.id, details: { ...DEFAULT_RENDER, importedCa: false, before: "plan" } });
  return json(result);
});
