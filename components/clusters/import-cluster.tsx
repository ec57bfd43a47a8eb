"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { parseClusterYaml } from "@/lib/cluster/yaml";
import { queryKeys, type CredentialSecrets } from "@/lib/clusters/schemas";
import { api, ApiError } from "../api-client";

export function ImportCluster() {
  const [yaml, setYaml] = useState("");
  const [replace, setReplace] = useState(false);
  const [secrets, setSecrets] = useState<CredentialSecrets>({});
  const router = useRouter();
  const queryClient = useQueryClient();
  const parsed = useMemo(() => (yaml.trim() ? parseClusterYaml(yaml) : undefined), [yaml]);
  const credentials = parsed?.ok ? parsed.definition.spec.credentials.filter((c) => c.type !== "agent") : [];
  const save = useMutation({
    mutationFn: () => api<{ id: string }>("/api/clusters/import", { method: "POST", body: { yaml, secrets, replace } }),
    onSuccess: async (data) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.clusters() });
      router.push(`/clusters/${data.id}`);
    },
  });
  const serverProblems = save.error instanceof ApiError ? save.error.errors : [];
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Import cluster.yaml</h1>
      <section className="card space-y-3">
        <input type="file" accept=".yaml,.yml" data-testid="yaml-file" onChange={async (e) => { const f = e.target.files?.[0]; if (f) setYaml(await f.text()); }} />
        <textarea data-testid="yaml-text" rows={16} className="input font-mono text-xs" placeholder="apiVersion: bootdeck.io/v1alpha1" value={yaml} onChange={(e) => setYaml(e.target.value)} />
        {parsed && !parsed.ok && (
          <ul className="text-sm text-red-600" data-testid="yaml-problems">
            {parsed.errors.map((p) => (
              <li key={`${p.path}:${p.message}`}>
                {p.path}: {p.message}
              </li>
            ))}
          </ul>
        )}
        {parsed?.ok && <p className="text-sm text-green-700" data-testid="yaml-valid">Valid: {parsed.definition.metadata.name}, {parsed.definition.spec.hosts.length} hosts.</p>}
      </section>
      {credentials.length > 0 && (
        <section className="card space-y-3">
          <h2 className="font-semibold">Secrets</h2>
          <p className="text-sm text-slate-600">cluster.yaml never holds secrets. Give them here; when replacing an existing cluster, leave them empty to keep the stored ones.</p>
          {credentials.map((c) => (
            <div key={c.name}>
              <label className="label" htmlFor={`secret-${c.name}`}>
                {c.name} ({c.type === "privateKey" ? "private key" : "password"}) {c.fingerprint && <span className="font-mono text-xs text-slate-500">{c.fingerprint}</span>}
              </label>
              {c.type === "privateKey" ? (
                <textarea id={`secret-${c.name}`} data-testid={`secret-${c.name}`} rows={3} className="input font-mono text-xs" value={secrets[c.name]?.privateKey ?? ""} onChange={(e) => setSecrets({ ...secrets, [c.name]: { ...secrets[c.name], privateKey: e.target.value } })} />
              ) : (
                <input id={`secret-${c.name}`} type="password" className="input" value={secrets[c.name]?.password ?? ""} onChange={(e) => setSecrets({ ...secrets, [c.name]: { ...secrets[c.name], password: e.target.value } })} />
              )}
            </div>
          ))}
        </section>
      )}
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} data-testid="import-replace" />
        Replace the cluster of the same name if it exists
      </label>
      {save.isError && (
        <div className="text-sm text-red-600" role="alert" data-testid="import-error">
          <p>{save.error.message}</p>
          <ul>
            {serverProblems.map((p) => (
              <li key={`${p.path}:${p.message}`}>
                {p.path}: {p.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <button className="btn-primary" disabled={!parsed?.ok || save.isPending} onClick={() => save.mutate()} data-testid="import-submit">
        {save.isPending ? "Importing…" : "Import"}
      </button>
    </div>
  );
}
