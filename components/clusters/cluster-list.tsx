"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ClusterSummary } from "@/lib/clusters/repository";
import { queryKeys } from "@/lib/clusters/schemas";
import { certQueryKeys, type ClusterAlerts } from "@/lib/certs/schemas";
import { api } from "../api-client";
import { useCan } from "../current-user";

export function ClusterList() {
  const q = useQuery({ queryKey: queryKeys.clusters(), queryFn: () => api<{ clusters: ClusterSummary[] }>("/api/clusters") });
  const canWrite = useCan("cluster:write");
  const alerts = useQuery({ queryKey: certQueryKeys.alerts(), queryFn: () => api<ClusterAlerts>("/api/clusters/alerts"), refetchInterval: 60_000 });
  return (
    <div className="space-y-4">
      <div className="flex items-center justify-between">
        <h1 className="text-2xl font-bold">Clusters</h1>
        {canWrite && (
        <div className="flex gap-2">
          <Link href="/clusters/import" className="btn" data-testid="import-cluster">
            Import cluster.yaml
          </Link>
          <Link href="/clusters/new" className="btn-primary" data-testid="new-cluster">
            New cluster
          </Link>
        </div>
        )}
      </div>
      {q.isPending && <p className="text-sm text-slate-500">Loading clusters…</p>}
      {q.isError && <p className="text-sm text-red-600">Could not load clusters: {q.error.message}. Reload to try again.</p>}
      {q.data && q.data.clusters.length === 0 && (
        <div className="card text-sm text-slate-600" data-testid="no-clusters">
          No clusters yet. Create one with the wizard, or import a <code>cluster.yaml</code>.
        </div>
      )}
      {q.data && q.data.clusters.length > 0 && (
        <table className="card min-w-full text-sm" data-testid="cluster-table">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="p-2">Name</th>
              <th className="p-2">Kubernetes</th>
              <th className="p-2">Masters</th>
              <th className="p-2">Workers</th>
              <th className="p-2">Updated</th>
              <th className="p-2">Alerts</th>
            </tr>
          </thead>
          <tbody>
            {q.data.clusters.map((c) => (
              <tr key={c.id} className="border-t border-slate-100" data-testid={`cluster-row-${c.name}`}>
                <td className="p-2">
                  <Link className="font-medium text-indigo-700 hover:underline" href={`/clusters/${c.id}`}>
                    {c.name}
                  </Link>
                </td>
                <td className="p-2">{c.kubernetesVersion}</td>
                <td className="p-2">{c.masters}</td>
                <td className="p-2">{c.workers}</td>
                <td className="p-2 text-slate-500">{new Date(c.updatedAt).toLocaleString()}</td>
                <td className="p-2 text-xs" data-testid={`cluster-alerts-${c.name}`}>
                  {[alerts.data?.[c.id]?.backup, alerts.data?.[c.id]?.certificates].filter(Boolean).map((a) => (
                    <span key={a} className="mr-1 rounded bg-red-100 px-1.5 py-0.5 font-medium text-red-800">
                      {a}
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
