"use client";
// The fleet: every cluster with its health — nodes Ready as the live view last saw them, the last run and
// its result, the earliest certificate expiry, the age of the newest etcd backup — searchable and filtered (rules in fleet-model.ts), and
// its alerts: a failing backup schedule, a certificate close to its end (GET /api/clusters/alerts).
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useDeferredValue, useMemo, useState } from "react";
import type { FleetRow } from "@/lib/clusters/fleet";
import { queryKeys } from "@/lib/clusters/schemas";
import { certQueryKeys, type ClusterAlerts } from "@/lib/certs/schemas";
import { api } from "../api-client";
import { useCan } from "../current-user";
import { runTypeTitle, StatusBadge } from "../runs/run-status";
import { Time, useTimeZone } from "../time";
import { formatTime, relativeTime } from "../time-format";
import { allClusters, attentionReasons, backupState, certState, daysLeft, filterFleet, type FleetFilter } from "./fleet-model";

const states: { value: FleetFilter["state"]; label: string }[] = [
  { value: "all", label: "All" },
  { value: "attention", label: "Needs attention" },
  { value: "healthy", label: "Healthy" },
  { value: "running", label: "Run in progress" },
  { value: "certs-soon", label: "Certificates expiring" },
  { value: "never-run", label: "Never run" },
];

export function ClusterList({ initial }: { /** The rows as the page was rendered with them. */ initial?: FleetRow[] }) {
  const q = useQuery({
    queryKey: queryKeys.clusters(),
    queryFn: () => api<{ clusters: FleetRow[] }>("/api/clusters"),
    initialData: initial && { clusters: initial },
    refetchInterval: 30_000,
  });
  const canWrite = useCan("cluster:write");
  // A failing backup schedule and certificates close to their end (lib/certs/expiry.ts), as badges on each row.
  const alerts = useQuery({ queryKey: certQueryKeys.alerts(), queryFn: () => api<ClusterAlerts>("/api/clusters/alerts"), refetchInterval: 60_000 });
  const [filter, setFilter] = useState<FleetFilter>(allClusters);
  // Typing stays responsive at a few hundred rows: the table follows the search a frame later.
  const deferred = useDeferredValue(filter);
  const [now] = useState(() => Date.now());
  const rows = useMemo(() => (q.data ? filterFleet(q.data.clusters, deferred, now) : []), [q.data, deferred, now]);
  const versions = useMemo(() => [...new Set(q.data?.clusters.map((c) => c.kubernetesVersion) ?? [])].sort(), [q.data]);
  const attention = useMemo(() => q.data?.clusters.filter((c) => attentionReasons(c, now).length > 0).length ?? 0, [q.data, now]);
  return (
    <div className="space-y-4">
      <div className="flex items-center justify-between">
        <h1 className="text-2xl font-bold">Clusters</h1>
        {canWrite && (
          <div className="flex gap-2">
            <Link href="/clusters/import" className="btn" data-testid="import-cluster">
              Import cluster.yaml
            </Link>
            <Link href="/clusters/from-bucket" className="btn" data-testid="from-bucket" title="On a new dashboard: take a cluster over from the bucket its backups were copied to">
              Restore from a bucket
            </Link>
            <Link href="/clusters/new" className="btn-primary" data-testid="new-cluster">
              New cluster
            </Link>
          </div>
        )}
      </div>
      {q.isPending && <p className="text-sm text-slate-600">Loading clusters…</p>}
      {q.isError && <p className="text-sm text-red-700">Could not load clusters: {q.error.message}. Reload to try again.</p>}
      {q.data && q.data.clusters.length === 0 && (
        <div className="card text-sm text-slate-700" data-testid="no-clusters">
          No clusters yet. Create one with the wizard, or import a <code>cluster.yaml</code>.
        </div>
      )}
      {q.data && q.data.clusters.length > 0 && (
        <>
          <div className="flex flex-wrap items-end gap-3 text-sm" role="search">
            <label className="flex flex-col gap-1">
              Search
              <input
                className="input w-64"
                type="search"
                placeholder="name or version"
                value={filter.query}
                onChange={(e) => setFilter({ ...filter, query: e.target.value })}
                data-testid="fleet-search"
              />
            </label>
            <label className="flex flex-col gap-1">
              Health
              <select className="input w-auto" value={filter.state} onChange={(e) => setFilter({ ...filter, state: e.target.value as FleetFilter["state"] })} data-testid="fleet-filter-state">
                {states.map((s) => (
                  <option key={s.value} value={s.value}>
                    {s.label}
                    {s.value === "attention" ? ` (${attention})` : ""}
                  </option>
                ))}
              </select>
            </label>
            <label className="flex flex-col gap-1">
              Kubernetes
              <select className="input w-auto" value={filter.version} onChange={(e) => setFilter({ ...filter, version: e.target.value })} data-testid="fleet-filter-version">
                <option value="all">all versions</option>
                {versions.map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </select>
            </label>
            <span className="pb-2 text-slate-600" data-testid="fleet-count">
              {rows.length === q.data.clusters.length ? `${rows.length} cluster${rows.length === 1 ? "" : "s"}` : `${rows.length} of ${q.data.clusters.length} clusters`}
            </span>
          </div>
          <div className="card overflow-x-auto p-0">
            <table className="min-w-full text-sm" data-testid="cluster-table">
              <thead className="text-left text-xs uppercase text-slate-600">
                <tr>
                  <th className="p-2">Name</th>
                  <th className="p-2">Kubernetes</th>
                  <th className="p-2">Hosts</th>
                  <th className="p-2">Nodes Ready</th>
                  <th className="p-2">Last run</th>
                  <th className="p-2">Certificates</th>
                  <th className="p-2">Last backup</th>
                  <th className="p-2">Alerts</th>
                  <th className="p-2">Updated</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <FleetLine key={c.id} c={c} now={now} alerts={alerts.data?.[c.id]} />
                ))}
              </tbody>
            </table>
            {rows.length === 0 && <p className="p-3 text-sm text-slate-600">No cluster matches.</p>}
          </div>
        </>
      )}
    </div>
  );
}

