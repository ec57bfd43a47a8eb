import { clusterIdParams } from "@/lib/clusters/schemas";
import { readJson, route } from "@/lib/http/route";
import { issueKubeconfig } from "@/lib/kubeconfigs/issue";
import { z } from "zod";

// POST /api/clusters/:id/kubeconfig — a personal kubeconfig for the caller's role on this cluster,
// valid for the period an admin set (audited; its key is in this response only).
export const POST = route({ permission: "kubeconfig:issue", params: clusterIdParams }, async ({ req, params, user, ip }) => {
  await readJson(req, z.strictObject({}), 1024);
  // user.role is the role on this cluster: the funnel has raised it by the cluster's own mappings.
  const out = await issueKubeconfig({ clusterId: params.id, user, role: user.role, ip });
  return new Response(out.kubeconfig, {
    headers: {
      "content-type": "application/yaml; charset=utf-8",
      "content-disposition": `attachment; filename="${out.fileName}"`,
      "cache-control": "no-store",
      "x-bootdeck-kubeconfig-serial": out.issue.serial,
      "x-bootdeck-kubeconfig-expires": out.issue.notAfter,
    },
  });
});
