import { recordAudit } from "@/lib/audit/record";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { planRun } from "@/lib/engine/plan-run";
import { listClusterRuns } from "@/lib/engine/queries";
import { createRunBody } from "@/lib/engine/schemas";
import { assertMayRun } from "@/lib/engine/run-access";
import { json, parseBody, readJsonValue, route } from "@/lib/http/route";

// GET /api/clusters/:id/runs — run history, newest first.
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ params }) => json({ runs: await listClusterRuns({ clusterId: params.id }) }));

// POST /api/clusters/:id/runs — plan a run; it starts only when confirmed. A reset needs host:reset,
// decided from the type asked for before the rest of the body is checked.
export const POST = route({ permission: "run:start", params: clusterIdParams }, async ({ req, params, user, ip }) => {
  const raw = await readJsonValue(req);
  assertMayRun(user.role, String((raw as { type?: unknown } | null)?.type ?? ""));
  const body = parseBody(createRunBody, raw);
  const runId = await planRun({ clusterId: params.id, body, createdById: user.id, by: user.username });
  await recordAudit({ action: "run.plan", userId: user.id, username: user.username, ip, target: runId, details: { clusterId: params.id, type: body.type, ...("hosts" in body ? { hosts: body.hosts } : {}) } });
  return json({ id: runId }, { status: 201 });
});
