import { recordAudit } from "@/lib/audit/record";
import { resumeRun } from "@/lib/engine/run-control";
import { runIdParams } from "@/lib/engine/schemas";
import { json, route } from "@/lib/http/route";

// POST /api/runs/:id/resume — a paused upgrade goes on from its pause point.
export const POST = route({ permission: "run:start", params: runIdParams }, async ({ params, user, ip }) => {
  const r = await resumeRun({ runId: params.id, by: user.username });
  await recordAudit({ action: "run.resume", userId: user.id, username: user.username, ip, target: params.id, details: r });
  return json({ ok: true, ...r });
});
