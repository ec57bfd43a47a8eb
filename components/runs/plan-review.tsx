"use client";
// The plan of a run that has not started: every phase, and per host what exactly the step will write
// (files) and run (commands). Collapsed by default; "Expand all" opens every step at once.
import { memo, useState } from "react";
import type { PlannedStep, RunPlan } from "@/lib/engine/plan";

/** A file's mode as the host shows it: 0644. */
export function octalMode(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** What one step sends: its files and its exact commands. Also shown in a step's details once the run started. */
export function PlannedStepBody({ step }: { step: PlannedStep }) {
  if (step.files.length === 0 && step.commands.length === 0) return <p className="text-xs text-slate-500">No files or shell commands: this step works from Bootdeck (comparing facts, or through the Kubernetes API).</p>;
  return (
    <div className="space-y-2">
      {step.files.length > 0 && (
        <table className="min-w-full text-xs" data-testid={`plan-files-${step.key}`}>
          <thead className="text-left text-slate-500">
            <tr>
              <th className="pr-3 font-medium">File</th>
              <th className="pr-3 font-medium">Mode</th>
              <th className="pr-3 font-medium">SHA-256</th>
              <th className="text-right font-medium">Size</th>
            </tr>
          </thead>
          <tbody className="font-mono">
            {step.files.map((f) => (
              <tr key={f.path}>
                <td className="break-all pr-3">{f.path}</td>
                <td className="pr-3">{octalMode(f.mode)}</td>
                <td className="pr-3" title={f.sha256}>
                  {f.sha256.slice(0, 12)}
                </td>
                <td className="whitespace-nowrap text-right">{formatBytes(f.size)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {step.commands.map((c, i) => (
        <pre key={i} className="whitespace-pre-wrap break-all rounded bg-slate-900 p-2 font-mono text-xs text-slate-100">
          {c}
        </pre>
      ))}
    </div>
  );
}

/** Memoized: the run page re-renders on every event, the plan never changes. */
export const PlanReview = memo(function PlanReview({ plan }: { plan: RunPlan }) {
  const [expandAll, setExpandAll] = useState(false);
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = (key: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  return (
    <div className="space-y-3" data-testid="plan-review">
      <div className="flex items-center justify-between">
        <p className="text-sm text-slate-600">This is the plan. Nothing has been sent to any host yet; review the files and commands, then confirm.</p>
        <button
          className="btn"
          data-testid="plan-expand-all"
          onClick={() => {
            setExpandAll(!expandAll);
            setOpen(new Set());
          }}
        >
          {expandAll ? "Collapse all" : "Expand all"}
        </button>
      </div>
      {plan.phases.map((phase, i) => (
        <section key={phase.id} className="card" data-testid={`plan-phase-${phase.id}`}>
          <h2 className="mb-2 font-semibold">
            {i + 1}. {phase.title} <span className="text-sm font-normal text-slate-500">· {plural(phase.steps.length, "step")}</span>
          </h2>
          {phase.steps.length === 0 && <p className="text-sm text-slate-500">Nothing to do in this phase.</p>}
          <ul className="divide-y divide-slate-100">
            {phase.steps.map((s) => {
              const isOpen = expandAll !== open.has(s.key); // "expand all" inverts each step's own toggle
              return (
                <li key={s.key} data-testid={`plan-step-${s.key}`}>
                  <button className="flex w-full items-center gap-2 py-1 text-left text-sm hover:bg-slate-50" aria-expanded={isOpen} onClick={() => toggle(s.key)}>
                    <span className="w-3 text-slate-400">{isOpen ? "▾" : "▸"}</span>
                    <span className="w-40 shrink-0 truncate font-mono text-xs">{s.host ?? "cluster"}</span>
                    <span className="flex-1">{s.title}</span>
                    <span className="text-xs text-slate-500">
                      {s.files.length ? `${plural(s.files.length, "file")} · ` : ""}
                      {s.commands.length ? plural(s.commands.length, "command") : "no commands"}
                    </span>
                  </button>
                  {isOpen && (
                    <div className="mb-2 ml-5">
                      <PlannedStepBody step={s} />
                    </div>
                  )}
                </li>
              );
            })}
          </ul>
        </section>
      ))}
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
