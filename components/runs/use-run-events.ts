"use client";
// Applies a run's Server-Sent Events to its react-query snapshot. EventSource reconnects by itself
// after a network error and resends Last-Event-ID, so nothing is lost; after an HTTP error, which
// closes it for good, a new one is opened from the snapshot's sequence number and the snapshot is
// refetched (reconnecting-event-source.ts). A gap in the sequence refetches the snapshot instead of
// guessing.
import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { RunView, StepView } from "@/lib/engine/queries";
import { queryKeys } from "@/lib/clusters/schemas";
import { runQueryKeys, type StepWaitingEvent } from "@/lib/engine/schemas";
import { openReconnectingEventSource } from "../reconnecting-event-source";

export type RunEvent = { seq: number; type: string; stepId: string | null; data: Record<string, unknown>; at: string };

/** The snapshot after one event; exported for tests. A step is found by the event's stepId, else by data.key. */
export function applyEvent(run: RunView, e: RunEvent): RunView {
  const key = typeof e.data.key === "string" ? e.data.key : undefined;
  const isStep = (s: StepView) => (e.stepId ? s.id === e.stepId : s.key === key);
  const patchStep = (patch: Partial<StepView>) => ({ ...run, steps: run.steps.map((s) => (isStep(s) ? { ...s, ...patch } : s)) });
  const next = { ...run, lastSeq: e.seq };
  switch (e.type) {
    case "run.started":
      return { ...next, status: "running", startedAt: e.at };
    case "run.cancel-requested":
      return { ...next, cancelRequested: true };
    case "run.finished":
      return { ...next, status: String(e.data.status), finishedAt: e.at, summary: (e.data.summary as RunView["summary"]) ?? null };
    case "step.started":
      return { ...patchStep({ status: "running", startedAt: e.at, finishedAt: null, attempts: Number(e.data.attempt ?? 1), waiting: null }), lastSeq: e.seq };
    case "step.waiting": {
      const d = e.data as Partial<StepWaitingEvent>;
      const waiting = { what: String(d.what ?? ""), host: d.host ?? null, since: String(d.since ?? e.at), deadline: String(d.deadline ?? "") };
      return { ...patchStep({ status: "waiting", waiting }), lastSeq: e.seq };
    }
    case "step.wait-ended":
      return { ...patchStep({ status: "running", waiting: null }), lastSeq: e.seq };
    case "step.finished":
      return { ...patchStep({ status: "done", finishedAt: e.at, error: null, hint: null, waiting: null }), lastSeq: e.seq };
    case "step.failed":
      return { ...patchStep({ status: "failed", finishedAt: e.at, error: String(e.data.error ?? ""), hint: (e.data.hint as string | undefined) ?? null, waiting: null }), lastSeq: e.seq };
    case "step.cancelled":
      return { ...patchStep({ status: "cancelled", finishedAt: e.at, waiting: null }), lastSeq: e.seq };
    default:
      return next;
  }
}

/**
 * Follows a run's events into its snapshot in the react-query cache until the run finishes or the
 * returned function is called. The hook's body, outside React so it can be tested.
 */
export function followRunEvents({ runId, queryClient, EventSourceImpl }: { runId: string; queryClient: QueryClient; EventSourceImpl?: typeof EventSource }): () => void {
  const key = runQueryKeys.run(runId);
  // Events arrive in bursts (a poll finds many at once): they are applied together, once per frame.
  let queued: RunEvent[] = [];
  let frame: number | undefined;
  const flush = () => {
    frame = undefined;
    const batch = queued;
    queued = [];
    let gap = false;
    queryClient.setQueryData<RunView>(key, (run) => {
      let next = run;
      for (const e of batch) {
        if (!next || e.seq <= next.lastSeq) continue; // replayed or already applied: nothing doubles
        if (e.seq !== next.lastSeq + 1) {
          gap = true;
          break;
        }
        next = applyEvent(next, e);
      }
      return next;
    });
    // A retry puts steps back to pending: take a fresh snapshot rather than guess.
    if (gap || batch.some((e) => e.type === "run.retried")) void queryClient.invalidateQueries({ queryKey: key });
    if (batch.some((e) => e.type === "run.finished")) {
      stream.close();
      void queryClient.invalidateQueries({ queryKey: key });
      // A run changes its cluster (pinned keys, facts, history): pages showing it must reload it.
      const clusterId = queryClient.getQueryData<RunView>(key)?.clusterId;
      if (clusterId) void queryClient.invalidateQueries({ queryKey: queryKeys.cluster(clusterId) });
    }
  };
  const onMessage = (msg: MessageEvent<string>) => {
    queued.push(JSON.parse(msg.data) as RunEvent);
    frame ??= requestAnimationFrame(flush);
  };
  const types = ["run.planned", "run.retried", "run.started", "run.cancel-requested", "run.finished", "phase.started", "phase.finished", "step.started", "step.waiting", "step.wait-ended", "step.progress", "step.retrying", "step.finished", "step.failed", "step.cancelled", "step.output", "host.key-pinned"];
  const stream = openReconnectingEventSource({
    // A reopened stream (after an HTTP error closed the last one) starts after what is applied: apply
    // what is queued first, so the URL's sequence number is the page's own.
    url: () => {
      if (frame !== undefined) {
        cancelAnimationFrame(frame);
        flush();
      }
      return `/api/runs/${runId}/events?after=${queryClient.getQueryData<RunView>(key)?.lastSeq ?? 0}`;
    },
    listeners: Object.fromEntries(types.map((t) => [t, onMessage])),
    // Events replay from the sequence number, but what they do not carry (step output) changed too.
    onReopened: () => void queryClient.invalidateQueries({ queryKey: key }),
    EventSourceImpl,
  });
  return () => {
    if (frame !== undefined) cancelAnimationFrame(frame);
    stream.close();
  };
}

export function useRunEvents(runId: string, enabled: boolean): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled) return;
    return followRunEvents({ runId, queryClient });
  }, [runId, enabled, queryClient]);
}
