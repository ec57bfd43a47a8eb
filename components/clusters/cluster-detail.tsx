"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { deriveCluster } from "@/lib/cluster/derive";
import { describeVersion } from "@/lib/cluster/versions";
import { dayTwoRefusal, type ClusterPageView, type LifecycleState } from "@/lib/clusters/lifecycle";
import { queryKeys } from "@/lib/clusters/schemas";
import { api, ApiError } from "../api-client";
import { useCan } from "../current-user";
import { Time } from "../time";
import { ClusterRuns } from "../runs/cluster-runs";
import { CopyButton } from "../copy-button";
import { HostSelectionBar } from "../hosts/host-selection";
import { HostActions } from "../runs/host-actions";
import { HostKey } from "./host-key";
import { LiveTables } from "./live-tables";
import { Day2Panel } from "./day2-panel";
import { KubeconfigPanel } from "./kubeconfig-panel";
import { HardeningPanel } from "./hardening-panel";
import { BackupsPanel, CertificatesPanel } from "./recovery-panel";

export function ClusterDetail({ id }: { id: string }) {
  // Looked at again while a run is under way, so the state at the top follows it.
  const q = useQuery({ queryKey: queryKeys.cluster(id), queryFn: () => api<ClusterPageView>(`/api/clusters/${id}`), refetchInterval: (q) => (q.state.data?.lifecycle.activeRun ? 10_000 : false) });
  const canWrite = useCan("cluster:write");
  const canStart = useCan("run:start");
  const [selected, setSelected] = useState<string[]>([]);
  if (q.isPending) return <p className="text-sm text-slate-500">Loading…</p>;
  if (q.isError)
    return <p className="text-sm text-red-600">{q.error instanceof ApiError && q.error.status === 404 ? "This cluster does not exist (it may have been deleted)." : `Could not load the cluster: ${q.error.message}`}</p>;
  const c = q.data;
  const d = deriveCluster(c.definition);
  // Before its first bootstrap the one thing to do is bootstrap it: the runs (with that button) come first.
  const first = c.lifecycle.state === "not-bootstrapped" || c.lifecycle.state === "bootstrapping";
  // What acts on a running cluster is disabled until there is one, with the reason.
  const notYet = dayTwoRefusal(c.lifecycle.state);
  const spec = c.definition.spec;
  const facts: [string, string][] = [
    ["Kubernetes", `${describeVersion(spec.kubernetes.version)}, ${spec.kubernetes.controlPlane} control plane`],
    ["API server", d.apiServerUrl],
    ["Pod / service CIDR", `${spec.network.podCidr} / ${spec.network.serviceCidr}`],
    ["API service IP / DNS IP", `${d.apiServiceIp} / ${d.dnsServiceIp}`],
    ["Cluster domain", spec.network.clusterDomain],
    ["Network", spec.network.provider],
    ["etcd members", d.etcdMembers.map((m) => m.name).join(", ")],
    ["Binaries", spec.binaries.baseUrl],
  ];
  return (
    <div className="space-y-6">
      <div className="flex items-center justify-between">
        <div>
          <h1 className="flex items-center gap-2 text-2xl font-bold">
            <span data-testid="cluster-name">{c.name}</span>
            <StateBadge state={c.lifecycle.state} />
          </h1>
          <p className="text-sm text-slate-700" data-testid="cluster-state-detail">
            {c.lifecycle.detail}
            {c.lifecycle.activeRun && (
              <>
                {" "}
                <Link className="text-indigo-700 hover:underline" href={`/clusters/${c.id}/runs/${c.lifecycle.activeRun.id}`} data-testid="cluster-active-run">
                  follow it
                </Link>
              </>
            )}
          </p>
          <p className="flex items-center gap-1 font-mono text-xs text-slate-600">
            {c.id} <CopyButton value={c.id} label="the cluster's id" testId="copy-cluster-id" />
          </p>
          <p className="text-sm text-slate-500">
            {c.masters} masters · {c.workers} workers · updated <Time iso={c.updatedAt} />
          </p>
        </div>
        <div className="flex gap-2">
          <a className="btn" href={`/api/clusters/${c.id}/export`} data-testid="export-yaml">
            Export YAML
          </a>
          <Link className="btn" href={`/clusters/${c.id}/assets`} data-testid="assets-tab">
            Assets
          </Link>
          {canWrite && (
            <Link className="btn" href={`/clusters/${c.id}/edit`} data-testid="edit-cluster">
              Edit
            </Link>
          )}
        </div>
      </div>
      {first && <ClusterRuns clusterId={c.id} bootstrapped={!notYet} />}
      <section className="card">
        <dl className="grid grid-cols-3 gap-x-4 gap-y-2 text-sm">
          {facts.map(([k, v]) => (
            <div key={k} className="contents">
              <dt className="font-medium text-slate-600">{k}</dt>
              <dd className="col-span-2 break-all">{v}</dd>
            </div>
          ))}
        </dl>
      </section>
      <section className="card">
        <h2 className="mb-2 font-semibold">Hosts</h2>
        <div className="mb-2">
          <HostSelectionBar clusterId={c.id} selected={selected} roles={new Map(c.hosts.map((h) => [h.name, h.role]))} onClear={() => setSelected([])} notYet={notYet} />
        </div>
        <table className="min-w-full text-sm" data-testid="detail-hosts">
          <thead className="text-left text-xs uppercase text-slate-600">
            <tr>
              {canStart && (
                <th className="p-1">
                  <input
                    type="checkbox"
                    aria-label="Select every host"
                    data-testid="select-all-hosts"
                    checked={selected.length === c.hosts.length && c.hosts.length > 0}
                    onChange={(e) => setSelected(e.target.checked ? c.hosts.map((h) => h.name) : [])}
                  />
                </th>
              )}
              <th className="p-1">Name</th><th className="p-1">Address</th><th className="p-1">SSH</th><th className="p-1">Role</th><th className="p-1">Host key</th><th className="p-1">Actions</th>
            </tr>
          </thead>
          <tbody>
            {c.hosts.map((h) => (
              <tr key={h.id} className="border-t border-slate-100" data-testid={`host-row-${h.name}`}>
                {canStart && (
                  <td className="p-1">
                    <input
                      type="checkbox"
                      aria-label={`Select ${h.name}`}
                      data-testid={`select-host-${h.name}`}
                      checked={selected.includes(h.name)}
                      onChange={(e) => setSelected(e.target.checked ? [...selected, h.name] : selected.filter((x) => x !== h.name))}
                    />
                  </td>
                )}
                <td className="p-1">
                  <Link className="text-indigo-700 hover:underline" href={`/clusters/${c.id}/hosts/${h.name}`} data-testid={`host-link-${h.name}`}>
                    {h.name}
                  </Link>
                </td>
                <td className="p-1">
                  <span className="flex items-center gap-1 font-mono">
                    {h.address} <CopyButton value={h.address} label={`${h.name}'s address`} testId={`copy-address-${h.name}`} />
                  </span>
                </td>
                <td className="p-1">{h.sshPort}</td>
                <td className="p-1">{h.role}</td>
                <td className="p-1 font-mono text-xs">
                  <HostKey clusterId={c.id} host={h.name} pinned={h.hostKeyFingerprint} />
                </td>
                <td className="p-1">
                  <HostActions clusterId={c.id} host={h.name} role={h.role === "master" ? "master" : "worker"} member={c.members.includes(h.name)} notYet={notYet} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <Day2Panel clusterId={c.id} version={spec.kubernetes.version} hosts={c.hosts} notYet={notYet} />
      <section className="card">
        <h2 className="mb-2 font-semibold">Credentials</h2>
        <ul className="text-sm" data-testid="detail-credentials">
          {c.credentials.map((cr) => (
            <li key={cr.name}>
              <span className="font-medium">{cr.name}</span> — {cr.type}
              {cr.fingerprint ? <span className="ml-2 font-mono text-xs">{cr.fingerprint}</span> : null}
              {!cr.hasSecret && <span className="ml-2 text-red-600">no secret stored</span>}
            </li>
          ))}
        </ul>
      </section>
      {!first && <ClusterRuns clusterId={c.id} bootstrapped={!notYet} />}
      <KubeconfigPanel clusterId={c.id} notYet={notYet} />
      <BackupsPanel clusterId={c.id} clusterName={c.name} notYet={notYet} />
      <CertificatesPanel clusterId={c.id} notYet={notYet} />
      <HardeningPanel clusterId={c.id} notYet={notYet} />
      <ClusterLive clusterId={c.id} />
      {canWrite && <DeleteCluster id={c.id} name={c.name} />}
    </div>
  );
}

const STATE_BADGE: Record<LifecycleState, { label: string; cls: string }> = {
  "not-bootstrapped": { label: "not bootstrapped", cls: "bg-slate-100 text-slate-800" },
  bootstrapping: { label: "bootstrapping", cls: "bg-indigo-100 text-indigo-800" },
  changing: { label: "changing", cls: "bg-indigo-100 text-indigo-800" },
  healthy: { label: "healthy", cls: "bg-green-100 text-green-800" },
  degraded: { label: "degraded", cls: "bg-amber-100 text-amber-900" },
};

function StateBadge({ state }: { state: LifecycleState }) {
  const b = STATE_BADGE[state];
  return (
    <span className={`rounded px-2 py-0.5 text-xs font-medium ${b.cls}`} data-testid="cluster-state" data-state={state}>
      {b.label}
    </span>
  );
}

function DeleteCluster({ id, name }: { id: string; name: string }) {
  const [typed, setTyped] = useState("");
  const router = useRouter();
  const queryClient = useQueryClient();
  const del = useMutation({
    mutationFn: () => api(`/api/clusters/${id}`, { method: "DELETE", body: { confirmName: typed } }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.clusters() });
      router.push("/clusters");
    },
  });
  return (
    <section className="card border-red-200">
      <h2 className="mb-1 font-semibold text-red-700">Delete this cluster definition</h2>
      <p className="mb-2 text-sm text-slate-600">
        This removes the definition, its stored credentials, rendered assets and run history from Bootdeck. It does not touch the hosts. Type <strong>{name}</strong> to confirm.
      </p>
      <div className="flex gap-2">
        <input className="input max-w-xs" aria-label="Type the cluster name to confirm" data-testid="delete-confirm" value={typed} onChange={(e) => setTyped(e.target.value)} />
        <button className="btn-danger" disabled={typed !== name || del.isPending} onClick={() => del.mutate()} data-testid="delete-cluster">
          {del.isPending ? "Deleting…" : "Delete"}
        </button>
      </div>
      {del.isError && <p className="mt-2 text-sm text-red-600">{del.error.message}</p>}
    </section>
  );
}

/** Pods and nodes on demand: watching opens SSH connections to the masters, so it starts when asked. */
function ClusterLive({ clusterId }: { clusterId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <section className="card">
      <div className="flex items-center justify-between">
        <h2 className="font-semibold">Pods and nodes</h2>
        <button className="btn" data-testid="toggle-live" onClick={() => setOpen(!open)}>
          {open ? "Stop watching" : "Watch pods and nodes"}
        </button>
      </div>
      {open && (
        <div className="mt-3">
          <LiveTables clusterId={clusterId} />
        </div>
      )}
    </section>
  );
}
