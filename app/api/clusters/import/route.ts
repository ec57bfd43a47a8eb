import { recordAudit } from "@/lib/audit/record";
import { importClusterYaml } from "@/lib/clusters/import";
import { importClusterBody } from "@/lib/clusters/schemas";
import { json, readJson, route } from "@/lib/http/route";
import { renderAhead } from "@/lib/clusters/render-ahead";

// POST /api/clusters/import — create (or, with replace, update) a cluster from cluster.yaml.
export const POST = route({ permission: "cluster:write" }, async ({ req, user, ip }) => {
  const body = await readJson(req, importClusterBody, 3 * 1024 * 1024);
  const result = await importClusterYaml(body);
  await recordAudit({ action: result.created ? "cluster.import" : "cluster.import_replace", userId: user.id, username: user.username, ip, target: result.id, details: result.hostKeys ? { hostKeys: result.hostKeys } : {} });
  await renderAhead({ clusterId: result.id, user, ip });
  return json(result, { status: result.created ? 201 : 200 });
});