function FleetLine({ c, now, alerts }: { c: FleetRow; now: number; alerts?: ClusterAlerts[string] }) {
  const reasons = attentionReasons(c, now);
  return (
    <tr className="border-t border-slate-100 align-top" data-testid={`cluster-row-${c.name}`} data-attention={reasons.length > 0 ? "true" : "false"}>
      <td className="p-2">
        <Link className="font-medium text-indigo-700 hover:underline" href={`/clusters/${c.id}`}>
          {c.name}
        </Link>
        {reasons.length > 0 && (
          <div className="text-xs text-amber-800" data-testid="fleet-attention">
            {reasons.join(" · ")}
          </div>
        )}
      </td>
      <td className="p-2">{c.kubernetesVersion}</td>
      <td className="whitespace-nowrap p-2">
        {c.masters} m · {c.workers} w
      </td>
      <td className="whitespace-nowrap p-2" data-testid="fleet-nodes">
        {c.nodes ? (
          <span title={`As the live view saw them at ${c.nodes.seenAt}`}>
            <span className={c.nodes.ready < c.nodes.total ? "font-medium text-red-700" : "text-green-800"}>
              {c.nodes.ready} of {c.nodes.total}
            </span>{" "}
            <span className="text-xs text-slate-600">seen {relativeTime(c.nodes.seenAt, now)}</span>
          </span>
        ) : (
          <span className="text-xs text-slate-600">not seen yet</span>
        )}
      </td>
      <td className="p-2" data-testid="fleet-last-run">
        {c.lastRun ? (
          <span className="flex flex-wrap items-center gap-1">
            <Link className="text-indigo-700 underline" href={`/clusters/${c.id}/runs/${c.lastRun.id}`}>
              {runTypeTitle[c.lastRun.type] ?? c.lastRun.type}
            </Link>
            <StatusBadge status={c.lastRun.status} />
            <span className="text-xs text-slate-600">{relativeTime(c.lastRun.at, now)}</span>
          </span>
        ) : (
          <span className="text-xs text-slate-600">none</span>
        )}
      </td>
      <td className="whitespace-nowrap p-2" data-testid="fleet-certs">
        {c.certificates ? <CertCell notAfter={c.certificates.notAfter} now={now} /> : <span className="text-xs text-slate-600">{c.deployed ? "not rendered" : "not bootstrapped"}</span>}
      </td>
      <td className="whitespace-nowrap p-2" data-testid="fleet-backup">
        <BackupCell backup={c.backup} now={now} />
      </td>
      <td className="p-2 text-xs" data-testid={`cluster-alerts-${c.name}`}>
        {[alerts?.backup, alerts?.certificates].filter(Boolean).map((a) => (
          <span key={a} className="mr-1 inline-block rounded bg-red-100 px-1.5 py-0.5 font-medium text-red-800">
            {a}
          </span>
        ))}
      </td>
      <td className="whitespace-nowrap p-2 text-xs text-slate-600">
        <Time iso={c.updatedAt} seconds={false} />
      </td>
    </tr>
  );
}

function CertCell({ notAfter, now }: { notAfter: string; now: number }) {
  const state = certState(notAfter, now);
  const left = daysLeft(notAfter, now);
  const cls = state === "expired" ? "font-medium text-red-700" : state === "soon" ? "font-medium text-amber-800" : "text-slate-700";
  return (
    <span className={cls} data-state={state} title={`The earliest certificate of the latest asset set expires ${notAfter}`}>
      {state === "expired" ? `expired ${-left} d ago` : `first expires in ${left} d`}
    </span>
  );
}

function BackupCell({ backup, now }: { backup: FleetRow["backup"]; now: number }) {
  const state = backupState(backup, now);
  const zone = useTimeZone();
  const every = backup.intervalMinutes === null ? null : backup.intervalMinutes % 60 === 0 ? `${backup.intervalMinutes / 60} h` : `${backup.intervalMinutes} min`;
  const rule = every === null ? "no schedule: older than a day needs attention" : `the schedule runs every ${every}`;
  if (backup.lastAt === null)
    return (
      <span className="text-xs text-slate-600" data-state={state} title={`No etcd backup is stored; ${rule}`}>
        never
      </span>
    );
  return (
    <span className={state === "old" ? "font-medium text-amber-800" : "text-slate-700"} data-state={state} title={`The newest etcd backup was taken ${formatTime(backup.lastAt, zone)}; ${rule}`}>
      {relativeTime(backup.lastAt, now)}
    </span>
  );
}
