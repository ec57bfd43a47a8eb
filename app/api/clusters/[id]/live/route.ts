import { clusterIdParams } from "@/lib/clusters/schemas";
import { clusterLiveStream } from "@/lib/clusters/live";
import { route } from "@/lib/http/route";

// GET /api/clusters/:id/live — Server-Sent Events: the cluster's pods and nodes (snapshot, then changes)
// and whether its API answers, watched through the engine's SSH tunnel to a master.
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ req, params }) => {
  const stream = await clusterLiveStream({ clusterId: params.id, signal: req.signal });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      connection: "keep-alive",
    },
  });
});
export const dynamic = "force-dynamic";
