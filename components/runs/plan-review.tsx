"use client";
// The plan of a run that has not started: every phase, and per step and host exactly what it will
// write (files), run (commands, readable and as sent, marked when only if needed) and write through the
// cluster's API (each object or patch as YAML). Collapsed by default; "Expand all" opens every step at once. The rows
// (phase headings and steps, from plan-model.ts) are virtualized like the host grid: a 500-host plan
// has 3 000+ steps, and only the rows in view (plus a few) are in the DOM. Small plans render every
// row, so find-in-page still finds any host in them.
import { useVirtualizer } from "@tanstack/react-virtual";
import { useQuery } from "@tanstack/react-query";
import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { RunFileView } from "@/lib/assets/store";
import type { PlannedApiCall, PlannedExec, PlannedStep, RunPlan } from "@/lib/engine/plan";
import { byHost, callYaml, legacyCommands, objectText, readableCommand, verbText } from "@/lib/engine/plan-view";
import { api } from "../api-client";
import { CopyButton } from "../copy-button";
import { FileText } from "../file-content";
import { allCollapsed, estimateRowHeight, phaseRowIndex, planRows, plural, rowSizeKey, stepSummary, toggleAll, toggleStep, type Expansion, type PlanRow } from "./plan-model";

/** Up to this many rows (about 35 hosts of a bootstrap) every row is rendered; above it, a screenful. */
const RENDER_ALL_UP_TO = 250;

/** A file's mode as the host shows it: 0644. */
export function octalMode(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}

/** A planned file's content, fetched when opened (by checksum from the run's asset set; secrets stay hidden). */
function PlannedFileContent({ runId, sha256, path }: { runId: string; sha256: string; path: string }) {
  const q = useQuery({ queryKey: ["runs", runId, "files", sha256], queryFn: () => api<RunFileView>(`/api/runs/${runId}/files/${sha256}`), staleTime: Infinity });
  if (q.isPending) return <p className="text-xs text-slate-600">Loading {path}…</p>;
  if (q.isError) return <p className="text-xs text-red-700">Could not load {path}: {q.error.message}</p>;
  return <FileText path={path} content={q.data.content} sensitive={q.data.sensitive} testId={`file-content-${path}`} />;
}

/** "only if needed": a command or API call sent only when the step finds it needs it. */
function NeededMark({ when }: { when: "always" | "needed" }) {
  if (when !== "needed") return null;
  return (
    <span className="ml-2 rounded bg-amber-100 px-1 py-0 font-sans text-[11px] text-amber-900" title="Sent only when the step needs it (a read, a failure's journal, a missing label)">
      only if needed
    </span>
  );
}

/** One command: a readable line (a fixed script as its name and arguments), the script itself on demand, the exact line sent to copy. */
function CommandView({ exec, testId }: { exec: PlannedExec; testId: string }) {
  const r = readableCommand(exec.argv);
  return (
    <div className="rounded border border-slate-200" data-testid={testId} data-when={exec.when}>
      <div className="flex items-start gap-2 px-2 py-1">
        <span className="shrink-0 pt-0.5 font-sans text-[11px] text-slate-500">{exec.id}</span>
        <pre className="flex-1 whitespace-pre-wrap break-all font-mono text-xs text-slate-900">{r.line}</pre>
        <NeededMark when={exec.when} />
        <CopyButton value={r.sent} label="this command as sent" testId={`${testId}-copy`} />
      </div>
      {r.script && (
        <details className="border-t border-slate-100 px-2 py-1 text-xs">
          <summary className="cursor-pointer text-slate-600">The script it runs, argument vector as sent</summary>
          <pre className="mt-1 whitespace-pre-wrap break-all rounded bg-slate-900 p-2 font-mono text-slate-100">{r.script}</pre>
          <pre className="mt-1 whitespace-pre-wrap break-all font-mono text-slate-600">{JSON.stringify(exec.argv.slice(3))}</pre>
        </details>
      )}
    </div>
  );
}

