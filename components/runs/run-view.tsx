"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import type { RunView as Run, StepView } from "@/lib/engine/queries";
import { runQueryKeys } from "@/lib/engine/schemas";
import { api } from "../api-client";
import { useCan } from "../current-user";
import { useRunEvents } from "./use-run-events";

const statusStyle: Record<string, string> = {
  pending: "bg-slate-100 text-slate-600",
  running: "bg-blue-100 text-blue-700",
  waiting: "bg-amber-100 text-amber-700",
  done: "bg-green-100 text-green-700",
  succeeded: "bg-green-100 text-green-700",
  skipped: "bg-slate-100 text-slate-400",
  failed: "bg-red-100 text-red-700",
  cancelled: "bg-slate-200 text-slate-600",
  planned: "bg-indigo-100 text-indigo-700",
};

function Badge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span className={`rounded px-2 py-0.5 text-xs font-medium ${statusStyle[status] ?? ""}`} data-testid={testId}>
      {status}
    </span>
  );
}

function duration(from: string | null, to: string | null, now: number): string {
  if (!from) return "";
  const ms = (to ? Date.parse(to) : now) - Date.parse(from);
  const s = Math.max(0, Math.round(ms / 100) / 10);
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)}m ${Math.round(s % 60)}s`;
}

export function RunView({ runId }: { runId: string }) {
  const queryClient = useQueryClient();
  const key = runQueryKeys.run(runId);
  const q = useQuery({ queryKey: key, queryFn: () => api<Run>(`/api/runs/${runId}`) });
  const canStart = useCan("run:start");
  const canCancel = useCan("run:cancel");
  const [now, setNow] = useState(() => Date.now());
  const live = q.data?.status === "running" || q.data?.status === "planned";
  useRunEvents(runId, !!q.data && live);
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [live]);
  const start = useMutation({ mutationFn: () => api(`/api/runs/${runId}/start`, { method: "POST" }), onSettled: () => queryClient.invalidateQueries({ queryKey: key }) });
  const cancel = useMutation({ mutationFn: () => api(`/api/runs/${runId}/cancel`, { method: "POST" }) });

  if (q.isPending) return <p className="text-sm text-slate-500">Loading run…</p>;
  if (q.isError) return <p className="text-sm text-red-600">Could not load the run: {q.error.message}</p>;
  const run = q.data;
  const done = run.steps.filter((s) => ["done", "skipped", "failed", "cancelled"].includes(s.status)).length;
  const failed = run.steps.filter((s) => s.status === "failed");
  return (
    <div className="space-y-4">
      <div className="flex items-start justify-between">
        <div>
          <p className="text-sm">
            <Link className="text-indigo-700 hover:underline" href={`/clusters/${run.clusterId}`}>
              {run.clusterName}
            </Link>
          </p>
          <h1 className="text-2xl font-bold">
            {run.type === "check" ? "Check hosts" : run.type} <Badge status={run.status} testId="run-status" />
          </h1>
          <p className="text-sm text-slate-500">
            {run.createdBy ? `by ${run.createdBy} · ` : ""}
            {run.startedAt ? `elapsed ${duration(run.startedAt, run.finishedAt, now)}` : "not started"} · {done}/{run.steps.length} steps
          </p>
        </div>
        <div className="flex gap-2">
          {run.status === "planned" && canStart && (
            <button className="btn-primary" data-testid="run-start" disabled={start.isPending} onClick={() => start.mutate()}>
              Confirm and start
            </button>
          )}
          {(run.status === "running" || run.status === "planned") && canCancel && (
            <button className="btn" data-testid="run-cancel" disabled={cancel.isPending || run.cancelRequested} onClick={() => cancel.mutate()}>
              {run.cancelRequested ? "Cancelling…" : "Cancel"}
            </button>
          )}
        </div>
      </div>
      <div className="h-2 w-full overflow-hidden rounded bg-slate-200" role="progressbar" aria-valuenow={done} aria-valuemax={run.steps.length}>
        <div className={`h-2 ${failed.length ? "bg-red-500" : "bg-indigo-600"}`} style={{ width: `${run.steps.length ? (100 * done) / run.steps.length : 0}%` }} />
      </div>
      {start.isError && <p className="text-sm text-red-600">{start.error.message}</p>}
      {run.summary?.message ? (
        <p className={`text-sm ${run.status === "succeeded" ? "text-green-700" : "text-red-700"}`} data-testid="run-summary">
          {String(run.summary.message)}
        </p>
      ) : null}
      {run.status === "planned" && <p className="text-sm text-slate-600">This is the plan. Nothing has been sent to any host yet; review the commands, then confirm.</p>}
      {run.plan.phases.map((phase) => (
        <section key={phase.id} className="card">
          <h2 className="mb-2 font-semibold">{phase.title}</h2>
          <table className="min-w-full text-sm">
            <tbody>
              {run.steps
                .filter((s) => s.phase === phase.id)
                .map((s) => (
                  <StepRow key={s.id} step={s} planned={phase.steps.find((p) => p.key === s.key)} now={now} />
                ))}
            </tbody>
          </table>
        </section>
      ))}
    </div>
  );
}

function StepRow({ step, planned, now }: { step: StepView; planned?: { commands: string[] }; now: number }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <tr className="border-t border-slate-100" data-testid={`step-${step.key}`}>
        <td className="w-40 p-1 font-mono text-xs">{step.host ?? "cluster"}</td>
        <td className="p-1">{step.title}</td>
        <td className="w-24 p-1">
          <Badge status={step.status} />
        </td>
        <td className="w-20 p-1 text-right text-xs text-slate-500">{duration(step.startedAt, step.finishedAt, now)}</td>
        <td className="w-16 p-1 text-right">
          <button className="text-xs text-indigo-700 hover:underline" onClick={() => setOpen(!open)}>
            {open ? "hide" : "details"}
          </button>
        </td>
      </tr>
      {step.error && (
        <tr>
          <td />
          <td colSpan={4} className="p-1 text-xs text-red-700" data-testid={`step-error-${step.key}`}>
            {step.error}
            {step.hint && <div className="text-slate-700">Try: {step.hint}</div>}
          </td>
        </tr>
      )}
      {open && (
        <tr>
          <td />
          <td colSpan={4} className="p-1">
            {planned?.commands.map((c) => (
              <pre key={c} className="mb-1 overflow-x-auto rounded bg-slate-900 p-2 text-xs text-slate-100">
                {c}
              </pre>
            ))}
            {step.output && <pre className="overflow-x-auto rounded bg-slate-100 p-2 text-xs">{step.output}</pre>}
            <p className="text-xs text-slate-500">attempts: {step.attempts}{step.exitCode !== null ? ` · exit ${step.exitCode}` : ""}</p>
          </td>
        </tr>
      )}
    </>
  );
}
