import { recordAudit } from "@/lib/audit/record";
import { assertMayRetry } from "@/lib/engine/run-access";
import { acceptRunWarnings, retryRun } from "@/lib/engine/runs";
import { retryRunBody, runIdParams } from "@/lib/engine/schemas";
import { scheduleRun } from "@/lib/engine/start";
import { json, readJson, route } from "@/lib/http/route";

// POST /api/runs/:id/retry — run a failed run's failures again (one step, one host, or all); starts at once.
// Support retries failed runs only (not cancelled ones, never a reset); accepting warnings needs run:start.
export const POST = route({ permission: "run:retry", params: runIdParams }, async ({ req, params, user, ip }) => {
  const body = await readJson(req, retryRunBody);
  await assertMayRetry({ runId: params.id, role: user.role, acceptWarnings: body.acceptWarnings });
  if (body.acceptWarnings) await acceptRunWarnings({ runId: params.id, by: user.username });
  const steps = await retryRun({ runId: params.id, step: body.step, host: body.host });
  await recordAudit({ action: "run.retry", userId: user.id, username: user.username, ip, target: params.id, details: { ...body, steps } });
  // With BOOTDECK_ENGINE=off a `bootdeck worker` takes it; this process runs no engine.
  await scheduleRun(params.id);
  return json({ ok: true, steps });
});
