import { z } from "zod";
import { assetSetId, assetSetParams } from "@/lib/assets/schemas";
import { diffAssetSets, getAssetSet } from "@/lib/assets/store";
import { AppError, notFound } from "@/lib/http/errors";
import { json, route } from "@/lib/http/route";

const query = z.object({ against: assetSetId });

// GET /api/clusters/:id/assets/:setId/diff?against=:otherSetId — per-file changes from :against to :setId.
export const GET = route({ permission: "cluster:read", params: assetSetParams }, async ({ req, params }) => {
  const parsed = query.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) throw new AppError(400, "bad_query", "against must be an asset set id");
  const from = await getAssetSet({ id: parsed.data.against });
  if (from.clusterId !== params.id) throw notFound("Asset set");
  return json(await diffAssetSets({ a: parsed.data.against, b: params.setId }));
});
