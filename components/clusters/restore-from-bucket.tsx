"use client";
// A new dashboard after the old one is gone: given a bucket and a cluster's backup key, list the
// snapshots the key opens, take the cluster over (definition, SSH credentials, host-key pins, assets,
// its snapshots) and go to its page, where "Restore…" on a snapshot plans the restore.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { BackupTargetBody, RemoteListView } from "@/lib/backups/schemas";
import { queryKeys } from "@/lib/clusters/schemas";
import { api } from "../api-client";
import { Time } from "../time";

type Source = Omit<BackupTargetBody, "secretAccessKey"> & { secretAccessKey: string };
const size = (n: number) => (n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

export function RestoreFromBucket() {
  const [target, setTarget] = useState<Source>({ endpoint: "", region: "us-east-1", bucket: "", prefix: "", forcePathStyle: true, accessKeyId: "", secretAccessKey: "" });
  const [backupKey, setBackupKey] = useState("");
  const router = useRouter();
  const queryClient = useQueryClient();
  const list = useMutation({ mutationFn: () => api<RemoteListView>("/api/backups/remote", { method: "POST", body: { target, backupKey } }) });
  const take = useMutation({
    mutationFn: (s: { clusterId: string; backupId: string }) => api<{ clusterId: string }>("/api/backups/remote/import", { method: "POST", body: { target, backupKey, ...s } }),
    onSuccess: async (r) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.clusters() });
      router.push(`/clusters/${r.clusterId}`);
    },
  });
  const field = (name: keyof Source, label: string, extra: Partial<React.InputHTMLAttributes<HTMLInputElement>> = {}) => (
    <label className="flex flex-col text-xs text-slate-600">
      {label}
      <input className="input" value={String(target[name])} onChange={(e) => setTarget({ ...target, [name]: e.target.value })} data-testid={`bucket-${name}`} {...extra} />
    </label>
  );
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Restore a cluster from its bucket</h1>
      <p className="text-sm text-slate-600">
        For a dashboard that replaces one that is gone: the bucket its backups were copied to and the cluster&apos;s backup key (printed by <code>bootdeck backup export-key</code> on the old dashboard). Nothing on the hosts changes until you restore a snapshot from the cluster&apos;s page.
      </p>
      <form
        className="card grid grid-cols-2 gap-2 md:grid-cols-4"
        onSubmit={(e) => {
          e.preventDefault();
          list.mutate();
        }}
      >
        {field("endpoint", "Endpoint (empty for AWS S3)", { placeholder: "https://s3.example:9000" })}
        {field("region", "Region")}
        {field("bucket", "Bucket", { required: true })}
        {field("prefix", "Prefix")}
        {field("accessKeyId", "Access key id", { required: true, autoComplete: "off" })}
        {field("secretAccessKey", "Secret key", { type: "password", required: true, autoComplete: "new-password" })}
        <label className="flex items-center gap-1 text-xs text-slate-600">
          <input type="checkbox" checked={target.forcePathStyle} onChange={(e) => setTarget({ ...target, forcePathStyle: e.target.checked })} /> path-style addresses
        </label>
        <label className="col-span-full flex flex-col text-xs text-slate-600">
          Backup key
          <input className="input font-mono" type="password" value={backupKey} onChange={(e) => setBackupKey(e.target.value)} placeholder="bdk1:…" required autoComplete="off" data-testid="bucket-backup-key" />
        </label>
        <div>
          <button className="btn-primary" type="submit" disabled={list.isPending} data-testid="bucket-list">
            {list.isPending ? "Reading the bucket…" : "List snapshots"}
          </button>
        </div>
        {list.isError && <p className="col-span-full text-sm text-red-600">{list.error.message}</p>}
      </form>
      {list.data && (
        <section className="card" data-testid="bucket-snapshots">
          {list.data.snapshots.length === 0 ? (
            <p className="text-sm text-slate-600">No snapshot under this prefix opens with this key{list.data.unreadable.length ? ` (${list.data.unreadable.length} belong to other clusters or do not open: ${list.data.unreadable[0]!.error})` : ""}.</p>
          ) : (
            <table className="min-w-full text-sm">
              <thead className="text-left text-xs text-slate-500">
                <tr>
                  <th className="p-1 font-medium">Cluster</th>
                  <th className="p-1 font-medium">Taken</th>
                  <th className="p-1 font-medium">etcd revision</th>
                  <th className="p-1 text-right font-medium">Size</th>
                  <th className="p-1 font-medium">Kubernetes</th>
                  <th className="p-1" />
                </tr>
              </thead>
              <tbody>
                {list.data.snapshots.map((s) => (
                  <tr key={s.backupId} className="border-t border-slate-100" data-testid={`bucket-snapshot-${s.backupId}`}>
                    <td className="p-1">
                      {s.clusterName} <span className="font-mono text-xs text-slate-500">{s.clusterId}</span>
                    </td>
                    <td className="p-1">
                      <Time iso={s.createdAt} />
                    </td>
                    <td className="p-1 font-mono">{s.revision}</td>
                    <td className="p-1 text-right tabular-nums">{size(s.size)}</td>
                    <td className="p-1">{s.kubernetesVersion}</td>
                    <td className="p-1">
                      <button className="btn" disabled={take.isPending} onClick={() => take.mutate({ clusterId: s.clusterId, backupId: s.backupId })} data-testid={`take-over-${s.backupId}`} title="Create the cluster here from the export beside this snapshot; then restore it from its page">
                        Take the cluster over
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {take.isError && <p className="text-sm text-red-600">{take.error.message}</p>}
        </section>
      )}
    </div>
  );
}
