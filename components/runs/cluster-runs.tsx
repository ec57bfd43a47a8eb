"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { assetQueryKeys, type RenderJobView } from "@/lib/assets/schemas";
import type { ClusterRunRow } from "@/lib/engine/queries";
import { runQueryKeys, type CreateRunBody } from "@/lib/engine/schemas";
import { api } from "../api-client";
import { useCan } from "../current-user";
import { Time } from "../time";
import { formatDuration } from "./eta";
import { runTypeTitle, StatusBadge } from "./run-status";

/**
 * Run history of a cluster, and the buttons that plan a check or a bootstrap (confirmed on the run page).
 * On a cluster that was bootstrapped already, a bootstrap is not the next step (its hosts must be reset
 * first): the button is secondary and asks before it plans one.
 */
export function ClusterRuns({ clusterId, bootstrapped = false }: { clusterId: string; bootstrapped?: boolean }) {
  const [askAgain, setAskAgain] = useState(false);
  const router = useRouter();
  const canStart = useCan("run:start");
  const q = useQuery({ queryKey: runQueryKeys.clusterRuns(clusterId), queryFn: () => api<{ runs: ClusterRunRow[] }>(`/api/clusters/${clusterId}/runs`) });
  const plan = useMutation({
    mutationFn: (body: CreateRunBody) => api<{ id: string }>(`/api/clusters/${clusterId}/runs`, { method: "POST", body }),
    onSuccess: (r) => router.push(`/clusters/${clusterId}/runs/${r.id}`),
  });
  // A bootstrap pushes the cluster's rendered assets. Usually rendered ahead (when the cluster was
  // saved); if not, or not yet, the render's progress shows here and the plan follows it.
  const [renderJob, setRenderJob] = useState<string>();
  const ensure = useMutation({
    mutationFn: () => api<{ ready: true } | { ready: false; job: RenderJobView }>(`/api/clusters/${clusterId}/assets/ensure`, { method: "POST" }),
    onSuccess: (r) => (r.ready ? plan.mutate({ type: "bootstrap" }) : setRenderJob(r.job.id)),
  });
  const job = useQuery({
    queryKey: assetQueryKeys.job(clusterId, renderJob ?? "none"),
    queryFn: () => api<RenderJobView>(`/api/clusters/${clusterId}/assets/jobs/${renderJob}`),
    enabled: renderJob !== undefined,
    refetchInterval: (q) => (q.state.data?.status === "done" || q.state.data?.status === "failed" ? false : 250),
  });
  const rendered = job.data?.status === "done";
  useEffect(() => {
    if (!rendered) return;
    setRenderJob(undefined);
    plan.mutate({ type: "bootstrap" });
    // plan.mutate is stable in what it does; planning once per finished render is the point.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rendered]);
  const rendering = renderJob !== undefined && job.data?.status !== "failed";
  const planning = plan.isPending ? plan.variables?.type : ensure.isPending || rendering ? "bootstrap" : undefined;
  return (
    <section className="card">
      <div className="mb-2 flex items-center justify-between">
        <h2 className="font-semibold">Runs</h2>
        {canStart && (
          <div className="flex gap-2">
            <button className="btn" data-testid="plan-check" disabled={plan.isPending} onClick={() => plan.mutate({ type: "check" })} title="Connect to every host, pin host keys, gather facts and run preflight checks; nothing is changed">
              {planning === "check" ? "Planning…" : "Check hosts"}
            </button>
            <button
              className={bootstrapped ? "btn" : "btn-primary"}
              data-testid="plan-bootstrap"
              disabled={plan.isPending || ensure.isPending || rendering}
              onClick={() => (bootstrapped && !askAgain ? setAskAgain(true) : ensure.mutate())}
              title="Plan the whole bootstrap (facts, preflight, packages, binaries, kubelet, control plane, self-hosted, pivot, join, verify); you review the plan before anything runs"
            >
              {rendering ? "Rendering assets…" : planning === "bootstrap" ? "Planning…" : "Bootstrap cluster"}
            </button>
          </div>
        )}
      </div>
      {askAgain && !planning && (
        <p className="mb-2 rounded bg-amber-50 px-2 py-1 text-sm text-amber-900" data-testid="bootstrap-again">
          This cluster was bootstrapped already. A bootstrap is for hosts with nothing of a cluster on them: reset the hosts first (Reset on each host), or
          use the runs that act on a running cluster below. Click &ldquo;Bootstrap cluster&rdquo; again to plan one anyway (you still review it before anything runs).{" "}
          <button className="text-indigo-700 underline" data-testid="bootstrap-again-cancel" onClick={() => setAskAgain(false)}>
            Never mind
          </button>
        </p>
      )}
      {rendering && job.data && (
        <div className="mb-2 text-sm text-slate-700" data-testid="plan-render-progress">
          <p>
            Rendering the cluster&apos;s certificates and manifests first (RSA keys take a few seconds): {job.data.done} of {job.data.total} — {job.data.label}
          </p>
          <div className="mt-1 h-2 w-full overflow-hidden rounded bg-slate-200" role="progressbar" aria-label="render progress" aria-valuenow={job.data.done} aria-valuemin={0} aria-valuemax={job.data.total}>
            <div className="h-2 bg-indigo-600 transition-all" style={{ width: `${Math.round((100 * job.data.done) / Math.max(1, job.data.total))}%` }} />
          </div>
        </div>
      )}
      {job.data?.status === "failed" && <p className="text-sm text-red-700">The render failed: {job.data.error?.message}</p>}
      {ensure.isError && <p className="text-sm text-red-700">{ensure.error.message}</p>}
      {plan.isError && <p className="text-sm text-red-600">{plan.error.message}</p>}
      {q.isError && <p className="text-sm text-red-600">Could not load the runs: {q.error.message}</p>}
      {q.data?.runs.length === 0 && <p className="text-sm text-slate-500">No runs yet.</p>}
      {q.data && q.data.runs.length > 0 && (
        <table className="min-w-full text-sm" data-testid="run-history">
          <thead className="text-left text-xs text-slate-500">
            <tr>
              <th className="p-1 font-medium">Type</th>
              <th className="p-1 font-medium">By</th>
              <th className="p-1 font-medium">State</th>
              <th className="p-1 font-medium">Started</th>
              <th className="p-1 text-right font-medium">Duration</th>
              <th className="p-1 font-medium">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {q.data.runs.map((r) => (
              <tr key={r.id} className="border-t border-slate-100" data-testid={`run-row-${r.id}`}>
                <td className="p-1">
                  <Link className="text-indigo-700 hover:underline" href={`/clusters/${clusterId}/runs/${r.id}`}>
                    {runTypeTitle[r.type] ?? r.type}
                  </Link>
                </td>
                <td className="p-1">{r.createdBy ?? "—"}</td>
                <td className="p-1">
                  <StatusBadge status={r.status} />
                </td>
                <td className="p-1 text-slate-500">{r.startedAt ? <Time iso={r.startedAt} /> : <>planned <Time iso={r.createdAt} /></>}</td>
                <td className="p-1 text-right tabular-nums text-slate-500">{r.durationMs !== null ? formatDuration(r.durationMs) : ""}</td>
                <td className="p-1">{r.outcome ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
