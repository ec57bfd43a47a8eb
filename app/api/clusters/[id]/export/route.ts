import { recordAudit } from "@/lib/audit/record";
import { toClusterYaml } from "@/lib/cluster/yaml";
import { getExportableDefinition } from "@/lib/clusters/repository";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { route } from "@/lib/http/route";

// GET /api/clusters/:id/export — cluster.yaml; credentials appear by name and fingerprint only.
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ params, user, ip }) => {
  const def = await getExportableDefinition(params);
  await recordAudit({ action: "cluster.export", userId: user.id, username: user.username, ip, target: params.id });
  return new Response(toClusterYaml(def), {
    headers: {
      "content-type": "application/yaml; charset=utf-8",
      "content-disposition": `attachment; filename="${def.metadata.name}.cluster.yaml"`,
      "cache-control": "no-store",
    },
  });
});
