import { getRenderJob } from "@/lib/clusters/render-jobs";
import { renderJobParams } from "@/lib/assets/schemas";
import { notFound } from "@/lib/http/errors";
import { json, route } from "@/lib/http/route";

// GET /api/clusters/:id/assets/jobs/:jobId — a render's progress and, when done, the new set.
export const GET = route({ permission: "cluster:read", params: renderJobParams }, async ({ params }) => {
  const job = getRenderJob({ clusterId: params.id, jobId: params.jobId });
  if (!job) throw notFound("Render job");
  return json(job);
});
