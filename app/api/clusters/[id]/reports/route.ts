import { clusterIdParams } from "@/lib/clusters/schemas";
import { REPORT_LIMIT, clusterReports, recordReport } from "@/lib/hardening/report-store";
import { json, readText, route } from "@/lib/http/route";

// GET /api/clusters/:id/reports — the newest conformance and CIS benchmark reports' summaries.
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ params }) => json(await clusterReports({ clusterId: params.id })));

// POST /api/clusters/:id/reports — the body is the report file itself (JUnit XML, kube-bench's or Trivy's JSON).
export const POST = route({ permission: "report:upload", params: clusterIdParams }, async ({ req, params, user, ip }) =>
  json(await recordReport({ clusterId: params.id, text: await readText(req, REPORT_LIMIT), user, ip }), { status: 201 }),
);
