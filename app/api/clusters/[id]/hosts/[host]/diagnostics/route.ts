import { recordAudit } from "@/lib/audit/record";
import { hostDiagnosticsParams, runHostDiagnostics } from "@/lib/engine/diagnostics";
import { json, route } from "@/lib/http/route";

// POST /api/clusters/:id/hosts/:host/diagnostics — a fixed read-only script on one pinned host:
// kubelet journal and unit, containers, disk, time, ports, swap. Changes nothing: host:inspect, which support has.
export const POST = route({ permission: "host:inspect", params: hostDiagnosticsParams }, async ({ params, user, ip }) => {
  await recordAudit({ action: "host.diagnostics", userId: user.id, username: user.username, ip, target: params.id, details: { host: params.host } });
  return json(await runHostDiagnostics({ clusterId: params.id, host: params.host }));
});
