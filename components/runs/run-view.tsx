"use client";
// The run page: a header (what, who, state, elapsed, progress, ETA), then either the plan to review and
// confirm (a planned run) or the rollout: what is waiting, the host × phase grid, and the selected
// cell's details. Live through use-run-events.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import type { PlannedStep } from "@/lib/engine/plan";
import type { RunView as Run } from "@/lib/engine/queries";
import { runQueryKeys, WARNINGS_NEED_DECISION } from "@/lib/engine/schemas";
import { api } from "../api-client";
import { useCan, useCurrentUser } from "../current-user";
import { DESTRUCTIVE_RUNS, retryRefusal } from "@/lib/engine/run-rules";
import { UpgradeControls } from "./upgrade-controls";
import { estimateRemainingMs, formatDuration } from "./eta";
import { allRows, buildGrid, findCell, progressOf, type Grid, type GridFilter } from "./grid-model";
import { HostGrid, type CellRef } from "./host-grid";
import { PlanReview, planSize } from "./plan-review";
import { runTypeTitle, StatusBadge } from "./run-status";
import { RunTimeline } from "./run-timeline";
import { StepDetails, WaitingLines } from "./step-details";
import { carryLiveOutput, useRunEvents } from "./use-run-events";
import type { StreamState } from "../reconnecting-event-source";
import { LiveTables } from "../clusters/live-tables";

