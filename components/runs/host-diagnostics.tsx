"use client";
// "Run diagnostics" for one host of the step panel: runs the fixed read-only script on the host and
// shows its sections (journal, kubelet unit, containers, disk, time, ports, swap) as collapsible
// blocks, with a search box that keeps only the matching lines and highlights the match.
import { useMutation } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import type { HostDiagnostics as Diagnostics } from "@/lib/engine/diagnostics";
import { api } from "../api-client";
import { useCan } from "../current-user";
import { Time } from "../time";

export function HostDiagnostics({ clusterId, host }: { clusterId: string; host: string }) {
  const canRun = useCan("host:inspect");
  const [query, setQuery] = useState("");
  const run = useMutation({
    mutationFn: () => api<Diagnostics>(`/api/clusters/${clusterId}/hosts/${encodeURIComponent(host)}/diagnostics`, { method: "POST" }),
  });
  if (!canRun) return null;
  const result = run.data;
  return (
    <div className="space-y-2 border-t border-slate-100 pt-2" data-testid={`diagnostics-${host}`}>
      <div className="flex flex-wrap items-center gap-2">
        <button className="btn" data-testid="run-diagnostics" disabled={run.isPending} onClick={() => run.mutate()}>
          {run.isPending ? `Running diagnostics on ${host}…` : `Run diagnostics on ${host}`}
        </button>
        <span className="text-xs text-slate-500">Read-only: journal, kubelet unit, containers, disk, time, ports, swap.</span>
      </div>
      {run.isError && (
        <p className="text-sm text-red-600" data-testid="diagnostics-error">
          Could not run diagnostics: {run.error.message}
        </p>
      )}
      {result && (
        <div className="space-y-2">
          <div className="flex flex-wrap items-center gap-2">
            <input
              className="input max-w-xs"
              type="search"
              placeholder="Filter lines…"
              aria-label="Filter diagnostics lines"
              data-testid="diagnostics-search"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
            />
            <span className="text-xs text-slate-500">
              {result.host} at <Time iso={result.at} /> · {(result.durationMs / 1000).toFixed(1)} s
            </span>
          </div>
          {result.sections.map((s) => (
            <Section key={s.title} title={s.title} text={s.text} query={query.trim().toLowerCase()} />
          ))}
        </div>
      )}
    </div>
  );
}

function Section({ title, text, query }: { title: string; text: string; query: string }) {
  const lines = text === "" ? [] : text.split("\n");
  const shown = query ? lines.filter((l) => l.toLowerCase().includes(query)) : lines;
  const open = query ? shown.length > 0 : title === "kubelet journal";
  return (
    <details className="rounded border border-slate-200" open={open} data-testid={`diagnostics-section-${title.replace(/ /g, "-")}`}>
      <summary className="cursor-pointer px-2 py-1 text-sm font-medium">
        {title}
        <span className="ml-2 text-xs font-normal text-slate-500">{query ? `${shown.length} of ${lines.length} lines` : `${lines.length} lines`}</span>
      </summary>
      <pre className="max-h-96 overflow-auto whitespace-pre-wrap break-all bg-slate-50 p-2 font-mono text-xs">
        {shown.length ? shown.map((l, i) => <div key={i}>{highlight(l, query)}</div>) : <span className="text-slate-500">{query ? "No matching lines." : "(empty)"}</span>}
      </pre>
    </details>
  );
}

function highlight(line: string, query: string): ReactNode {
  if (!query) return line || "\u00a0";
  const parts: ReactNode[] = [];
  const lower = line.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(query); at >= 0; at = lower.indexOf(query, from)) {
    parts.push(line.slice(from, at), <mark key={at}>{line.slice(at, at + query.length)}</mark>);
    from = at + query.length;
  }
  parts.push(line.slice(from));
  return parts;
}
