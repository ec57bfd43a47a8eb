import { clusterIdParams } from "@/lib/clusters/schemas";
import { clusterLiveStream } from "@/lib/clusters/live";
import { eventStream, route } from "@/lib/http/route";

// GET /api/clusters/:id/live — Server-Sent Events: the cluster's pods and nodes (snapshot, then changes)
// and whether its API answers, watched through the engine's SSH tunnel to a master.
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ req, params }) => {
  const stream = await clusterLiveStream({ clusterId: params.id, signal: req.signal });
  return eventStream(stream);
});
export const dynamic = "force-dynamic";