export function RunView({ runId }: { runId: string }) {
  const queryClient = useQueryClient();
  const key = runQueryKeys.run(runId);
  // A fresh snapshot keeps the live output lines the page already has (the server does not send them).
  // After a failed refetch the page keeps its data and tries again every 5 s until the dashboard answers.
  const q = useQuery({
    queryKey: key,
    queryFn: async () => carryLiveOutput(queryClient.getQueryData<Run>(key), await api<Run>(`/api/runs/${runId}`)),
    refetchInterval: (query) => (query.state.status === "error" && query.state.data !== undefined ? 5_000 : false),
  });
  const canStart = useCan("run:start");
  const canReset = useCan("host:reset");
  const canCancel = useCan("run:cancel");
  const [now, setNow] = useState(() => Date.now());
  const status = q.data?.status;
  const stream = useRunEvents(runId, status === "running" || status === "planned");
  useEffect(() => {
    if (status !== "running") return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [status]);
  const start = useMutation({ mutationFn: () => api(`/api/runs/${runId}/start`, { method: "POST" }), onSettled: () => queryClient.invalidateQueries({ queryKey: key }) });
  const cancel = useMutation({ mutationFn: () => api(`/api/runs/${runId}/cancel`, { method: "POST" }) });
  const me = useCurrentUser();
  const retry = useMutation({
    mutationFn: (body: { host?: string; step?: string; acceptWarnings?: boolean }) => api(`/api/runs/${runId}/retry`, { method: "POST", body }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });

  if (q.isPending) return <p className="text-sm text-slate-500">Loading run…</p>;
  // A failed refetch keeps the page that has data (react-query keeps it): only the first load can fail whole.
  if (q.data === undefined) return <p className="text-sm text-red-600">Could not load the run: {q.error?.message ?? "no answer"}</p>;
  const run = q.data;
  const size = planSize(run.plan);
  const canRetry = !!me && (run.status === "failed" || run.status === "cancelled") && !retryRefusal(me.role, run);
  const canStartThis = canStart && (!DESTRUCTIVE_RUNS.includes(run.type) || canReset);
  return (
    <div className="space-y-4">
      <div className="flex items-start justify-between gap-4">
        <RunHeader run={run} now={now} stream={stream} />
        <div className="flex shrink-0 gap-2">
          <a className="btn" href={`/api/runs/${runId}/bundle`} download data-testid="run-bundle">
            Download support bundle
          </a>
          {run.status === "planned" && canStartThis && (
            <button className="btn-primary" data-testid="run-start" disabled={start.isPending} onClick={() => start.mutate()}>
              Confirm and start: {size.steps} step{size.steps === 1 ? "" : "s"} on {size.hosts} host{size.hosts === 1 ? "" : "s"}
            </button>
          )}
          {run.status === "failed" && canStart && run.steps.some((s) => s.status === "failed" && s.error?.includes(WARNINGS_NEED_DECISION)) && (
            <button
              className="btn-primary"
              data-testid="run-accept-warnings"
              disabled={retry.isPending}
              onClick={() => retry.mutate({ acceptWarnings: true })}
              title="The preflight warnings are acceptable on these hosts: record that you accept them and run the failed steps again"
            >
              Accept warnings and retry
            </button>
          )}
          {canRetry && (
            <button className="btn" data-testid="run-retry" disabled={retry.isPending} onClick={() => retry.mutate({})}>
              Retry {run.status === "failed" ? "all failures" : "from where it stopped"}
            </button>
          )}
          <UpgradeControls runId={runId} type={run.type} status={run.status} />
          {(run.status === "running" || run.status === "planned") && canCancel && (
            <button className="btn" data-testid="run-cancel" disabled={cancel.isPending || run.cancelRequested} onClick={() => cancel.mutate()}>
              {run.cancelRequested ? "Cancelling…" : "Cancel"}
            </button>
          )}
        </div>
      </div>
      {q.isError && (
        <p className="rounded border border-amber-200 bg-amber-50 px-2 py-1 text-sm text-amber-900" data-testid="run-lost-contact" title={q.error.message}>
          Lost contact with the dashboard, retrying…
        </p>
      )}
      {start.isError && <p className="text-sm text-red-600">{start.error.message}</p>}
      {cancel.isError && <p className="text-sm text-red-600">{cancel.error.message}</p>}
      {retry.isError && <p className="text-sm text-red-600">Could not retry: {retry.error.message}</p>}
      {run.summary?.message ? (
        <p className={`text-sm ${run.status === "succeeded" ? "text-green-700" : "text-red-700"}`} data-testid="run-summary">
          {String(run.summary.message)}
        </p>
      ) : null}
      {run.status === "planned" ? <PlanReview plan={run.plan} /> : <Rollout run={run} now={now} onRetry={canRetry ? (b) => retry.mutate(b) : undefined} />}
      {run.status !== "planned" && ["bootstrap", "join", "remove", "upgrade"].includes(run.type) && (
        <section className="card">
          <h2 className="mb-2 font-semibold">Pods and nodes</h2>
          <LiveTables clusterId={run.clusterId} />
        </section>
      )}
    </div>
  );
}

function RunHeader({ run, now, stream }: { run: Run; now: number; stream: StreamState | null }) {
  const progress = progressOf(run.steps);
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now;
  const eta = run.status === "running" ? estimateRemainingMs({ steps: run.steps, startedAt: run.startedAt, now }) : null;
  const pct = progress.total ? (100 * progress.finished) / progress.total : 0;
  return (
    <div className="min-w-0 flex-1 space-y-1">
      <p className="text-sm">
        <Link className="text-indigo-700 hover:underline" href={`/clusters/${run.clusterId}`} data-testid="run-cluster">
          {run.clusterName}
        </Link>
      </p>
      <h1 className="text-2xl font-bold">
        {runTypeTitle[run.type] ?? run.type} <StatusBadge status={run.status} testId="run-status" />
      </h1>
      <p className="text-sm text-slate-500" data-testid="run-meta">
        {run.createdBy ? `by ${run.createdBy}` : "by an unknown user"}
        {" · "}
        {run.startedAt ? `elapsed ${formatDuration(end - Date.parse(run.startedAt))}` : "not started"}
        {run.status === "running" && stream && stream !== "closed" && (
          <span className={`ml-2 ${stream === "open" ? "text-green-700" : "text-amber-700"}`} data-testid="run-live" data-state={stream}>
            {stream === "open" ? "● live" : stream === "connecting" ? "○ connecting…" : "○ reconnecting…"}
          </span>
        )}
      </p>
      {run.status !== "planned" && (
        <div className="flex items-center gap-3 pt-1">
          <div className="h-2 flex-1 overflow-hidden rounded bg-slate-200" role="progressbar" aria-label="steps finished" aria-valuenow={progress.finished} aria-valuemin={0} aria-valuemax={progress.total}>
            <div className={`h-2 transition-[width] ${progress.failed ? "bg-red-500" : "bg-indigo-600"}`} style={{ width: `${pct}%` }} />
          </div>
          <span className="shrink-0 text-sm tabular-nums text-slate-600" data-testid="run-progress">
            {progress.finished}/{progress.total} steps
            {progress.failed ? ` · ${progress.failed} failed` : ""}
            {run.status === "running" && (eta === null ? " · ETA after the first step" : ` · about ${formatDuration(eta)} left`)}
          </span>
        </div>
      )}
    </div>
  );
}

function Rollout({ run, now, onRetry }: { run: Run; now: number; onRetry?: (body: { host?: string; step?: string }) => void }) {
  const grid: Grid = useMemo(() => buildGrid(run), [run]);
  const planned = useMemo(() => new Map<string, PlannedStep>(run.plan.phases.flatMap((p) => p.steps.map((s) => [s.key, s] as const))), [run.plan]);
  const [filter, setFilter] = useState<GridFilter>(allRows);
  const [picked, setPicked] = useState<CellRef | null>(null);
  // Until a cell is picked, the first failure is shown (its row sorts first).
  const selected = picked ?? firstFailedCell(grid);
  const found = selected ? findCell(grid, selected.row, selected.phase) : null;
  return (
    <>
      <WaitingLines steps={run.steps} now={now} />
      <HostGrid grid={grid} filter={filter} onFilter={setFilter} selected={selected} onSelect={setPicked} now={now} />
      {found ? (
        <StepDetails
          runId={run.id}
          hostInfo={run.hosts.find((h) => h.name === found.row.host)} clusterId={run.clusterId} row={found.row} cell={found.cell} phaseTitle={grid.phases.find((p) => p.id === found.cell.phase)?.title ?? found.cell.phase} planned={planned} now={now} onRetry={onRetry} />
      ) : (
        <p className="text-sm text-slate-500">Click a cell to see its step: status, attempts, exit code, error, hint and output.</p>
      )}
      <RunTimeline grid={grid} now={now} />
    </>
  );
}

function firstFailedCell(grid: Grid): CellRef | null {
  for (const row of grid.rows) {
    const cell = row.cells.find((c) => c?.status === "failed");
    if (cell) return { row: row.id, phase: cell.phase };
  }
  return null;
}
