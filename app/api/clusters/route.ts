import { recordAudit } from "@/lib/audit/record";
import { listFleet } from "@/lib/clusters/fleet";
import { createCluster } from "@/lib/clusters/repository";
import { saveClusterBody } from "@/lib/clusters/schemas";
import { json, readJson, route } from "@/lib/http/route";
import { renderAhead } from "@/lib/clusters/render-ahead";

// GET /api/clusters — every cluster, summarised with its health (nodes Ready as last seen, last run, certificate expiry).
export const GET = route({ permission: "cluster:read" }, async () => json({ clusters: await listFleet() }));

// POST /api/clusters — create a cluster from a definition and its credentials' secrets.
export const POST = route({ permission: "cluster:write" }, async ({ req, user, ip }) => {
  const body = await readJson(req, saveClusterBody);
  const created = await createCluster(body);
  await recordAudit({ action: "cluster.create", userId: user.id, username: user.username, ip, target: created.id });
  await renderAhead({ clusterId: created.id, user, ip });
  return json(created, { status: 201 });
});
