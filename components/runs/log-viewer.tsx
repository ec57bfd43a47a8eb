"use client";
// A step's output in the node inspector: the whole output from the event log (fetched once the step has
// started), the live lines that came after it, and a failed step's kubelet journal. Follows the end
// while the reader is at the bottom; scrolling up stops that and "Follow" resumes it. A search keeps the
// matching lines and highlights the match. Lines were redacted when recorded (lib/engine/step-output.ts).
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { StepView } from "@/lib/engine/queries";
import { runQueryKeys, type StepOutput } from "@/lib/engine/schemas";
import { api } from "../api-client";
import { drawnLines, filterLines, isAtBottom, mergeOutput, shownText, splitMatches, type LogLine } from "./log-model";

const ENDED_WITH_JOURNAL = new Set(["failed", "cancelled"]);

const kindClass: Record<LogLine["kind"], string> = {
  stdout: "text-slate-800",
  stderr: "bg-red-50 text-red-800",
  note: "text-indigo-700 italic",
  journal: "text-amber-900",
};

export function LogViewer({ runId, step }: { runId: string; step: StepView }) {
  const queryClient = useQueryClient();
  const key = runQueryKeys.stepOutput(runId, step.key);
  // Live lines keep it current; it is fetched again only when the run's snapshot is (use-run-events.ts)
  // and when the step ends in a way that adds a journal.
  const q = useQuery({
    queryKey: key,
    queryFn: () => api<StepOutput>(`/api/runs/${runId}/steps/${encodeURIComponent(step.key)}/output`),
    enabled: step.status !== "pending",
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
  const lastStatus = useRef(step.status);
  useEffect(() => {
    const was = lastStatus.current;
    lastStatus.current = step.status;
    if (was !== step.status && ENDED_WITH_JOURNAL.has(step.status) && (was === "running" || was === "waiting"))
      void queryClient.invalidateQueries({ queryKey: runQueryKeys.stepOutput(runId, step.key), exact: true });
  }, [step.status, runId, step.key, queryClient]);

  const [query, setQuery] = useState("");
  const [following, setFollowing] = useState(true);
  const box = useRef<HTMLDivElement>(null);
  const all = useMemo(() => mergeOutput(q.data, step.liveOutput), [q.data, step.liveOutput]);
  const kept = useMemo(() => filterLines(all, query), [all, query]);
  const drawn = useMemo(() => drawnLines(kept), [kept]);

  // Follow the end: after every change of what is drawn, while following.
  useLayoutEffect(() => {
    const el = box.current;
    if (el && following) el.scrollTop = el.scrollHeight;
  }, [drawn, following]);

  const testId = `step-output-${step.key}`;
  if (all.length === 0) {
    if (q.isError) return <p className="text-xs text-red-600">Could not load the output: {q.error.message}</p>;
    if (q.isFetching) return <p className="text-xs text-slate-500">Loading output…</p>;
    const ended = step.status !== "pending" && step.status !== "running" && step.status !== "waiting";
    return (
      <p className="text-xs text-slate-500" data-testid={`step-no-output-${step.key}`}>
        No output{ended ? "" : " yet"}.
      </p>
    );
  }
  return (
    <div className="space-y-1">
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <input
          type="search"
          className="input h-7 w-56 py-0 text-xs"
          placeholder="Search the output"
          aria-label={`Search the output of ${step.title}`}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          data-testid={`step-output-search-${step.key}`}
        />
        {query.trim() && (
          <span className="tabular-nums text-slate-600" data-testid={`step-output-matches-${step.key}`}>
            {kept.length} match{kept.length === 1 ? "" : "es"}
          </span>
        )}
        {!following && (
          <button type="button" className="btn h-7 py-0 text-xs" onClick={() => setFollowing(true)} data-testid={`step-output-follow-${step.key}`}>
            Follow ↓
          </button>
        )}
        {q.isError && <span className="text-red-600">could not load the earlier output: {q.error.message}</span>}
      </div>
      <div
        ref={box}
        className="max-h-80 overflow-auto rounded bg-slate-100 py-1 font-mono text-xs"
        data-testid={testId}
        data-following={following ? "true" : "false"}
        onScroll={(e) => setFollowing(isAtBottom(e.currentTarget))}
      >
        {drawn.map((l) => (
          <div
            key={l.n}
            data-line={l.n}
            data-stream={l.kind}
            className={`whitespace-pre-wrap break-all pl-12 pr-2 -indent-10 before:inline-block before:w-8 before:pr-2 before:text-right before:text-slate-600 before:content-[attr(data-line)] ${kindClass[l.kind]}`}
          >
            {splitMatches(l.text, query).map((p, i) =>
              p.match ? (
                <mark key={i} className="rounded-sm bg-yellow-200 text-inherit">
                  {p.text}
                </mark>
              ) : (
                p.text
              ),
            )}
          </div>
        ))}
      </div>
      <p className="text-xs text-slate-500" data-testid={`step-output-shown-${step.key}`}>
        {shownText({ total: all.length, kept: kept.length, drawn: drawn.length, query, truncated: q.data?.truncated ?? false })}
        {q.data?.source === "tail" ? " (the stored last lines: this step's live output was not recorded)" : ""}
      </p>
    </div>
  );
}
