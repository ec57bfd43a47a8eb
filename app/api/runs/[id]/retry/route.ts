import { recordAudit } from "@/lib/audit/record";
import { retryRun } from "@/lib/engine/runs";
import { retryRunBody, runIdParams } from "@/lib/engine/schemas";
import { getEngineWorker } from "@/lib/engine/worker";
import { json, readJson, route } from "@/lib/http/route";

// POST /api/runs/:id/retry — run a failed run's failures again (one step, one host, or all); starts at once.
export const POST = route({ permission: "run:retry", params: runIdParams }, async ({ req, params, user, ip }) => {
  const body = await readJson(req, retryRunBody);
  const steps = await retryRun({ runId: params.id, step: body.step, host: body.host });
  await recordAudit({ action: "run.retry", userId: user.id, username: user.username, ip, target: params.id, details: { ...body, steps } });
  getEngineWorker().schedule(params.id);
  return json({ ok: true, steps });
});
