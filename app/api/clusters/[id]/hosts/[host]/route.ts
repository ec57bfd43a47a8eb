import { getHostView } from "@/lib/clusters/hosts";
import { hostParams } from "@/lib/clusters/schemas";
import { json, route } from "@/lib/http/route";

// GET /api/clusters/:id/hosts/:host — one host: state, facts with their time, pinned key, and the runs that worked on it.
export const GET = route({ permission: "cluster:read", params: hostParams }, async ({ params }) => json(await getHostView({ clusterId: params.id, host: params.host })));