/** One API call: its verb and object, the rule for what only the run decides, the object or patch as YAML on demand. */
function ApiCallView({ call, testId }: { call: PlannedApiCall; testId: string }) {
  const [open, setOpen] = useState(false);
  const yaml = callYaml(call);
  return (
    <li className="py-0.5" data-testid={testId} data-verb={call.verb}>
      <span className="mr-2 inline-block w-28 rounded bg-indigo-50 px-1 text-[11px] text-indigo-900">{verbText(call)}</span>
      <span className="font-mono">{objectText(call)}</span>
      {call.asset && <span className="ml-2 text-slate-500">from {call.asset}</span>}
      {call.secret && <span className="ml-2 text-slate-500">(values hidden)</span>}
      <NeededMark when={call.when} />
      {yaml && (
        <button type="button" className="ml-2 text-indigo-700 underline" aria-expanded={open} data-testid={`${testId}-view`} onClick={() => setOpen(!open)}>
          {open ? "Hide YAML" : "YAML"}
        </button>
      )}
      {call.rule && <div className="ml-[7.5rem] text-slate-600">{call.rule}</div>}
      {open && <pre className="ml-[7.5rem] mt-1 whitespace-pre-wrap break-all rounded bg-slate-50 p-2 font-mono text-slate-900">{yaml}</pre>}
    </li>
  );
}

/**
 * What one step sends, as the plan holds it: per host, its files (each readable in place, with `runId`)
 * and its commands; what it writes through the cluster's API; what it reads and waits for. Also shown
 * in a step's details once the run started.
 */
