"use client";
// The cluster page's backups, disaster recovery and certificates: stored etcd snapshots and the schedule
// (a failing one in red), restore and recover, every certificate's expiry (from the asset set, or read
// from the hosts) and the rotation. Runs are planned here and confirmed on the run page.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { backupQueryKeys, type BackupPolicyBody, type BackupsView } from "@/lib/backups/schemas";
import { certQueryKeys, expiryText, EXPIRY_WARNING_DAYS, type AssetCertificates, type CertificateRow, type LiveCertificates } from "@/lib/certs/schemas";
import type { CreateRunBody } from "@/lib/engine/schemas";
import { api } from "../api-client";
import { useCan } from "../current-user";
import { Time } from "../time";
import { BackupTarget } from "./backup-target";
import { NotYet } from "./not-yet";

const size = (n: number) => (n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

/** Plans a run on the cluster and opens its page, where it is reviewed and confirmed. */
export function usePlan(clusterId: string) {
  const router = useRouter();
  return useMutation({
    mutationFn: (body: CreateRunBody) => api<{ id: string }>(`/api/clusters/${clusterId}/runs`, { method: "POST", body }),
    onSuccess: (r) => router.push(`/clusters/${clusterId}/runs/${r.id}`),
  });
}

export function BackupsPanel({ clusterId, clusterName, notYet }: { clusterId: string; clusterName?: string; /** Why backups and recovery do not apply yet (lifecycle.ts dayTwoRefusal). */ notYet?: string }) {
  const queryClient = useQueryClient();
  const router = useRouter();
  const canBackup = useCan("backup:create");
  const canDownload = useCan("backup:download");
  const canRecover = useCan("cluster:recover");
  const canSchedule = useCan("cluster:write");
  const q = useQuery({ queryKey: backupQueryKeys.backups(clusterId), queryFn: () => api<BackupsView>(`/api/clusters/${clusterId}/backups`), refetchInterval: 15_000 });
  const now = useMutation({
    mutationFn: () => api<{ runId: string }>(`/api/clusters/${clusterId}/backups`, { method: "POST" }),
    onSuccess: (r) => router.push(`/clusters/${clusterId}/runs/${r.runId}`),
  });
  const plan = usePlan(clusterId);
  const [editing, setEditing] = useState<BackupPolicyBody | undefined>();
  const save = useMutation({
    mutationFn: (body: BackupPolicyBody) => api(`/api/clusters/${clusterId}/backups/policy`, { method: "PUT", body }),
    onSuccess: async () => {
      setEditing(undefined);
      await queryClient.invalidateQueries({ queryKey: backupQueryKeys.backups(clusterId) });
    },
  });
  const policy = q.data?.policy;
  return (
    <section className="card" data-testid="backups">
      <div className="mb-2 flex items-center justify-between">
        <h2 className="font-semibold">etcd backups</h2>
        <div className="flex gap-2">
          {canRecover && (
            <button className="btn" data-testid="plan-recover" disabled={plan.isPending || !!notYet} onClick={() => plan.mutate({ type: "recover", confirm: true })} title={notYet ?? "When the control plane did not come back by itself: a temporary control plane from etcd's current state, then the pivot again"}>
              Recover control plane…
            </button>
          )}
          {/* Before the bootstrap it is not the next action: secondary, not a faded primary. */}
          {canBackup && (
            <button className={notYet ? "btn" : "btn-primary"} data-testid="backup-now" disabled={now.isPending || !!notYet} title={notYet} onClick={() => now.mutate()}>
              {now.isPending ? "Starting…" : "Back up now"}
            </button>
          )}
        </div>
      </div>
      <NotYet reason={notYet} testId="backups-not-yet" />
      {(now.isError || plan.isError) && <p className="text-sm text-red-600">{(now.error ?? plan.error)?.message}</p>}
      {policy && (
        <p className={`mb-2 rounded px-2 py-1 text-sm ${policy.health.state === "failing" ? "bg-red-100 font-medium text-red-800" : "text-slate-600"}`} data-testid="backup-schedule" data-state={policy.health.state}>
          {policy.health.state === "failing" ? "Backups are failing: " : "Schedule: "}
          {policy.health.message}
          {policy.enabled ? ` · keep the newest ${policy.keepLast}, older ones for ${policy.keepDays} days` : ""}
          {canSchedule && !editing && (
            <button className="ml-2 text-indigo-700 underline" data-testid="edit-schedule" onClick={() => setEditing({ enabled: true, intervalMinutes: policy.intervalMinutes, keepLast: policy.keepLast, keepDays: policy.keepDays })}>
              change
            </button>
          )}
        </p>
      )}
      {editing && (
        <form
          className="mb-3 flex flex-wrap items-end gap-3 text-sm"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(editing);
          }}
        >
          <label className="flex items-center gap-1">
            <input type="checkbox" checked={editing.enabled} onChange={(e) => setEditing({ ...editing, enabled: e.target.checked })} data-testid="schedule-enabled" /> on a schedule
          </label>
          <label>
            every (minutes) <input className="input w-24" type="number" min={15} value={editing.intervalMinutes} onChange={(e) => setEditing({ ...editing, intervalMinutes: Number(e.target.value) })} data-testid="schedule-interval" />
          </label>
          <label>
            keep newest <input className="input w-20" type="number" min={1} value={editing.keepLast} onChange={(e) => setEditing({ ...editing, keepLast: Number(e.target.value) })} />
          </label>
          <label>
            older ones for (days) <input className="input w-20" type="number" min={1} value={editing.keepDays} onChange={(e) => setEditing({ ...editing, keepDays: Number(e.target.value) })} />
          </label>
          <button className="btn-primary" type="submit" disabled={save.isPending} data-testid="schedule-save">
            Save
          </button>
          <button className="btn" type="button" onClick={() => setEditing(undefined)}>
            Cancel
          </button>
          {save.isError && <span className="text-red-600">{save.error.message}</span>}
        </form>
      )}
      {q.data && <BackupTarget clusterId={clusterId} clusterName={clusterName} target={q.data.target} canEdit={canSchedule} />}
      {q.isError && <p className="text-sm text-red-600">Could not load the backups: {q.error.message}</p>}
      {q.data?.backups.length === 0 && <p className="text-sm text-slate-500">No backups yet.</p>}
      {q.data && q.data.backups.length > 0 && (
        <table className="min-w-full text-sm" data-testid="backup-list">
          <thead className="text-left text-xs text-slate-500">
            <tr>
              <th className="p-1 font-medium">Taken</th>
              <th className="p-1 font-medium">How</th>
              <th className="p-1 font-medium">etcd revision</th>
              <th className="p-1 text-right font-medium">Size</th>
              <th className="p-1 font-medium">From</th>
              <th className="p-1 font-medium">SHA-256</th>
              <th className="p-1 font-medium">Copies</th>
              <th className="p-1" />
            </tr>
          </thead>
          <tbody>
            {q.data.backups.map((b) => (
              <tr key={b.id} className="border-t border-slate-100" data-testid={`backup-${b.id}`}>
                <td className="p-1">
                  <Time iso={b.createdAt} testId="backup-taken" />
                </td>
                <td className="p-1">{b.trigger === "schedule" ? "scheduled" : `on demand${b.createdBy ? ` by ${b.createdBy}` : ""}`}</td>
                <td className="p-1 font-mono">{b.revision}</td>
                <td className="p-1 text-right tabular-nums">{size(b.size)}</td>
                <td className="p-1">{b.member}</td>
                <td className="p-1 font-mono text-xs" title={b.sha256}>
                  {b.sha256.slice(0, 12)}…
                </td>
                <td className="p-1 text-xs" data-testid={`copies-${b.id}`}>
                  <span className="flex flex-wrap gap-1">
                    {b.copies.local && <span className="rounded bg-slate-100 px-1" title="in this dashboard's data directory, encrypted">here</span>}
                    {b.copies.bucket && (
                      <span className="rounded bg-green-100 px-1 text-green-800" title={`${b.copies.bucket.where}, verified ${b.copies.bucket.at}`} data-testid="copy-bucket">
                        bucket: <span className="font-mono">{b.copies.bucket.where}</span>
                      </span>
                    )}
                    {!b.copies.local && !b.copies.bucket && <span className="text-red-700">no copy left</span>}
                    {b.copies.bucketError && <span className="text-red-700" data-testid="copy-bucket-error">not in the bucket: {b.copies.bucketError}</span>}
                  </span>
                </td>
                <td className="flex gap-2 p-1">
                  {canDownload && (
                    <a className="text-indigo-700 underline" href={`/api/clusters/${clusterId}/backups/${b.id}/download`} data-testid={`download-${b.id}`}>
                      Download
                    </a>
                  )}
                  {canRecover && (
                    <button className="text-red-700 underline" data-testid={`restore-${b.id}`} disabled={plan.isPending} onClick={() => plan.mutate({ type: "restore", backup: b.id, confirm: true })} title="Plan a restore of every master from this snapshot; you review the plan before anything runs">
                      Restore…
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function CertTable({ rows, testId, live }: { rows: CertificateRow[]; testId: string; live?: boolean }) {
  return (
    <table className="min-w-full text-sm" data-testid={testId}>
      <thead className="text-left text-xs text-slate-500">
        <tr>
          {live && <th className="p-1 font-medium">Host</th>}
          <th className="p-1 font-medium">{live ? "Where" : "File"}</th>
          <th className="p-1 font-medium">Subject</th>
          <th className="p-1 font-medium">Ends</th>
          <th className="p-1 font-medium">Serial</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={`${r.host}-${r.source}`} className={`border-t border-slate-100 ${r.warn ? "bg-red-50 text-red-800" : ""}`} data-warn={r.warn ? "yes" : "no"}>
            {live && <td className="p-1">{r.host}</td>}
            <td className="p-1 font-mono text-xs" title={r.what}>
              {r.source}
            </td>
            <td className="p-1">{r.subject}</td>
            <td className="p-1">
              <Time iso={r.notAfter} date /> ({expiryText(r.daysLeft)})
            </td>
            <td className="p-1 font-mono text-xs">{r.serial.slice(0, 16)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function CertificatesPanel({ clusterId, notYet }: { clusterId: string; /** Why the hosts hold no certificates to read or rotate yet. */ notYet?: string }) {
  const canRotate = useCan("cluster:recover");
  const canInspect = useCan("host:inspect");
  const q = useQuery({ queryKey: certQueryKeys.assets(clusterId), queryFn: () => api<AssetCertificates>(`/api/clusters/${clusterId}/certificates`) });
  const live = useMutation({ mutationFn: () => api<LiveCertificates>(`/api/clusters/${clusterId}/certificates/live`, { method: "POST" }) });
  const plan = usePlan(clusterId);
  const warnings = (live.data?.rows ?? q.data?.rows ?? []).filter((r) => r.warn);
  return (
    <section className="card" data-testid="certificates">
      <div className="mb-2 flex items-center justify-between">
        <h2 className="font-semibold">Certificates</h2>
        <div className="flex gap-2">
          {canInspect && (
            <button className="btn" data-testid="read-live-certs" disabled={live.isPending || !!notYet} onClick={() => live.mutate()} title={notYet ?? "Read the certificates the hosts hold and serve now (read-only)"}>
              {live.isPending ? "Reading…" : "Read from the hosts"}
            </button>
          )}
          {canRotate && (
            <button className="btn" data-testid="plan-rotate" disabled={plan.isPending || !!notYet} onClick={() => plan.mutate({ type: "rotate-certs", confirm: true })} title={notYet ?? "Issue every leaf certificate again (same CAs and keys) and roll them out with the API kept up; you review the plan first"}>
              Rotate certificates…
            </button>
          )}
        </div>
      </div>
      <NotYet reason={notYet} testId="certificates-not-yet" />
      {warnings.length > 0 && (
        <p className="mb-2 rounded bg-red-100 px-2 py-1 text-sm font-medium text-red-800" data-testid="cert-warning">
          {warnings.length} certificate{warnings.length === 1 ? "" : "s"} end within {EXPIRY_WARNING_DAYS} days: {warnings[0]!.source} {expiryText(warnings[0]!.daysLeft)}. Rotate them.
        </p>
      )}
      {plan.isError && <p className="text-sm text-red-600">{plan.error.message}</p>}
      {live.isError && <p className="text-sm text-red-600">{live.error.message}</p>}
      {live.data ? (
        <>
          <p className="mb-1 text-xs text-slate-500">
            Read from the hosts at <Time iso={live.data.at} />
          </p>
          <CertTable rows={live.data.rows} testId="live-certs" live />
          {live.data.errors.map((e) => (
            <p key={`${e.host}${e.error}`} className="text-xs text-amber-700">
              {e.host}: {e.error}
            </p>
          ))}
        </>
      ) : q.data ? (
        q.data.rows.length ? (
          <>
            <p className="mb-1 text-xs text-slate-500">From asset set v{q.data.assetSetVersion}</p>
            <CertTable rows={q.data.rows} testId="asset-certs" />
          </>
        ) : (
          <p className="text-sm text-slate-500">No assets rendered yet.</p>
        )
      ) : null}
    </section>
  );
}
