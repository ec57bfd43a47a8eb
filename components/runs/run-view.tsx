"use client";
// The run page: a header (what, who, state, elapsed, progress, ETA), then either the plan to review and
// confirm (a planned run) or the rollout: what is waiting, the host × phase grid, and the selected
// cell's details. Live through use-run-events.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import type { PhaseTimes } from "@/lib/clusters/phase-times";
import type { PlannedStep } from "@/lib/engine/plan";
import type { RunView as Run } from "@/lib/engine/queries";
import { runQueryKeys } from "@/lib/engine/schemas";
import { api } from "../api-client";
import { CopyButton } from "../copy-button";
import { useCan, useCurrentUser } from "../current-user";
import { DESTRUCTIVE_RUNS, retryRefusal } from "@/lib/engine/run-rules";
import { Time } from "../time";
import { UpgradeControls } from "./upgrade-controls";
import { estimateRemaining, formatDuration } from "./eta";
import { allRows, buildGrid, findCell, groupWarnings, progressOf, stepState, type Grid, type GridFilter } from "./grid-model";
import { HostGrid, type CellRef } from "./host-grid";
import { PlanReview, planSize } from "./plan-review";
import { useNotifyOptIn, useRunNotice } from "./run-notice";
import { runTypeTitle, StatusBadge } from "./run-status";
import { RunTimeline } from "./run-timeline";
import { StepDetails, WaitingLines } from "./step-details";
import { appliedAfter, freshRunSnapshot, useRunEvents } from "./use-run-events";
import type { StreamState } from "../reconnecting-event-source";
import { LiveTables } from "../clusters/live-tables";

