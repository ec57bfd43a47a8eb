import { recordAudit } from "@/lib/audit/record";
import { cancelRun } from "@/lib/engine/start";
import { runIdParams } from "@/lib/engine/schemas";
import { json, route } from "@/lib/http/route";

// POST /api/runs/:id/cancel — a planned run ends at once; a running one stops between steps and aborts commands in flight.
export const POST = route({ permission: "run:cancel", params: runIdParams }, async ({ params, user, ip }) => {
  const outcome = await cancelRun({ runId: params.id, by: user.username });
  await recordAudit({ action: "run.cancel", userId: user.id, username: user.username, ip, target: params.id, details: { outcome } });
  return json({ ok: true, outcome });
});
