import { recordAudit } from "@/lib/audit/record";
import { readLiveCertificates } from "@/lib/engine/cert-expiry";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { json, route } from "@/lib/http/route";

// POST /api/clusters/:id/certificates/live — read every host's certificates now (files and what its ports serve). Read-only: host:inspect.
export const POST = route({ permission: "host:inspect", params: clusterIdParams }, async ({ params, user, ip }) => {
  await recordAudit({ action: "certificates.read", userId: user.id, username: user.username, ip, target: params.id });
  return json(await readLiveCertificates({ clusterId: params.id }));
});
