import { recordAudit } from "@/lib/audit/record";
import { assertMayStart } from "@/lib/engine/run-access";
import { startRun } from "@/lib/engine/runs";
import { runIdParams } from "@/lib/engine/schemas";
import { scheduleRun } from "@/lib/engine/start";
import { json, route } from "@/lib/http/route";

// POST /api/runs/:id/start — confirm a planned run; the engine runs it in the background (a reset: admins only).
export const POST = route({ permission: "run:start", params: runIdParams }, async ({ params, user, ip }) => {
  await assertMayStart({ runId: params.id, role: user.role });
  await startRun({ runId: params.id });
  await recordAudit({ action: "run.start", userId: user.id, username: user.username, ip, target: params.id });
  // With BOOTDECK_ENGINE=off a `bootdeck worker` takes it; this process runs no engine.
  await scheduleRun(params.id);
  return json({ ok: true });
});
