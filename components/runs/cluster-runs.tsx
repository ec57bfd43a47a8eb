"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { runQueryKeys } from "@/lib/engine/schemas";
import { api } from "../api-client";
import { useCan } from "../current-user";

type RunRow = { id: string; type: string; status: string; createdBy: string | null; createdAt: string; startedAt: string | null; finishedAt: string | null; summary: { message?: string } | null };

/** Run history of a cluster, and the button that plans a check run. */
export function ClusterRuns({ clusterId }: { clusterId: string }) {
  const router = useRouter();
  const canStart = useCan("run:start");
  const q = useQuery({ queryKey: runQueryKeys.clusterRuns(clusterId), queryFn: () => api<{ runs: RunRow[] }>(`/api/clusters/${clusterId}/runs`) });
  const plan = useMutation({
    mutationFn: () => api<{ id: string }>(`/api/clusters/${clusterId}/runs`, { method: "POST", body: { type: "check" } }),
    onSuccess: (r) => router.push(`/clusters/${clusterId}/runs/${r.id}`),
  });
  return (
    <section className="card">
      <div className="mb-2 flex items-center justify-between">
        <h2 className="font-semibold">Runs</h2>
        {canStart && (
          <button className="btn" data-testid="plan-check" disabled={plan.isPending} onClick={() => plan.mutate()} title="Connect to every host, pin host keys, gather facts and run preflight checks; nothing is changed">
            {plan.isPending ? "Planning…" : "Check hosts"}
          </button>
        )}
      </div>
      {plan.isError && <p className="text-sm text-red-600">{plan.error.message}</p>}
      {q.data?.runs.length === 0 && <p className="text-sm text-slate-500">No runs yet.</p>}
      {q.data && q.data.runs.length > 0 && (
        <table className="min-w-full text-sm" data-testid="run-history">
          <tbody>
            {q.data.runs.map((r) => (
              <tr key={r.id} className="border-t border-slate-100">
                <td className="p-1">
                  <Link className="text-indigo-700 hover:underline" href={`/clusters/${clusterId}/runs/${r.id}`}>
                    {r.type}
                  </Link>
                </td>
                <td className="p-1">{r.status}</td>
                <td className="p-1 text-slate-500">{new Date(r.createdAt).toLocaleString()}</td>
                <td className="p-1 text-slate-500">{r.startedAt && r.finishedAt ? `${((Date.parse(r.finishedAt) - Date.parse(r.startedAt)) / 1000).toFixed(1)} s` : ""}</td>
                <td className="p-1">{r.summary?.message ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
