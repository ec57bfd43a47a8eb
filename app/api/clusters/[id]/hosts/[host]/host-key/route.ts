import { recordAudit } from "@/lib/audit/record";
import { hostKeyParams, repinHostKey, repinHostKeyBody } from "@/lib/engine/host-keys";
import { json, readJson, route } from "@/lib/http/route";

// PUT /api/clusters/:id/hosts/:host/host-key — pin the fingerprint a probe showed, once the admin confirmed it.
export const PUT = route({ permission: "host:repin", params: hostKeyParams }, async ({ req, params, user, ip }) => {
  const body = await readJson(req, repinHostKeyBody);
  const r = await repinHostKey({ clusterId: params.id, host: params.host, fingerprint: body.fingerprint, previous: body.previous, by: user.username });
  await recordAudit({ action: "host.repin", userId: user.id, username: user.username, ip, target: params.id, details: { host: params.host, previous: r.previous, pinned: r.pinned } });
  return json(r);
});
