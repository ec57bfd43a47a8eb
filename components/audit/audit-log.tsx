"use client";
// The audit page: filter by action, user and date range; page back through history; export the
// filtered log as CSV or JSON.
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { auditQueryKeys, type AuditEventView } from "@/lib/audit/schemas";
import { api } from "../api-client";
import { Time } from "../time";

/** A detail's value as text: strings as they are, the rest as JSON. */
const detailText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/** An id as its name, linked where the thing still exists; the id itself in the tooltip. */
function Named({ id, names }: { id: string; names: AuditEventView["names"] }) {
  const n = names?.[id];
  if (!n) return <>{id}</>;
  return n.href ? (
    <Link className="text-indigo-700 hover:underline" href={n.href} title={id}>
      {n.label}
    </Link>
  ) : (
    <span className="text-slate-600" title={id}>
      {n.label}
    </span>
  );
}

type Filter = { action: string; user: string; from: string; to: string };
const empty: Filter = { action: "", user: "", from: "", to: "" };

function query(f: Filter, extra: Record<string, string> = {}): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, ...extra })) if (v) p.set(k, v.trim());
  return p.toString();
}

export function AuditLog() {
  const [draft, setDraft] = useState<Filter>(empty);
  const [filter, setFilter] = useState<Filter>(empty);
  const q = useInfiniteQuery({
    queryKey: auditQueryKeys.events(filter),
    initialPageParam: "",
    queryFn: ({ pageParam }) => api<{ events: AuditEventView[]; nextBefore: number | null }>(`/api/audit?${query(filter, pageParam ? { before: pageParam } : {})}`),
    getNextPageParam: (last) => (last.nextBefore ? String(last.nextBefore) : undefined),
  });
  const events = q.data?.pages.flatMap((p) => p.events) ?? [];
  const field = (k: keyof Filter, label: string, type = "text", placeholder = "") => (
    <div>
      <label className="label" htmlFor={`audit-${k}`}>{label}</label>
      <input id={`audit-${k}`} type={type} className="input" placeholder={placeholder} value={draft[k]} onChange={(e) => setDraft({ ...draft, [k]: e.target.value })} data-testid={`audit-filter-${k}`} />
    </div>
  );
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-bold">Audit log</h1>
      <form
        className="card flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
        }}
      >
        {field("action", "Action", "text", "cluster.create or user.")}
        {field("user", "User")}
        {field("from", "From (UTC)", "date")}
        {field("to", "To (UTC)", "date")}
        <button className="btn-primary" data-testid="audit-apply">Filter</button>
        <button type="button" className="btn" onClick={() => { setDraft(empty); setFilter(empty); }}>
          Clear
        </button>
        <span className="ml-auto flex gap-2">
          <a className="btn" href={`/api/audit/export?${query(filter, { format: "csv" })}`} data-testid="audit-export-csv">Export CSV</a>
          <a className="btn" href={`/api/audit/export?${query(filter, { format: "json" })}`} data-testid="audit-export-json">Export JSON</a>
        </span>
      </form>
      {q.isPending && <p className="text-sm text-slate-500">Loading…</p>}
      {q.isError && <p className="text-sm text-red-600">Could not load the audit log: {q.error.message}</p>}
      {q.data && events.length === 0 && <p className="card text-sm text-slate-600">No events match.</p>}
      {events.length > 0 && (
        <table className="card min-w-full text-sm" data-testid="audit-table">
          <thead className="text-left text-xs uppercase text-slate-500">
            <tr>
              <th className="p-2">When</th>
              <th className="p-2">Who</th>
              <th className="p-2">Action</th>
              <th className="p-2">Target</th>
              <th className="p-2">From</th>
              <th className="p-2">Details</th>
            </tr>
          </thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.id} className="border-t border-slate-100 align-top" data-testid="audit-row">
                <td className="whitespace-nowrap p-2 text-xs">
                  <Time iso={e.at} />
                </td>
                <td className="p-2">
                  {e.username ?? "—"}
                  {e.provider && (
                    <div className="break-all text-xs text-slate-600" data-testid="audit-identity" title={e.subject ?? undefined}>
                      {e.provider === "local" ? "local account" : e.provider}
                      {e.subject && e.provider !== "local" ? ` · ${e.subject}` : ""}
                    </div>
                  )}
                </td>
                <td className="p-2 font-mono text-xs">{e.action}</td>
                <td className="p-2 text-xs" data-testid="audit-target">
                  {e.target ? <Named id={e.target} names={e.names} /> : ""}
                </td>
                <td className="p-2 text-xs text-slate-600">{e.ip ?? ""}</td>
                <td className="max-w-md p-2 text-xs text-slate-700">
                  {Object.entries(e.details).map(([k, v]) => (
                    <div key={k} className="break-all">
                      <span className="text-slate-600">{k}:</span> {typeof v === "string" && e.names?.[v] ? <Named id={v} names={e.names} /> : detailText(v)}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {q.hasNextPage && (
        <button className="btn" disabled={q.isFetchingNextPage} onClick={() => void q.fetchNextPage()} data-testid="audit-more">
          {q.isFetchingNextPage ? "Loading…" : "Older events"}
        </button>
      )}
    </div>
  );
}
