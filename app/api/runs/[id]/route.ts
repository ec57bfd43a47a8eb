import { getRunView } from "@/lib/engine/queries";
import { runIdParams } from "@/lib/engine/schemas";
import { json, route } from "@/lib/http/route";

// GET /api/runs/:id — the run, its plan and every step's state (the snapshot live events apply to).
export const GET = route({ permission: "cluster:read", params: runIdParams }, async ({ params }) => json(await getRunView(params)));
