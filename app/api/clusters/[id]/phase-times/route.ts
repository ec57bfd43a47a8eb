import { z } from "zod";
import { getClusterOrThrow } from "@/lib/clusters/repository";
import { getPhaseTimes } from "@/lib/clusters/phase-times";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { runTypes } from "@/lib/engine/plan";
import { ValidationError } from "@/lib/http/errors";
import { json, route } from "@/lib/http/route";

const query = z.strictObject({ type: z.enum(runTypes) });

// GET /api/clusters/:id/phase-times?type=bootstrap — each phase's time in the latest successful run of that type (for the ETA).
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ req, params }) => {
  const parsed = query.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) throw new ValidationError(parsed.error.issues.map((i) => ({ path: i.path.map(String).join(".") || "(query)", message: i.message })));
  await getClusterOrThrow(params);
  return json({ times: await getPhaseTimes({ clusterId: params.id, type: parsed.data.type }) });
});
