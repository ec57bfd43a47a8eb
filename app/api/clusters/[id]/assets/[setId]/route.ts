import { assetSetParams } from "@/lib/assets/schemas";
import { getAssetSet } from "@/lib/assets/store";
import { notFound } from "@/lib/http/errors";
import { json, route } from "@/lib/http/route";

// GET /api/clusters/:id/assets/:setId — files, purposes and certificate details; sensitive contents never leave here.
export const GET = route({ permission: "cluster:read", params: assetSetParams }, async ({ params }) => {
  const set = await getAssetSet({ id: params.setId });
  if (set.clusterId !== params.id) throw notFound("Asset set");
  return json(set);
});
