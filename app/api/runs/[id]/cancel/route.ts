import { recordAudit } from "@/lib/audit/record";
import { requestCancel } from "@/lib/engine/runs";
import { runIdParams } from "@/lib/engine/schemas";
import { json, route } from "@/lib/http/route";

// POST /api/runs/:id/cancel — stop between steps and abort commands in flight.
export const POST = route({ permission: "run:cancel", params: runIdParams }, async ({ params, user, ip }) => {
  await requestCancel({ runId: params.id });
  await recordAudit({ action: "run.cancel", userId: user.id, username: user.username, ip, target: params.id });
  return json({ ok: true });
});
