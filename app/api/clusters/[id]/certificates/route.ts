import { assetCertificates } from "@/lib/certs/expiry";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { json, route } from "@/lib/http/route";

// GET /api/clusters/:id/certificates — every certificate of the newest asset set with its expiry, soonest first.
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ params }) => json(await assetCertificates({ clusterId: params.id })));