export function PlannedStepBody({ step, runId }: { step: PlannedStep; runId?: string }) {
  const [open, setOpen] = useState<string | null>(null);
  const parts = byHost(step);
  const legacy = legacyCommands(step);
  const calls = step.api ?? [];
  const checks = step.checks ?? [];
  const offsite = step.offsite ?? [];
  const empty = parts.every((p) => !p.exec.length && !p.files.length) && !legacy.length && !calls.length && !offsite.length;
  return (
    <div className="space-y-2">
      {empty && <p className="text-xs text-slate-500">No files, commands or API writes: this step compares what it read.</p>}
      {parts
        .filter((p) => p.exec.length || p.files.length)
        .map((p) => (
          <section key={p.host} className="space-y-1" data-testid={`plan-host-${step.key}-${p.host}`}>
            <h3 className="text-xs font-medium text-slate-600">
              on <span className="font-mono">{p.host}</span>
            </h3>
            {p.files.length > 0 && (
              <table className="min-w-full text-xs" data-testid={`plan-files-${step.key}${p.host === step.host ? "" : `-${p.host}`}`}>
                <thead className="text-left text-slate-500">
                  <tr>
                    <th className="pr-3 font-medium">File</th>
                    <th className="pr-3 font-medium">Mode</th>
                    <th className="pr-3 font-medium">SHA-256</th>
                    <th className="text-right font-medium">Size</th>
                    {runId && <th />}
                  </tr>
                </thead>
                <tbody className="font-mono">
                  {p.files.map((f) => (
                    <FileRows key={f.path} file={f} runId={runId} open={open === `${p.host}:${f.path}`} onToggle={() => setOpen(open === `${p.host}:${f.path}` ? null : `${p.host}:${f.path}`)} />
                  ))}
                </tbody>
              </table>
            )}
            {p.exec.map((e, i) => (
              <CommandView key={`${e.id}-${i}`} exec={e} testId={`plan-command-${step.key}-${p.host}-${i}`} />
            ))}
          </section>
        ))}
      {legacy.map((c, i) => (
        <div key={i} className="relative">
          <pre className="whitespace-pre-wrap break-all rounded bg-slate-900 p-2 pr-16 font-mono text-xs text-slate-100">{c}</pre>
          <div className="absolute right-1 top-1">
            <CopyButton value={c} label="this command" testId={`copy-command-${step.key}-${i}`} />
          </div>
        </div>
      ))}
      {calls.length > 0 && (
        <section data-testid={`plan-api-${step.key}`}>
          <h3 className="text-xs font-medium text-slate-600">through the cluster&apos;s API</h3>
          <ul className="text-xs">
            {calls.map((c, i) => (
              <ApiCallView key={c.id} call={c} testId={`plan-api-${step.key}-${i}`} />
            ))}
          </ul>
        </section>
      )}
      {offsite.length > 0 && (
        <section data-testid={`plan-offsite-${step.key}`}>
          <h3 className="text-xs font-medium text-slate-600">to the off-machine backup store, from the dashboard</h3>
          <ul className="list-disc pl-5 text-xs text-slate-700">
            {offsite.map((c, i) => (
              <li key={i}>{c}</li>
            ))}
          </ul>
        </section>
      )}
      {checks.length > 0 && (
        <section data-testid={`plan-checks-${step.key}`}>
          <h3 className="text-xs font-medium text-slate-600">then reads and waits (sends nothing)</h3>
          <ul className="list-disc pl-5 text-xs text-slate-700">
            {checks.map((c, i) => (
              <li key={i}>{c}</li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function FileRows({ file: f, runId, open, onToggle }: { file: PlannedStep["files"][number]; runId?: string; open: boolean; onToggle: () => void }) {
  return (
    <>
      <tr>
        <td className="break-all pr-3">
          {f.path}
          {f.systemMasters && (
            <span
              className="ml-2 whitespace-nowrap rounded bg-amber-100 px-1 font-sans text-[10px] font-semibold text-amber-900"
              title="Carries a system:masters credential: cluster-admin, beyond RBAC. Only the administrator's kubeconfig and the API server's client towards kubelets do."
              data-testid={`file-system-masters-${f.path}`}
            >
              system:masters
            </span>
          )}
        </td>
        <td className="pr-3">{octalMode(f.mode)}</td>
        <td className="pr-3" title={f.sha256}>
          {f.sha256.slice(0, 12)}
        </td>
        <td className="whitespace-nowrap text-right">{formatBytes(f.size)}</td>
        {runId && (
          <td className="pl-2 text-right font-sans">
            <button type="button" className="text-indigo-700 underline" aria-expanded={open} data-testid={`view-file-${f.path}`} onClick={onToggle}>
              {open ? "Hide" : "View"}
            </button>
          </td>
        )}
      </tr>
      {open && runId && (
        <tr>
          <td colSpan={5} className="py-1 font-sans">
            <PlannedFileContent runId={runId} sha256={f.sha256} path={f.path} />
          </td>
        </tr>
      )}
    </>
  );
}

/** Memoized: the run page re-renders on every event, the plan never changes. */
export const PlanReview = memo(function PlanReview({ plan, runId }: { plan: RunPlan; runId: string }) {
  const [expansion, setExpansion] = useState<Expansion>(allCollapsed);
  const rows = useMemo(() => planRows(plan, expansion), [plan, expansion]);
  const phaseAt = useMemo(() => phaseRowIndex(rows), [rows]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const getItemKey = useCallback((i: number) => (rows[i] ? rowSizeKey(rows[i]) : i), [rows]);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => estimateRowHeight(rows[i]),
    overscan: rows.length <= RENDER_ALL_UP_TO ? rows.length : 10,
    getItemKey,
    useFlushSync: false,
  });
  const onToggle = useCallback((key: string) => setExpansion((e) => toggleStep(e, key)), []);
  // "Expand all" / "Collapse all" change every row's height: keep the row at the top of the list in place
  // (the pixel offset alone would land somewhere else in a 3 000-row list).
  const anchor = useRef<number | null>(null);
  const onToggleAll = () => {
    const offset = virtualizer.scrollOffset ?? 0;
    anchor.current = offset > 0 ? (virtualizer.getVirtualItemForOffset(offset)?.index ?? null) : null;
    setExpansion(toggleAll);
  };
  useLayoutEffect(() => {
    if (anchor.current === null) return;
    virtualizer.scrollToIndex(anchor.current, { align: "start" });
    anchor.current = null;
  }, [expansion.all, virtualizer]);

  return (
    <div className="space-y-3" data-testid="plan-review">
      <div className="flex items-center justify-between gap-3">
        <p className="text-sm text-slate-600">This is the plan. Nothing has been sent to any host yet; review the files and commands, then confirm.</p>
        <button className="btn shrink-0" data-testid="plan-expand-all" onClick={onToggleAll}>
          {expansion.all ? "Collapse all" : "Expand all"}
        </button>
      </div>
      <nav className="flex flex-wrap gap-1.5 text-xs" aria-label="Phases of the plan">
        {plan.phases.map((phase, i) => (
          // Every phase with its step count, always on screen; a click scrolls the list to its heading.
          <button
            key={phase.id}
            className="rounded border border-slate-200 px-2 py-0.5 hover:bg-slate-50"
            data-testid={`plan-phase-${phase.id}`}
            onClick={() => virtualizer.scrollToIndex(phaseAt.get(phase.id) ?? 0, { align: "start" })}
          >
            {i + 1}. {phase.title} <span className="text-slate-500">· {plural(phase.steps.length, "step")}</span>
          </button>
        ))}
      </nav>
      <div ref={scrollRef} className="card max-h-[70vh] overflow-auto py-0" data-testid="plan-scroll">
        <div className="relative" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((v) => {
            const row = rows[v.index];
            if (!row) return null;
            return (
              // Keyed by the row, not by its size key, so opening a step keeps its button (and focus).
              <div key={row.key} ref={virtualizer.measureElement} data-index={v.index} className="absolute left-0 top-0 w-full" style={{ transform: `translateY(${v.start}px)` }}>
                <PlanRowView row={row} onToggle={onToggle} runId={runId} />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
});

const PlanRowView = memo(function PlanRowView({ row, onToggle, runId }: { row: PlanRow; onToggle: (key: string) => void; runId: string }) {
  if (row.kind === "phase")
    return (
      <h2 className="pb-1 pt-3 font-semibold" data-testid={`plan-heading-${row.id}`}>
        {row.number}. {row.title} <span className="text-sm font-normal text-slate-500">· {plural(row.steps, "step")}</span>
      </h2>
    );
  if (row.kind === "empty") return <p className="pb-1 text-sm text-slate-500">Nothing to do in this phase.</p>;
  const s = row.step;
  return (
    <div className="border-b border-slate-100" data-testid={`plan-step-${s.key}`}>
      <button className="flex w-full items-center gap-2 py-1 text-left text-sm hover:bg-slate-50" aria-expanded={row.open} onClick={() => onToggle(s.key)} data-testid={`plan-toggle-${s.key}`}>
        <span className="w-3 text-slate-600">{row.open ? "▾" : "▸"}</span>
        <span className="w-40 shrink-0 truncate font-mono text-xs">{s.host ?? "cluster"}</span>
        <span className="flex-1">{s.title}</span>
        <span className="text-xs text-slate-500">{stepSummary(s)}</span>
      </button>
      {row.open && (
        <div className="ml-5 pb-2">
          <PlannedStepBody step={s} runId={runId} />
        </div>
      )}
    </div>
  );
});

/** "3 hosts, 24 steps": what Start will run. */
export function planSize(plan: RunPlan): { hosts: number; steps: number } {
  const hosts = new Set<string>();
  let steps = 0;
  for (const p of plan.phases)
    for (const s of p.steps) {
      steps += 1;
      if (s.host) hosts.add(s.host);
    }
  return { hosts: hosts.size, steps };
}
