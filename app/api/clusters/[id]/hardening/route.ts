import { clusterIdParams } from "@/lib/clusters/schemas";
import { clusterHardening } from "@/lib/hardening/summary";
import { json, route } from "@/lib/http/route";

// GET /api/clusters/:id/hardening — encryption at rest (key name and age, never the key), the audit log, Pod Security's defaults, profiling; from the newest asset set.
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ params }) => json(await clusterHardening({ clusterId: params.id })));
