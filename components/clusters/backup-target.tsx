"use client";
// The cluster's bucket on the backups panel: where every backup is copied, set, tested (each way it can
// be wrong named plainly) or removed by admins. The secret key goes to the server and never comes back.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { backupQueryKeys, type BackupTargetBody, type BackupTargetView, type TargetTestView } from "@/lib/backups/schemas";
import { api } from "../api-client";
import { Time } from "../time";

const problemTitle: Record<string, string> = {
  unreachable: "Endpoint unreachable",
  "bad-credentials": "Bad credentials",
  "no-bucket": "No such bucket",
  "no-permission": "No write permission",
  "not-s3": "Not an S3 endpoint",
  error: "The bucket refused it",
};

type Form = Omit<BackupTargetBody, "secretAccessKey"> & { secretAccessKey: string };
const empty: Form = { endpoint: "", region: "us-east-1", bucket: "", prefix: "", forcePathStyle: true, accessKeyId: "", secretAccessKey: "" };

export function BackupTarget({ clusterId, clusterName, target, canEdit }: { clusterId: string; clusterName?: string; target: BackupTargetView | null; canEdit: boolean }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Form | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: backupQueryKeys.backups(clusterId) });
  const save = useMutation({
    mutationFn: (f: Form) => api<BackupTargetView>(`/api/clusters/${clusterId}/backups/target`, { method: "PUT", body: { ...f, secretAccessKey: f.secretAccessKey || undefined } }),
    onSuccess: async () => {
      setForm(undefined);
      await refresh();
    },
  });
  const remove = useMutation({ mutationFn: () => api(`/api/clusters/${clusterId}/backups/target`, { method: "DELETE" }), onSuccess: refresh });
  const test = useMutation({ mutationFn: () => api<TargetTestView>(`/api/clusters/${clusterId}/backups/target/test`, { method: "POST" }), onSuccess: refresh });
  const result = test.data ?? (target?.lastTest ? { ...target.lastTest, problem: undefined, hint: undefined } : undefined);
  const field = (name: keyof Form, label: string, extra: Partial<React.InputHTMLAttributes<HTMLInputElement>> = {}) => (
    <label className="flex flex-col text-xs text-slate-600">
      {label}
      <input className="input" value={String(form![name])} onChange={(e) => setForm({ ...form!, [name]: e.target.value })} data-testid={`target-${name}`} {...extra} />
    </label>
  );
  return (
    <div className="mb-3 rounded border border-slate-200 p-2 text-sm" data-testid="backup-target">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p>
          <span className="font-medium">Off-machine copies: </span>
          {target ? (
            <span data-testid="target-where">
              every backup is copied to <span className="font-mono">s3://{target.bucket}/{target.prefix}{clusterId}/</span> at {target.endpoint || `AWS S3 (${target.region})`}
            </span>
          ) : (
            <span className="text-amber-700">none: backups live on this dashboard&apos;s disk only, and die with it</span>
          )}
        </p>
        {canEdit && !form && (
          <div className="flex gap-2">
            {target && (
              <button className="btn" data-testid="target-test" disabled={test.isPending} onClick={() => test.mutate()}>
                {test.isPending ? "Testing…" : "Test the target"}
              </button>
            )}
            <button className="btn" data-testid="target-edit" onClick={() => setForm(target ? { ...target, secretAccessKey: "" } : empty)}>
              {target ? "Change" : "Set up a bucket…"}
            </button>
            {target && (
              <button className="btn" data-testid="target-remove" disabled={remove.isPending} onClick={() => remove.mutate()} title="Backups stay here only from now on; the copies already in the bucket stay there">
                Remove
              </button>
            )}
          </div>
        )}
      </div>
      {result && (
        <p className={`mt-1 rounded px-2 py-1 ${result.ok ? "bg-green-50 text-green-800" : "bg-red-100 text-red-800"}`} data-testid="target-test-result" data-ok={result.ok ? "yes" : "no"} data-problem={result.problem ?? ""}>
          {result.ok ? "Target works: " : `${result.problem ? `${problemTitle[result.problem] ?? result.problem}: ` : "The last test failed: "}`}
          {result.message}
          {result.hint ? ` — ${result.hint}` : ""} (<Time iso={result.at} />)
        </p>
      )}
      {test.isError && <p className="text-red-600">{test.error.message}</p>}
      {remove.isError && <p className="text-red-600">{remove.error.message}</p>}
      {target && canEdit && (
        <p className="mt-1 text-xs text-slate-500">
          Restoring onto a new dashboard needs the bucket and this cluster&apos;s backup key: an admin prints it once with <code>bootdeck backup export-key {clusterName ?? "CLUSTER"}</code> and keeps it away from this machine.
        </p>
      )}
      {form && (
        <form
          className="mt-2 grid grid-cols-2 gap-2 md:grid-cols-4"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate(form);
          }}
        >
          {field("endpoint", "Endpoint (empty for AWS S3)", { placeholder: "https://s3.example:9000" })}
          {field("region", "Region")}
          {field("bucket", "Bucket", { required: true })}
          {field("prefix", "Prefix", { placeholder: "bootdeck/" })}
          {field("accessKeyId", "Access key id", { required: true, autoComplete: "off" })}
          {field("secretAccessKey", target ? "Secret key (empty: unchanged)" : "Secret key", { type: "password", required: !target, autoComplete: "new-password" })}
          <label className="flex items-center gap-1 text-xs text-slate-600">
            <input type="checkbox" checked={form.forcePathStyle} onChange={(e) => setForm({ ...form, forcePathStyle: e.target.checked })} data-testid="target-path-style" /> path-style addresses (endpoint/bucket/key)
          </label>
          <div className="flex items-end gap-2">
            <button className="btn-primary" type="submit" disabled={save.isPending} data-testid="target-save">
              Save
            </button>
            <button className="btn" type="button" onClick={() => setForm(undefined)}>
              Cancel
            </button>
          </div>
          {save.isError && <p className="col-span-full text-red-600">{save.error.message}{"errors" in save.error && Array.isArray(save.error.errors) ? ` ${save.error.errors.map((p) => `${p.path}: ${p.message}`).join("; ")}` : ""}</p>}
        </form>
      )}
    </div>
  );
}
