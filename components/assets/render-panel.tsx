"use client";
// Starts a render and shows its progress until the new asset set is saved.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { assetQueryKeys, type RenderAssetsBody, type RenderJobView } from "@/lib/assets/schemas";
import { api, ApiError } from "../api-client";

export function RenderPanel({ clusterId, onRendered }: { clusterId: string; onRendered: (setId: string) => void }) {
  const queryClient = useQueryClient();
  const [caDays, setCaDays] = useState(3650);
  const [leafDays, setLeafDays] = useState(365);
  const [importCa, setImportCa] = useState(false);
  const [certPem, setCertPem] = useState("");
  const [keyPem, setKeyPem] = useState("");
  const [jobId, setJobId] = useState<string | undefined>();

  const start = useMutation({
    mutationFn: () => {
      const body: RenderAssetsBody = { caValidityDays: caDays, leafValidityDays: leafDays, ...(importCa ? { importedCa: { certPem, keyPem } } : {}) };
      return api<RenderJobView>(`/api/clusters/${clusterId}/assets`, { method: "POST", body });
    },
    onSuccess: (job) => setJobId(job.id),
  });

  const job = useQuery({
    queryKey: assetQueryKeys.job(clusterId, jobId ?? "none"),
    queryFn: () => api<RenderJobView>(`/api/clusters/${clusterId}/assets/jobs/${jobId}`),
    enabled: jobId !== undefined,
    refetchInterval: (q) => (q.state.data?.status === "running" || q.state.data === undefined ? 250 : false),
  });

  const finishedSetId = job.data?.status === "done" ? job.data.result?.id : undefined;
  useEffect(() => {
    if (!finishedSetId) return;
    void queryClient.invalidateQueries({ queryKey: assetQueryKeys.sets(clusterId) });
    onRendered(finishedSetId);
    // onRendered is a parent setter; re-running only when a new set appears is the point.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [finishedSetId, clusterId, queryClient]);

  const running = start.isPending || job.data?.status === "running" || (jobId !== undefined && job.data === undefined);
  const pct = job.data ? Math.round((job.data.done / Math.max(1, job.data.total)) * 100) : 0;
  const problems = start.error instanceof ApiError ? start.error.errors : job.data?.error?.problems ?? [];

  return (
    <section className="card space-y-3" data-testid="render-panel">
      <h2 className="font-semibold">Render assets</h2>
      <p className="text-sm text-slate-600">
        Generates the cluster&apos;s certificates, kubeconfigs, manifests and kubelet units as a new version. Earlier versions are kept for comparison. Every key is of the cluster&apos;s algorithm
        (<span className="font-mono">spec.pki.encryptionAlgorithm</span>; ECDSA-P256 unless the definition or an earlier set says otherwise).
      </p>
      <div className="flex flex-wrap items-end gap-4 text-sm">
        <label className="flex flex-col gap-1">
          CA validity (days)
          <input className="input w-28" type="number" min={1} max={36500} value={caDays} onChange={(e) => setCaDays(Number(e.target.value))} disabled={running} />
        </label>
        <label className="flex flex-col gap-1">
          Certificate validity (days)
          <input className="input w-28" type="number" min={1} max={36500} value={leafDays} onChange={(e) => setLeafDays(Number(e.target.value))} disabled={running} />
        </label>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={importCa} onChange={(e) => setImportCa(e.target.checked)} disabled={running} data-testid="render-import-ca" />
          Use an existing cluster CA
        </label>
        <button className="btn-primary" disabled={running} onClick={() => start.mutate()} data-testid="render-start">
          {running ? "Rendering…" : "Render"}
        </button>
      </div>
      {importCa && (
        <div className="grid grid-cols-2 gap-3 text-sm">
          <label className="flex flex-col gap-1">
            CA certificate (PEM)
            <textarea className="input h-28 font-mono text-xs" value={certPem} onChange={(e) => setCertPem(e.target.value)} placeholder="-----BEGIN CERTIFICATE-----" />
          </label>
          <label className="flex flex-col gap-1">
            CA private key (PEM, unencrypted; stored encrypted)
            <textarea className="input h-28 font-mono text-xs" value={keyPem} onChange={(e) => setKeyPem(e.target.value)} placeholder="-----BEGIN PRIVATE KEY-----" />
          </label>
        </div>
      )}
      {jobId !== undefined && job.data && (
        <div data-testid="render-progress">
          <div className="h-2 w-full overflow-hidden rounded bg-slate-200" role="progressbar" aria-valuenow={pct} aria-valuemin={0} aria-valuemax={100}>
            <div className={`h-2 ${job.data.status === "failed" ? "bg-red-500" : "bg-indigo-600"} transition-all`} style={{ width: `${pct}%` }} />
          </div>
          <p className="mt-1 text-xs text-slate-500">
            {job.data.status === "running" && `${job.data.done} of ${job.data.total}: ${job.data.label}`}
            {job.data.status === "done" && job.data.result && `Saved as version ${job.data.result.version} (${job.data.result.fileCount} files).`}
          </p>
        </div>
      )}
      {(start.isError || job.data?.status === "failed") && (
        <div className="text-sm text-red-600" data-testid="render-error">
          <p>{start.error?.message ?? job.data?.error?.message}</p>
          {problems.length > 0 && (
            <ul className="list-disc pl-5">
              {problems.map((p) => (
                <li key={`${p.path}:${p.message}`}>
                  <span className="font-mono">{p.path}</span>: {p.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