/** `initialCell`: the cell to open first (a link from a host's page: `?host=worker-2&phase=preflight`). */
export function RunView({ runId, initialCell }: { runId: string; initialCell?: CellRef }) {
  const queryClient = useQueryClient();
  const key = runQueryKeys.run(runId);
  // A fresh snapshot keeps the live output lines the page already has (the server does not send them).
  // After a failed refetch the page keeps its data and tries again every 5 s until the dashboard answers.
  const q = useQuery({
    queryKey: key,
    queryFn: () => freshRunSnapshot(() => api<Run>(`/api/runs/${runId}`), () => queryClient.getQueryData<Run>(key), (seq) => appliedAfter(queryClient, runId, seq)),
    refetchInterval: (query) => (query.state.status === "error" && query.state.data !== undefined ? 5_000 : false),
  });
  const canStart = useCan("run:start");
  const canReset = useCan("host:reset");
  const canCancel = useCan("run:cancel");
  const [now, setNow] = useState(() => Date.now());
  const status = q.data?.status;
  // Every state but success is followed: anyone may retry a failed run or accept its warnings, and every
  // open view of it must go on with it (the stream, too, stays open past a failure: lib/engine/sse.ts).
  const stream = useRunEvents(runId, status !== undefined && status !== "succeeded");
  const [notify, setNotify] = useNotifyOptIn();
  useRunNotice(q.data, notify);
  useEffect(() => {
    if (status !== "running") return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [status]);
  const start = useMutation({ mutationFn: () => api(`/api/runs/${runId}/start`, { method: "POST" }), onSettled: () => queryClient.invalidateQueries({ queryKey: key }) });
  const cancel = useMutation({ mutationFn: () => api(`/api/runs/${runId}/cancel`, { method: "POST" }), onSettled: () => queryClient.invalidateQueries({ queryKey: key }) });
  const me = useCurrentUser();
  const canRelease = useCan("run:release");
  const release = useMutation({
    mutationFn: (reason: string) => api(`/api/runs/${runId}/release`, { method: "POST", body: { confirm: true, ...(reason ? { reason } : {}) } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const askRelease = (run: Run) => {
    const beat = run.heartbeatAt ? `${Math.round((Date.now() - Date.parse(run.heartbeatAt)) / 1000)} s ago` : "never";
    const reason = window.prompt(
      `Release this run? It ends as failed ("released by you"), the cluster is free for a new run, and its worker (${run.workerId ?? "none"}, last heartbeat ${beat}) writes nothing more. Commands it started on hosts are not stopped.\n\nWhy (kept in the run and the audit log)?`,
      "",
    );
    if (reason !== null) release.mutate(reason.trim());
  };
  const retry = useMutation({
    mutationFn: (body: { host?: string; step?: string; acceptWarnings?: boolean }) => api(`/api/runs/${runId}/retry`, { method: "POST", body }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });

  if (q.isPending) return <p className="text-sm text-slate-500">Loading run…</p>;
  // A failed refetch keeps the page that has data (react-query keeps it): only the first load can fail whole.
  if (q.data === undefined) return <p className="text-sm text-red-600">Could not load the run: {q.error?.message ?? "no answer"}</p>;
  const run = q.data;
  const size = planSize(run.plan);
  // A run planned before the cluster was edited can be neither started nor retried: plan it again.
  // A plan cancelled before it started has nowhere it stopped: planning again is the way on.
  const canRetry = !!me && !run.stale && !!run.startedAt && (run.status === "failed" || run.status === "cancelled") && !retryRefusal(me.role, run);
  const canStartThis = canStart && !run.stale && (!DESTRUCTIVE_RUNS.includes(run.type) || canReset);
  const decisions = run.steps.filter((s) => stepState(s) === "decision");
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
          <NotifyButton on={notify} onChange={setNotify} />
          {(run.status === "failed" || run.status === "needs-decision") && canStart && !run.stale && decisions.length > 0 && (
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
          {run.status === "running" && canRelease && (
            <button className="btn text-xs" data-testid="run-release" disabled={release.isPending} onClick={() => askRelease(run)} title="Only for a run whose worker is gone or stuck (no progress, the dashboard restarted elsewhere): it ends as failed and frees the cluster. A healthy run needs nothing here; Cancel stops it.">
              Release a stuck run…
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
      {release.isError && <p className="text-sm text-red-600">Could not release: {release.error.message}</p>}
      {run.storage?.full && (
        <p className="rounded border border-red-200 bg-red-50 px-2 py-1 text-sm text-red-800" data-testid="run-disk-full">
          The database disk is full
          {run.storage.since && (
            <>
              {" "}
              (since <Time iso={run.storage.since} />)
            </>
          )}
          : the engine cannot record progress and waits. Free space on the disk of Bootdeck&apos;s data directory; the run goes on by itself.
        </p>
      )}
      {run.stale && (run.status === "planned" || run.status === "failed" || run.status === "cancelled") && (
        <p className="rounded border border-amber-200 bg-amber-50 px-2 py-1 text-sm text-amber-900" data-testid="run-stale">
          The cluster was edited after this run was planned, so this plan no longer shows what would run: plan a new run from the cluster page.
        </p>
      )}
      {retry.isError && <p className="text-sm text-red-600">Could not retry: {retry.error.message}</p>}
      {run.summary?.message ? (
        <p className={`text-sm ${run.status === "succeeded" ? "text-green-700" : run.status === "needs-decision" ? "text-amber-800" : "text-red-700"}`} data-testid="run-summary">
          {String(run.summary.message)}
        </p>
      ) : null}
      {decisions.length > 0 && (run.status === "needs-decision" || run.status === "failed") && <DecisionNotice run={run} decisions={decisions} canDecide={canStart} />}
      {run.status === "planned" ? <PlanReview plan={run.plan} runId={run.id} /> : <Rollout run={run} now={now} initialCell={initialCell} onRetry={canRetry ? (b) => retry.mutate(b) : undefined} />}
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
  // What earlier successful runs of this type took per phase: the ETA's basis for phases not measured yet.
  const history = useQuery({
    queryKey: ["clusters", run.clusterId, "phase-times", run.type],
    queryFn: () => api<{ times: PhaseTimes | null }>(`/api/clusters/${run.clusterId}/phase-times?type=${run.type}`),
    enabled: run.status === "running",
    staleTime: 5 * 60_000,
  });
  const estimate = run.status === "running" ? estimateRemaining({ steps: run.steps, phases: run.plan.phases, startedAt: run.startedAt, now, history: history.data?.times?.phases }) : null;
  const pct = progress.total ? (100 * progress.finished) / progress.total : 0;
  const bar = progress.failed ? "bg-red-500" : progress.decisions || run.status === "needs-decision" ? "bg-amber-500" : "bg-indigo-600";
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
      <p className="flex flex-wrap items-center gap-x-1 text-sm text-slate-600" data-testid="run-meta">
        <span>{run.createdBy ? `by ${run.createdBy}` : "by an unknown user"}</span>
        <span>·</span>
        {run.startedAt ? (
          <span>
            started <Time iso={run.startedAt} testId="run-started-at" />, {run.finishedAt ? "took" : "elapsed"} {formatDuration(end - Date.parse(run.startedAt))}
          </span>
        ) : (
          <span>not started</span>
        )}
        <span>·</span>
        <span className="font-mono text-xs">{run.id}</span>
        <CopyButton value={run.id} label="the run's id" testId="copy-run-id" />
        {stream && stream !== "closed" && (
          <span className={`ml-2 ${stream === "open" ? "text-green-700" : "text-amber-700"}`} data-testid="run-live" data-state={stream}>
            {stream === "open" ? "● live" : stream === "connecting" ? "○ connecting…" : "○ reconnecting…"}
          </span>
        )}
      </p>
      {run.status !== "planned" && (
        <div className="flex items-center gap-3 pt-1">
          <div className="h-2 flex-1 overflow-hidden rounded bg-slate-200" role="progressbar" aria-label="steps finished" aria-valuenow={progress.finished} aria-valuemin={0} aria-valuemax={progress.total}>
            <div className={`h-2 transition-[width] ${bar}`} style={{ width: `${pct}%` }} data-testid="run-progress-bar" data-colour={bar.replace("bg-", "")} />
          </div>
          <span className="shrink-0 text-sm tabular-nums text-slate-700" data-testid="run-progress">
            {progress.finished}/{progress.total} steps
            {progress.failed ? ` · ${progress.failed} failed` : ""}
            {progress.notRun ? ` · ${progress.notRun} not run` : ""}
            {progress.decisions ? ` · ${progress.decisions} wait for a decision` : ""}
          </span>
          {estimate && (
            // Without an estimate the reason is long: it wraps beside the bar instead of widening the page.
            <span
              className={estimate.ms !== null ? "shrink-0 text-sm text-slate-700" : "min-w-0 max-w-md text-xs text-slate-600"}
              data-testid="run-eta"
              title={estimate.ms !== null && estimate.basis === "history" ? "From the phase times of the last successful run of this kind" : undefined}
            >
              {estimate.ms === null ? estimate.why : estimate.ms < 5_000 ? "almost done" : `about ${formatDuration(estimate.ms)} left`}
            </span>
          )}
        </div>
      )}
    </div>
  );
}

/** Warnings stop the run until an admin or lead accepts them: say so, which warnings on which hosts, and who can. */
function DecisionNotice({ run, decisions, canDecide }: { run: Run; decisions: Run["steps"]; canDecide: boolean }) {
  const who = run.deciders.map((d) => `${d.displayName || d.username} (${d.role})`);
  const hosts = decisions.map((s) => s.host ?? "the cluster");
  const warnings = groupWarnings(decisions);
  return (
    <section className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900" data-testid="run-decision">
      <p className="font-semibold">Needs a decision (admin or lead)</p>
      <p>
        Preflight found warnings on {hosts.length === 1 ? hosts[0] : `${hosts.length} hosts`}. This run stopped there (nothing runs meanwhile, so there is
        nothing to cancel) until an admin or lead accepts them, or they are fixed on the hosts and the run is retried:
      </p>
      <ul className="my-1 list-disc pl-5" data-testid="run-decision-warnings">
        {warnings.map((w) => (
          <li key={w.message} data-testid="run-decision-warning">
            <span className="font-medium">{w.hosts.length === hosts.length && hosts.length > 1 ? `every host (${hosts.length})` : w.hosts.join(", ")}</span>: {w.message}
          </li>
        ))}
      </ul>
      <p data-testid="run-deciders">
        {canDecide ? "You can decide here. " : "Ask one of them: "}
        {who.length ? `Who can decide: ${who.join(", ")}.` : "No enabled admin or lead exists: an admin must add one."}
      </p>
    </section>
  );
}

/** Opt in to a browser notification when this run (or any run page left open) ends or needs a decision. */
function NotifyButton({ on, onChange }: { on: boolean; onChange: (on: boolean) => void }) {
  const [blocked, setBlocked] = useState(false);
  const supported = typeof window !== "undefined" && "Notification" in window;
  if (!supported) return null;
  return (
    <button
      className="btn"
      data-testid="run-notify"
      data-on={on}
      title={blocked ? "The browser blocks notifications for this site: allow them in its site settings" : "A browser notification when a run you have open ends or needs a decision"}
      onClick={async () => {
        if (on) return onChange(false);
        const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
        setBlocked(permission === "denied");
        if (permission === "granted") onChange(true);
      }}
    >
      {on ? "🔔 Notifying" : blocked ? "Notifications blocked" : "Notify me"}
    </button>
  );
}

function Rollout({ run, now, onRetry, initialCell }: { run: Run; now: number; onRetry?: (body: { host?: string; step?: string }) => void; initialCell?: CellRef }) {
  const grid: Grid = useMemo(() => buildGrid(run), [run]);
  const planned = useMemo(() => new Map<string, PlannedStep>(run.plan.phases.flatMap((p) => p.steps.map((s) => [s.key, s] as const))), [run.plan]);
  const [filter, setFilter] = useState<GridFilter>(allRows);
  const [picked, setPicked] = useState<CellRef | null>(initialCell ?? null);
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
    const cell = row.cells.find((c) => c?.status === "failed" || c?.status === "decision");
    if (cell) return { row: row.id, phase: cell.phase };
  }
  return null;
}
