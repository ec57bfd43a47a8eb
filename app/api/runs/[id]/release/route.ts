import { recordAudit } from "@/lib/audit/record";
import { releaseRun } from "@/lib/engine/runs";
import { releaseRunBody, runIdParams } from "@/lib/engine/schemas";
import { json, readJson, route } from "@/lib/http/route";

// POST /api/runs/:id/release — end a stuck running run (failed, "released by …"); frees the cluster.
export const POST = route({ permission: "run:release", params: runIdParams }, async ({ req, params, user, ip }) => {
  const body = await readJson(req, releaseRunBody);
  const r = await releaseRun({ runId: params.id, by: user.username, reason: body.reason });
  await recordAudit({ action: "run.release", userId: user.id, username: user.username, ip, target: params.id, details: { reason: body.reason ?? null, previousWorker: r.previousWorker } });
  return json({ ok: true, status: r.status });
});
