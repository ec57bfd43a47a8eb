import { Readable } from "node:stream";
import { recordAudit } from "@/lib/audit/record";
import { can } from "@/lib/auth/roles";
import { assetSetParams } from "@/lib/assets/schemas";
import { assetSetTarball, getAssetSet } from "@/lib/assets/store";
import { forbidden, notFound } from "@/lib/http/errors";
import { route } from "@/lib/http/route";

// GET /api/clusters/:id/assets/:setId/download[?secrets=1] — .tar.gz; private keys, tokens and kubeconfigs only for admins.
export const GET = route({ permission: "cluster:read", params: assetSetParams }, async ({ req, params, user, ip }) => {
  const includeSecrets = new URL(req.url).searchParams.get("secrets") === "1";
  if (includeSecrets && !can(user.role, "secret:read")) throw forbidden("download private keys");
  const set = await getAssetSet({ id: params.setId });
  if (set.clusterId !== params.id) throw notFound("Asset set");
  const { fileName, stream } = await assetSetTarball({ id: params.setId, includeSecrets });
  await recordAudit({ action: "assets.download", userId: user.id, username: user.username, ip, target: params.setId, details: { clusterId: params.id, version: set.version, includeSecrets } });
  return new Response(Readable.toWeb(stream) as ReadableStream, {
    headers: {
      "content-type": "application/gzip",
      "content-disposition": `attachment; filename="${fileName}"`,
      "cache-control": "no-store",
    },
  });
});
