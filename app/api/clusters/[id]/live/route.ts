import { sessionRecheck, sessionStillAllows } from "@/lib/auth/session-recheck";
import { clusterIdParams } from "@/lib/clusters/schemas";
import { clusterLiveStream } from "@/lib/engine/live";
import { eventStream, route } from "@/lib/http/route";
import { streamSignal } from "@/lib/shutdown";

// GET /api/clusters/:id/live — Server-Sent Events: the cluster's pods and nodes (snapshot, then changes)
// and whether its API answers, watched through the engine's SSH tunnel to a master; ends once the
// session no longer allows it (signed out, disabled, deleted).
export const GET = route({ permission: "cluster:read", params: clusterIdParams }, async ({ req, params, user }) => {
  const session = sessionRecheck(() => sessionStillAllows({ sessionId: user.sessionId, permission: "cluster:read" }));
  const stream = await clusterLiveStream({ clusterId: params.id, signal: streamSignal(req), session });
  return eventStream(stream);
});
export const dynamic = "force-dynamic";
