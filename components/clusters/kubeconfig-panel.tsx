"use client";
// A cluster's personal kubeconfigs: download one for your role on this cluster (its certificate names
// you and lasts the period an admin set), and the ones that have not expired (all of them for admins).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { KubeconfigIssueView } from "@/lib/kubeconfigs/schemas";
import { api, getCsrfToken } from "../api-client";
import { Time } from "../time";
import { NotYet } from "./not-yet";

const key = (clusterId: string) => ["clusters", clusterId, "kubeconfigs"] as const;

async function download(clusterId: string): Promise<void> {
  const res = await fetch(`/api/clusters/${clusterId}/kubeconfig`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": getCsrfToken() },
    body: "{}",
    credentials: "same-origin",
  });
  if (!res.ok) {
    const data = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
    throw new Error(data.error?.message ?? `Request failed (${res.status})`);
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "kubeconfig";
  const url = URL.createObjectURL(new Blob([await res.text()], { type: "application/yaml" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  URL.revokeObjectURL(url);
}

export function KubeconfigPanel({ clusterId, notYet }: { clusterId: string; /** Why there is no API to reach yet (lifecycle.ts dayTwoRefusal). */ notYet?: string }) {
  const queryClient = useQueryClient();
  const q = useQuery({
    queryKey: key(clusterId),
    queryFn: () => api<{ issues: KubeconfigIssueView[]; hours: number; role: string }>(`/api/clusters/${clusterId}/kubeconfigs`),
  });
  const [error, setError] = useState<string>();
  const issue = useMutation({
    mutationFn: () => download(clusterId),
    onSuccess: () => {
      setError(undefined);
      return queryClient.invalidateQueries({ queryKey: key(clusterId) });
    },
    onError: (e) => setError(e.message),
  });
  return (
    <section className="card" data-testid="kubeconfig-panel">
      <div className="mb-2 flex items-center justify-between">
        <h2 className="font-semibold">Your kubeconfig</h2>
        <button className="btn" disabled={issue.isPending || !!notYet} title={notYet} onClick={() => issue.mutate()} data-testid="kubeconfig-download">
          {issue.isPending ? "Issuing…" : "Download kubeconfig"}
        </button>
      </div>
      <NotYet reason={notYet} testId="kubeconfig-not-yet" />
      {q.data && (
        <p className="mb-2 text-sm text-slate-600">
          A client certificate in your name for your role here ({q.data.role}: group bootdeck:{q.data.role}), valid for {q.data.hours} h. It cannot be revoked
          before then: keep it to yourself.
        </p>
      )}
      {error && (
        <p className="text-sm text-red-600" role="alert" data-testid="kubeconfig-error">
          {error}
        </p>
      )}
      {q.isError && <p className="text-sm text-red-600">Could not load the kubeconfigs: {q.error.message}</p>}
      {q.data && q.data.issues.length > 0 && (
        <table className="min-w-full text-sm" data-testid="kubeconfig-table">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="p-1">Serial</th>
              <th className="p-1">Who</th>
              <th className="p-1">Group</th>
              <th className="p-1">Issued</th>
              <th className="p-1">Expires</th>
            </tr>
          </thead>
          <tbody>
            {q.data.issues.map((k) => (
              <tr key={k.id} className="border-t border-slate-100" data-testid="kubeconfig-row">
                <td className="p-1 font-mono text-xs">{k.serial}</td>
                <td className="p-1">{k.username}</td>
                <td className="p-1 font-mono text-xs">{k.group}</td>
                <td className="p-1 text-xs">
                  <Time iso={k.createdAt} />
                </td>
                <td className="p-1 text-xs">
                  <Time iso={k.notAfter} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {q.data && q.data.issues.length === 0 && <p className="text-sm text-slate-600">No live kubeconfigs.</p>}
    </section>
  );
}
