// The plan review as plain data: one flat list of rows (a heading per phase, then one row per step, or a
// "nothing to do" row for an empty phase) that plan-review.tsx virtualizes, so a 500-host plan (3 000+
// steps) puts only a screenful of rows in the DOM. No React here; the rules are unit-tested on their own.
import type { PlannedStep, RunPlan } from "@/lib/engine/plan";

/** Which steps are open. "Expand all" flips the default for every step; a click flips one step against it. */
export type Expansion = { all: boolean; toggled: ReadonlySet<string> };

export const allCollapsed: Expansion = { all: false, toggled: new Set() };

export function isStepOpen(e: Expansion, key: string): boolean {
  return e.all !== e.toggled.has(key);
}

export function toggleStep(e: Expansion, key: string): Expansion {
  const toggled = new Set(e.toggled);
  if (toggled.has(key)) toggled.delete(key);
  else toggled.add(key);
  return { all: e.all, toggled };
}

/** "Expand all" / "Collapse all": every step follows, including the ones opened or closed one by one. */
export function toggleAll(e: Expansion): Expansion {
  return { all: !e.all, toggled: new Set() };
}

export type PlanRow =
  | { kind: "phase"; key: string; id: string; title: string; number: number; steps: number }
  | { kind: "empty"; key: string; phase: string }
  | { kind: "step"; key: string; phase: string; step: PlannedStep; open: boolean };

/** Phase rows are keyed "phase:<id>"; step keys ("kubelet/worker-1") never start that way. */
export function phaseRowKey(id: string): string {
  return `phase:${id}`;
}

/** Every row of the review in order: a phase's heading, then its steps (or one "empty" row). */
export function planRows(plan: RunPlan, expansion: Expansion): PlanRow[] {
  const rows: PlanRow[] = [];
  plan.phases.forEach((phase, i) => {
    rows.push({ kind: "phase", key: phaseRowKey(phase.id), id: phase.id, title: phase.title, number: i + 1, steps: phase.steps.length });
    if (phase.steps.length === 0) rows.push({ kind: "empty", key: `empty:${phase.id}`, phase: phase.id });
    for (const step of phase.steps) rows.push({ kind: "step", key: step.key, phase: phase.id, step, open: isStepOpen(expansion, step.key) });
  });
  return rows;
}

/** The row index of each phase's heading, to jump to a phase. */
export function phaseRowIndex(rows: readonly PlanRow[]): Map<string, number> {
  const index = new Map<string, number>();
  rows.forEach((r, i) => {
    if (r.kind === "phase") index.set(r.id, i);
  });
  return index;
}

/**
 * The virtualizer's key for a row's size: an open step is a different size from the same step closed,
 * so each state keeps its own measurement ("Expand all" then scrolling never reuses a closed row's height).
 */
export function rowSizeKey(row: PlanRow): string {
  return row.kind === "step" && row.open ? `${row.key}#open` : row.key;
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** What a step sends, on its collapsed line: "2 files · 2 commands", "no commands", "1 command · 40 API writes". */
export function stepSummary(step: Pick<PlannedStep, "files" | "commands" | "api">): string {
  const files = step.files.length ? `${plural(step.files.length, "file")} · ` : "";
  const api = step.api?.length ? ` · ${plural(step.api.length, "API write")}` : "";
  return files + (step.commands.length ? plural(step.commands.length, "command") : "no commands") + api;
}

// Estimated heights in pixels, before a row is measured (rows are measured once rendered). Close enough
// keeps the scrollbar steady; exactness does not matter.
export const ROW_HEIGHTS = { phase: 44, empty: 28, step: 29, fileLine: 17, commandLine: 16, block: 24 } as const;
/** Characters per wrapped line of a command at a typical width (monospace, text-xs). */
const COMMAND_COLUMNS = 110;

export function estimateRowHeight(row: PlanRow | undefined): number {
  if (!row) return ROW_HEIGHTS.step;
  if (row.kind === "phase") return ROW_HEIGHTS.phase;
  if (row.kind === "empty") return ROW_HEIGHTS.empty;
  if (!row.open) return ROW_HEIGHTS.step;
  const { files, commands, exec, api = [], checks = [] } = row.step;
  if (files.length === 0 && commands.length === 0 && api.length === 0) return ROW_HEIGHTS.step + ROW_HEIGHTS.block + 8;
  let body = files.length ? ROW_HEIGHTS.block + files.length * ROW_HEIGHTS.fileLine : 0;
  // A command shows its readable line (a script's name and arguments), the script folded away.
  const shown = exec ? exec.map((e) => (e.argv[0] === "sh" && e.argv[1] === "-c" ? e.argv.slice(3).join(" ") : e.argv.join(" "))) : commands;
  for (const c of shown) {
    const lines = c.split("\n").reduce((n, line) => n + Math.max(1, Math.ceil(line.length / COMMAND_COLUMNS)), 0);
    body += ROW_HEIGHTS.block + lines * ROW_HEIGHTS.commandLine + (exec ? ROW_HEIGHTS.fileLine : 0);
  }
  if (api.length) body += ROW_HEIGHTS.block + api.length * ROW_HEIGHTS.fileLine;
  if (checks.length) body += ROW_HEIGHTS.block + checks.length * ROW_HEIGHTS.fileLine;
  return ROW_HEIGHTS.step + body + 8;
}
