"use client";
// Applies a run's Server-Sent Events to its react-query snapshot. EventSource reconnects by itself
// after a network error and resends Last-Event-ID, so nothing is lost; after an HTTP error, which
// closes it for good, a new one is opened from the snapshot's sequence number and the snapshot is
// refetched (reconnecting-event-source.ts). A gap in the sequence refetches the snapshot instead of
// guessing; a snapshot read while events kept coming has the ones the page applied after it replayed
// onto it (freshRunSnapshot), so it is not one. `step.output` events become the step's live lines
// (the log viewer follows them); whenever the snapshot is refetched, the open log viewers' full output
// is refetched after it.
import { useQueryClient, type QueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { RunView, StepView } from "@/lib/engine/queries";
import { queryKeys } from "@/lib/clusters/schemas";
import { runQueryKeys, stepOutputNote, type StepOutputLine, type StepWaitingEvent } from "@/lib/engine/schemas";
import { frameBatch } from "../frame-batch";
import { openReconnectingEventSource, type StreamState } from "../reconnecting-event-source";

/** Live output lines kept per step in the page (the oldest go first); the full output is a fetch away. */
export const MAX_LIVE_LINES = 5_000;

/** The last events applied to each followed run's snapshot, in an unbroken run of sequence numbers. */
const KEPT_EVENTS = 2_000;
const appliedEvents = new WeakMap<QueryClient, Map<string, RunEvent[]>>();

/** The events the page applied to a run's snapshot after `seq`, if all of them are still kept. */
export function appliedAfter(queryClient: QueryClient, runId: string, seq: number): readonly RunEvent[] | undefined {
  const kept = appliedEvents.get(queryClient)?.get(runId);
  const first = kept?.[0]?.seq;
  if (kept === undefined || first === undefined || first > seq + 1) return undefined;
  return kept.slice(seq + 1 - first);
}

function keepApplied(queryClient: QueryClient, runId: string, events: readonly RunEvent[]) {
  if (events.length === 0) return;
  let runs = appliedEvents.get(queryClient);
  if (!runs) appliedEvents.set(queryClient, (runs = new Map()));
  const kept = runs.get(runId) ?? [];
  // A snapshot that jumped ahead (a refetch after a gap) breaks the run: start again from it.
  const all = kept.at(-1)?.seq === events[0]!.seq - 1 ? [...kept, ...events] : [...events];
  runs.set(runId, all.length > KEPT_EVENTS ? all.slice(all.length - KEPT_EVENTS) : all);
}

function appendLive(step: StepView, lines: readonly StepOutputLine[]): StepView {
  if (lines.length === 0) return step;
  const all = [...(step.liveOutput ?? []), ...lines];
  return { ...step, liveOutput: all.length > MAX_LIVE_LINES ? all.slice(all.length - MAX_LIVE_LINES) : all };
}

/** A step's `step.output` event data as lines with the event's seq. */
function outputLines(e: RunEvent): StepOutputLine[] {
  if (!Array.isArray(e.data.lines)) return [];
  return (e.data.lines as { stream?: unknown; line?: unknown }[]).map((l) => ({ seq: e.seq, stream: l.stream === "stderr" ? "stderr" : "stdout", line: String(l.line ?? "") }));
}

/**
 * A fresh snapshot keeps the live lines the page already had (the server does not send them): a
 * refetch mid-run must not empty an open log viewer. Steps are matched by id.
 */
export function carryLiveOutput(prev: RunView | undefined, next: RunView): RunView {
  if (!prev) return next;
  const live = new Map(prev.steps.filter((s) => s.liveOutput?.length).map((s) => [s.id, s.liveOutput!]));
  if (live.size === 0) return next;
  return { ...next, steps: next.steps.map((s) => (live.has(s.id) ? { ...s, liveOutput: live.get(s.id) } : s)) };
}

/**
 * The run's snapshot, never older than what the page has applied. The stream goes on delivering events
 * while a snapshot is read (a busy step's output is several a second), so the snapshot is often a few
 * events behind the page: the events the page applied after it (`appliedAfter`) are replayed onto it.
 * Taken as it is, it would put the page back in time and the next event would look like a gap (a
 * needless refetch of everything, open log viewers included). Only when those events are not all kept
 * is it read again, a few times at most.
 */
export async function freshRunSnapshot(
  fetchRun: () => Promise<RunView>,
  cached: () => RunView | undefined,
  appliedAfter: (seq: number) => readonly RunEvent[] | undefined,
  attempts = 3,
): Promise<RunView> {
  for (let i = 1; ; i++) {
    const next = await fetchRun();
    const prev = cached();
    if (!prev || next.lastSeq >= prev.lastSeq) return carryLiveOutput(prev, next);
    const missed = appliedAfter(next.lastSeq)?.filter((e) => e.seq <= prev.lastSeq);
    if (missed?.at(-1)?.seq === prev.lastSeq) return carryLiveOutput(prev, missed.reduce(applyEvent, next));
    if (i >= attempts) return carryLiveOutput(prev, next);
  }
}

export type RunEvent = { seq: number; type: string; stepId: string | null; data: Record<string, unknown>; at: string };

/** The snapshot after one event; exported for tests. A step is found by the event's stepId, else by data.key. */
export function applyEvent(run: RunView, e: RunEvent): RunView {
  const key = typeof e.data.key === "string" ? e.data.key : undefined;
  const isStep = (s: StepView) => (e.stepId ? s.id === e.stepId : s.key === key);
  const patchStep = (patch: Partial<StepView>) => ({ ...run, steps: run.steps.map((s) => (isStep(s) ? { ...s, ...patch } : s)) });
  // Where a later attempt starts, as in the server's full output (lib/engine/step-output.ts).
  const note = stepOutputNote(e.type, e.data);
  const noted = (r: RunView): RunView => (note === null ? r : { ...r, steps: r.steps.map((s) => (isStep(s) ? appendLive(s, [{ seq: e.seq, stream: "note", line: note }]) : s)) });
  const next = { ...run, lastSeq: e.seq };
  switch (e.type) {
    case "run.started":
      return { ...next, status: "running", startedAt: e.at };
    case "run.cancel-requested":
      return { ...next, cancelRequested: true };
    case "run.handed-over":
      return { ...next, workerId: null, heartbeatAt: null };
    case "run.storage-recovered":
      return { ...next, storage: { full: false, since: null, message: null } };
    case "run.finished":
      return { ...next, status: String(e.data.status), finishedAt: e.at, summary: (e.data.summary as RunView["summary"]) ?? null };
    case "step.started":
      return noted({ ...patchStep({ status: "running", startedAt: e.at, finishedAt: null, attempts: Number(e.data.attempt ?? 1), waiting: null }), lastSeq: e.seq });
    case "step.retrying":
      return noted(next);
    case "step.output": {
      // No stepId: the step's key is data.step. Lines were redacted by the executor.
      const lines = outputLines(e);
      return { ...next, steps: run.steps.map((s) => (s.key === e.data.step ? appendLive(s, lines) : s)) };
    }
    case "step.waiting": {
      const d = e.data as Partial<StepWaitingEvent>;
      const waiting = { what: String(d.what ?? ""), host: d.host ?? null, since: String(d.since ?? e.at), deadline: String(d.deadline ?? ""), ...(typeof d.why === "string" ? { why: d.why } : {}) };
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
 * Follows a run's events into its snapshot in the react-query cache until the run succeeds or the
 * returned function is called (a failed run is still followed: it may be retried from another page).
 * The hook's body, outside React so it can be tested.
 */
export function followRunEvents({
  runId,
  queryClient,
  EventSourceImpl,
  onStateChange,
}: {
  runId: string;
  queryClient: QueryClient;
  EventSourceImpl?: typeof EventSource;
  /** The stream's state, for the page's "live" / "reconnecting…" line. */
  onStateChange?: (state: StreamState) => void;
}): () => void {
  const key = runQueryKeys.run(runId);
  // The snapshot, then the open log viewers' full output: read after the snapshot, each covers up to a
  // sequence number at least the snapshot's, so the live lines applied after it continue without a hole.
  const refetch = () => void queryClient.invalidateQueries({ queryKey: key }).then(() => queryClient.invalidateQueries({ queryKey: runQueryKeys.stepOutputs(runId) }));
  // Events arrive in bursts (a poll finds many at once): they are applied together, once per frame.
  const apply = (batch: RunEvent[]) => {
    let gap = false;
    const applied: RunEvent[] = [];
    queryClient.setQueryData<RunView>(key, (run) => {
      let next = run;
      for (const e of batch) {
        if (!next || e.seq <= next.lastSeq) continue; // replayed or already applied: nothing doubles
        if (e.seq !== next.lastSeq + 1) {
          gap = true;
          break;
        }
        next = applyEvent(next, e);
        applied.push(e);
      }
      return next;
    });
    keepApplied(queryClient, runId, applied);
    // A retry puts steps back to pending: take a fresh snapshot rather than guess.
    if (gap || batch.some((e) => e.type === "run.retried")) refetch();
    const finished = batch.filter((e) => e.type === "run.finished").at(-1);
    if (finished) {
      // Only a success is the end: a failed, stopped or cancelled run may be retried or its warnings
      // accepted by anyone, and this page must follow that too.
      if (finished.data.status === "succeeded") stream.close();
      refetch();
      // A run changes its cluster (pinned keys, facts, history): pages showing it must reload it.
      const clusterId = queryClient.getQueryData<RunView>(key)?.clusterId;
      if (clusterId) void queryClient.invalidateQueries({ queryKey: queryKeys.cluster(clusterId) });
    }
  };
  const queue = frameBatch(apply);
  const onMessage = (msg: MessageEvent<string>) => queue.push(JSON.parse(msg.data) as RunEvent);
  const types = ["run.planned", "run.retried", "run.warnings-accepted", "run.started", "run.cancel-requested", "run.finished", "phase.started", "phase.finished", "step.started", "step.waiting", "step.wait-ended", "step.progress", "step.retrying", "step.finished", "step.failed", "step.cancelled", "step.output", "host.key-pinned", "host.lock-taken-over", "run.released", "run.handed-over", "run.storage-recovered"];
  const stream = openReconnectingEventSource({
    // A reopened stream (after an HTTP error closed the last one) starts after what is applied: apply
    // what is queued first, so the URL's sequence number is the page's own.
    url: () => {
      queue.flushNow();
      return `/api/runs/${runId}/events?after=${queryClient.getQueryData<RunView>(key)?.lastSeq ?? 0}`;
    },
    listeners: Object.fromEntries(types.map((t) => [t, onMessage])),
    // Events replay from the sequence number, but what they do not carry (step output) changed too.
    onReopened: refetch,
    // Why it was closed, the snapshot's request finds out: an expired session answers 401 and signs out.
    onClosedByServer: () => {
      queue.flushNow();
      void queryClient.invalidateQueries({ queryKey: key });
    },
    onStateChange,
    EventSourceImpl,
  });
  return () => {
    queue.cancel();
    stream.close();
    appliedEvents.get(queryClient)?.delete(runId);
  };
}

/** Follows the run while `enabled`; returns the stream's state (null while not following). */
export function useRunEvents(runId: string, enabled: boolean): StreamState | null {
  const queryClient = useQueryClient();
  const [state, setState] = useState<StreamState | null>(null);
  useEffect(() => {
    if (!enabled) return;
    const stop = followRunEvents({ runId, queryClient, onStateChange: setState });
    return () => {
      stop();
      setState(null);
    };
  }, [runId, enabled, queryClient]);
  return state;
}
