import { sessionRecheck, sessionStillAllows } from "@/lib/auth/session-recheck";
import { runIdParams } from "@/lib/engine/schemas";
import { runEventStream } from "@/lib/engine/sse";
import { eventStream, route } from "@/lib/http/route";
import { streamSignal } from "@/lib/shutdown";

// GET /api/runs/:id/events — Server-Sent Events: replay after Last-Event-ID (or ?after=N), then live;
// ends once the session no longer allows it (signed out, disabled, deleted).
export const GET = route({ permission: "cluster:read", params: runIdParams }, async ({ req, params, user }) => {
  const url = new URL(req.url);
  const after = Number(req.headers.get("last-event-id") ?? url.searchParams.get("after") ?? "0");
  const stream = await runEventStream({ runId: params.id, afterSeq: Number.isInteger(after) && after > 0 ? after : 0, signal: streamSignal(req), session: sessionRecheck(() => sessionStillAllows({ sessionId: user.sessionId, permission: "cluster:read" })) });
  return eventStream(stream);
});
export const dynamic = "force-dynamic";
