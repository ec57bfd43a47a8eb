"use client";
// The details of the grid's selected cell (usually one step), and the run's "waiting for …" lines.
import Link from "next/link";
import type { PlannedStep } from "@/lib/engine/plan";
import type { RunHost, StepView } from "@/lib/engine/queries";
import { waitingText } from "./eta";
import { CopyButton } from "../copy-button";
import { stepState, type GridCell, type GridRow } from "./grid-model";
import { HostDiagnostics } from "./host-diagnostics";
import { HostInspector } from "./host-inspector";
import { cellDuration } from "./host-grid";
import { LogViewer } from "./log-viewer";
import { PlannedStepBody } from "./plan-review";
import { StatusBadge } from "./run-status";

export function StepDetails({
  runId,
  clusterId,
  row,
  cell,
  phaseTitle,
  planned,
  now,
  onRetry,
  hostInfo,
}: {
  runId: string;
  clusterId: string;
  /** The selected row's host (facts, preflight findings), for the inspector. */
  hostInfo?: RunHost;
  row: GridRow;
  cell: GridCell;
  phaseTitle: string;
  planned: ReadonlyMap<string, PlannedStep>;
  now: number;
  /** Given when the user may retry and the run is over. */
  onRetry?: (body: { host?: string; step?: string }) => void;
}) {
  const failed = cell.steps.filter((s) => s.status === "failed");
  return (
    <section className="card space-y-3" data-testid="step-details">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="flex flex-wrap items-center gap-2 font-semibold">
          <span>
            {phaseTitle} on{" "}
            {row.host ? (
              <Link className="text-indigo-700 underline" href={`/clusters/${clusterId}/hosts/${encodeURIComponent(row.host)}`} data-testid="step-host-link">
                {row.host}
              </Link>
            ) : (
              "the cluster"
            )}
          </span>
          {row.address && (
            <>
              <span className="font-mono text-sm font-normal text-slate-600">{row.address}</span>
              <CopyButton value={row.address} label={`${row.host}'s address`} testId="copy-step-address" />
            </>
          )}
        </h2>
        {onRetry && failed.length > 0 && (
          <div className="flex gap-2">
            {failed.map((s) => (
              <button key={s.id} className="btn" data-testid={`retry-step-${s.key}`} onClick={() => onRetry({ step: s.key })}>
                Retry this step
              </button>
            ))}
            {row.host && (
              <button className="btn" data-testid={`retry-host-${row.host}`} onClick={() => onRetry({ host: row.host ?? undefined })}>
                Retry {row.host}
              </button>
            )}
          </div>
        )}
      </div>
      {cell.steps.map((s) => (
        <StepDetail key={s.id} runId={runId} step={s} planned={planned.get(s.key)} now={now} />
      ))}
      {hostInfo && <HostInspector clusterId={clusterId} host={hostInfo} />}
      {row.host && <HostDiagnostics key={row.host} clusterId={clusterId} host={row.host} />}
    </section>
  );
}

function StepDetail({ runId, step, planned, now }: { runId: string; step: StepView; planned: PlannedStep | undefined; now: number }) {
  return (
    <div className="space-y-2 border-t border-slate-100 pt-2 first:border-0 first:pt-0" data-testid={`step-${step.key}`}>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-medium">{step.title}</span>
        <StatusBadge status={stepState(step)} testId={`step-status-${step.key}`} />
        <span className="text-xs text-slate-500">
          attempts {step.attempts}
          {step.exitCode !== null ? ` · exit code ${step.exitCode}` : ""}
          {step.startedAt ? ` · ${cellDuration(step, now)}` : ""}
        </span>
      </div>
      {step.waiting && step.status === "waiting" && <WaitingText waiting={step.waiting} now={now} />}
      {step.error && (
        <div className={`rounded p-2 text-sm ${stepState(step) === "decision" ? "bg-amber-50 text-amber-900" : "bg-red-50 text-red-800"}`} data-testid={`step-error-${step.key}`}>
          {step.error}
          {step.hint && <div className="mt-1 text-slate-700">Try: {step.hint}</div>}
        </div>
      )}
      <LogViewer runId={runId} step={step} />
      {planned && (
        <details className="text-sm">
          <summary className="cursor-pointer text-xs text-indigo-700">What this step sends</summary>
          <div className="mt-2">
            <PlannedStepBody step={planned} runId={runId} />
          </div>
        </details>
      )}
    </div>
  );
}

function WaitingText({ waiting, now }: { waiting: NonNullable<StepView["waiting"]>; now: number }) {
  const { text, overdue } = waitingText(waiting, now);
  return (
    <div className={`text-sm ${overdue ? "text-red-700" : "text-amber-800"}`}>
      <p>◷ {text}</p>
      {waiting.why && (
        <p className="ml-4 break-words text-xs" data-testid="waiting-why">
          still: {waiting.why}
        </p>
      )}
    </div>
  );
}

const MAX_WAIT_LINES = 8;

/** Every step waiting right now, one line each (the first few; the count of the rest). */
export function WaitingLines({ steps, now }: { steps: readonly StepView[]; now: number }) {
  const waiting = steps.filter((s) => s.status === "waiting" && s.waiting);
  if (waiting.length === 0) return null;
  return (
    <ul className="space-y-0.5 rounded border border-amber-200 bg-amber-50 p-2" data-testid="waiting-lines">
      {waiting.slice(0, MAX_WAIT_LINES).map((s) => (
        <li key={s.id} data-testid={`waiting-${s.key}`}>
          <WaitingText waiting={s.waiting!} now={now} />
        </li>
      ))}
      {waiting.length > MAX_WAIT_LINES && <li className="text-sm text-amber-800">and {waiting.length - MAX_WAIT_LINES} more steps waiting</li>}
    </ul>
  );
}
