import { recordAudit } from "@/lib/audit/record";
import { hostKeyParams, probeHostKey } from "@/lib/engine/host-keys";
import { json, route } from "@/lib/http/route";

// POST /api/clusters/:id/hosts/:host/host-key/probe — the key the host offers now next to the pinned one (no credential is sent).
export const POST = route({ permission: "host:repin", params: hostKeyParams }, async ({ params, user, ip }) => {
  const probe = await probeHostKey({ clusterId: params.id, host: params.host });
  await recordAudit({ action: "host.key-probe", userId: user.id, username: user.username, ip, target: params.id, details: { host: params.host, pinned: probe.pinned, offered: probe.offered } });
  return json(probe);
});
