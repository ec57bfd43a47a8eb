import { stepOutputParams } from "@/lib/engine/schemas";
import { getStepOutput } from "@/lib/engine/step-output";
import { json, route } from "@/lib/http/route";

// GET /api/runs/:id/steps/:key/output — a step's whole output from the event log (the key's "/" as %2F), plus a failed step's kubelet journal.
export const GET = route({ permission: "cluster:read", params: stepOutputParams }, async ({ params }) => json(await getStepOutput({ runId: params.id, stepKey: params.key })));
