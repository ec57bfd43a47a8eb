"use client";
// One host: its state, facts with their time, pinned key, and every run that worked on it, with the step
// that failed there — each a link to that cell on the run page, where its output is. Join and reset
// from here too.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { HostView } from "@/lib/clusters/hosts";
import { lastWorkedRun } from "@/lib/clusters/host-state";
import { queryKeys } from "@/lib/clusters/schemas";
import { api, ApiError } from "../api-client";
import { CopyButton } from "../copy-button";
import { HostActions } from "../runs/host-actions";
import { runTypeTitle, StatusBadge } from "../runs/run-status";
import { Time } from "../time";
import { HostFactsLine } from "./host-facts";

const tone = { ok: "bg-green-100 text-green-800", bad: "bg-red-100 text-red-800", warn: "bg-amber-200 text-amber-900", busy: "bg-blue-100 text-blue-800", none: "bg-slate-100 text-slate-700" } as const;

export function HostPage({ clusterId, host }: { clusterId: string; host: string }) {
  const q = useQuery({ queryKey: queryKeys.host(clusterId, host), queryFn: () => api<HostView>(`/api/clusters/${clusterId}/hosts/${encodeURIComponent(host)}`), refetchInterval: 10_000 });
  if (q.isPending) return <p className="text-sm text-slate-600">Loading…</p>;
  if (q.isError) return <p className="text-sm text-red-700">{q.error instanceof ApiError && q.error.status === 404 ? `This cluster has no host named ${host}.` : `Could not load the host: ${q.error.message}`}</p>;
  const h = q.data;
  const last = lastWorkedRun(h.runs);
  return (
    <div className="space-y-4" data-testid="host-page">
      <p className="text-sm">
        <Link className="text-indigo-700 underline" href={`/clusters/${clusterId}`} data-testid="host-cluster">
          {h.clusterName}
        </Link>{" "}
        › hosts
      </p>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="flex items-center gap-2 text-2xl font-bold">
            {h.name}
            <span className={`rounded px-2 py-0.5 text-xs font-medium ${tone[h.state.tone]}`} data-testid="host-state" data-tone={h.state.tone}>
              {h.state.label}
            </span>
          </h1>
          <p className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
            {h.role} · <span className="font-mono">{h.address}</span>
            <CopyButton value={h.address} label={`${h.name}'s address`} testId="copy-host-address" />· SSH port {h.sshPort}
          </p>
        </div>
        <HostActions clusterId={clusterId} host={h.name} role={h.role === "master" ? "master" : "worker"} member={h.member} />
      </div>
      <section className="card space-y-2 text-sm">
        <h2 className="font-semibold">Facts</h2>
        <HostFactsLine facts={h.facts} />
        <p data-testid="host-key">
          Host key:{" "}
          {h.hostKeyFingerprint ? (
            <>
              <span className="font-mono text-xs">{h.hostKeyFingerprint}</span> <CopyButton value={h.hostKeyFingerprint} label="the host key's fingerprint" />
            </>
          ) : (
            <span className="text-slate-600">not yet seen (pinned on first contact)</span>
          )}
        </p>
      </section>
      {last?.failedStep && (
        <section className={`rounded border p-3 text-sm ${last.outcome === "decision" ? "border-amber-300 bg-amber-50 text-amber-900" : "border-red-200 bg-red-50 text-red-800"}`} data-testid="host-last-failure">
          <p className="font-semibold">
            {last.outcome === "decision" ? "Waiting for a decision" : "Failed"} in the last run: {last.failedStep.title}
          </p>
          {last.failedStep.error && <p className="mt-1 break-words">{last.failedStep.error}</p>}
          <Link className="mt-1 inline-block text-indigo-700 underline" href={`/clusters/${clusterId}/runs/${last.id}?host=${encodeURIComponent(h.name)}&phase=${encodeURIComponent(last.failedStep.phase)}`} data-testid="host-failed-step-link">
            Open the step and its output
          </Link>
        </section>
      )}
      <section className="card">
        <h2 className="mb-2 font-semibold">Runs on {h.name}</h2>
        {h.runs.length === 0 ? (
          <p className="text-sm text-slate-600">No run has worked on this host yet.</p>
        ) : (
          <table className="min-w-full text-sm" data-testid="host-runs">
            <thead className="text-left text-xs text-slate-600">
              <tr>
                <th className="p-1 font-medium">Run</th>
                <th className="p-1 font-medium">State</th>
                <th className="p-1 font-medium">On this host</th>
                <th className="p-1 font-medium">When</th>
              </tr>
            </thead>
            <tbody>
              {h.runs.map((r) => (
                <tr key={r.id} className="border-t border-slate-100 align-top" data-testid={`host-run-${r.id}`}>
                  <td className="p-1">
                    <Link className="text-indigo-700 hover:underline" href={`/clusters/${clusterId}/runs/${r.id}`}>
                      {runTypeTitle[r.type] ?? r.type}
                    </Link>
                  </td>
                  <td className="p-1">
                    <StatusBadge status={r.status} />
                  </td>
                  <td className="p-1">
                    {r.failedStep ? (
                      <Link className="text-indigo-700 underline" href={`/clusters/${clusterId}/runs/${r.id}?host=${encodeURIComponent(h.name)}&phase=${encodeURIComponent(r.failedStep.phase)}`}>
                        {r.outcome === "decision" ? "needs a decision" : "failed"} at {r.failedStep.phase}
                      </Link>
                    ) : (
                      r.outcome
                    )}
                  </td>
                  <td className="whitespace-nowrap p-1 text-slate-600">
                    <Time iso={r.at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
