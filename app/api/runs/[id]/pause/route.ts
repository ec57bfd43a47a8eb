import { recordAudit } from "@/lib/audit/record";
import { pauseRun } from "@/lib/engine/run-control";
import { runIdParams } from "@/lib/engine/schemas";
import { json, route } from "@/lib/http/route";

// POST /api/runs/:id/pause — an upgrade stops before its next batch of nodes (nodes in flight finish).
export const POST = route({ permission: "run:start", params: runIdParams }, async ({ params, user, ip }) => {
  const r = await pauseRun({ runId: params.id, by: user.username });
  await recordAudit({ action: "run.pause", userId: user.id, username: user.username, ip, target: params.id, details: r });
  return json({ ok: true, ...r });
});
