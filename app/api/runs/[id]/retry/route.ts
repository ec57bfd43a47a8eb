import { recordAudit } from "@/lib/audit/record";
import { can } from "@/lib/auth/roles";
import { acceptRunWarnings, retryRun } from "@/lib/engine/runs";
import { forbidden } from "@/lib/http/errors";
import { retryRunBody, runIdParams } from "@/lib/engine/schemas";
import { getEngineWorker } from "@/lib/engine/worker";
import { json, readJson, route } from "@/lib/http/route";

// POST /api/runs/:id/retry — run a failed run's failures again (one step, one host, or all); starts at once.
export const POST = route({ permission: "run:retry", params: runIdParams }, async ({ req, params, user, ip }) => {
  const body = await readJson(req, retryRunBody);
  // Accepting preflight warnings overrides a safety check: admins and leads only.
  if (body.acceptWarnings) {
    if (!can(user.role, "run:start")) throw forbidden("accept preflight warnings");
    await acceptRunWarnings({ runId: params.id, by: user.username });
  }
  const steps = await retryRun({ runId: params.id, step: body.step, host: body.host });
  await recordAudit({ action: "run.retry", userId: user.id, username: user.username, ip, target: params.id, details: { ...body, steps } });
  getEngineWorker().schedule(params.id);
  return json({ ok: true, steps });
});
