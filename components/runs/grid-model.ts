// The run page's host × phase grid as plain data: one row per host (plus a "cluster" row for
// cluster-wide steps), one cell per phase. No React here, so the rules (what a cell's status is, which
// rows come first, what a filter keeps) are unit-tested on their own.
import type { RunHost, RunView, StepView } from "@/lib/engine/queries";
import { WARNINGS_NEED_DECISION } from "@/lib/clusters/host-state";

/** A step's status, and "decision" for a preflight step stopped by warnings an admin or lead must accept. */
export type CellStatus = "pending" | "running" | "waiting" | "done" | "skipped" | "failed" | "decision" | "cancelled";

/** How a step shows: its status, except that a step stopped only by warnings waits for a decision. */
export function stepState(step: Pick<StepView, "status" | "error">): CellStatus {
  if (step.status === "failed" && step.error?.includes(WARNINGS_NEED_DECISION)) return "decision";
  return step.status as CellStatus;
}

export type GridCell = {
  phase: string;
  /** The host's steps in this phase (usually one), in plan order. */
  steps: StepView[];
  status: CellStatus;
  /** Earliest start and latest finish of the cell's steps; finishedAt null while any still runs. */
  startedAt: string | null;
  finishedAt: string | null;
};

export type GridRow = {
  /** The host's name, or null for the cluster row. */
  host: string | null;
  /** Stable key for lists and test ids: the host's name or "cluster". */
  id: string;
  role: string;
  address: string;
  status: CellStatus;
  /** One per phase of the plan, in phase order; null where the host has no step in that phase. */
  cells: (GridCell | null)[];
};

export type Grid = { phases: { id: string; title: string }[]; rows: GridRow[] };

export type GridFilter = { role: string; state: string };
export const allRows: GridFilter = { role: "all", state: "all" };

/**
 * One status for several steps, the most telling first: a failure anywhere shows, then a decision to
 * make; then work in progress (running, then waiting); then a cancel. A mix of finished and pending
 * steps is work in progress too.
 */
export function combineStatus(statuses: readonly string[]): CellStatus {
  const has = (s: string) => statuses.includes(s);
  if (statuses.length === 0) return "pending";
  if (has("failed")) return "failed";
  if (has("decision")) return "decision";
  if (has("running")) return "running";
  if (has("waiting")) return "waiting";
  if (has("cancelled")) return "cancelled";
  if (statuses.every((s) => s === "pending")) return "pending";
  if (has("pending")) return "running";
  if (statuses.every((s) => s === "skipped")) return "skipped";
  return "done";
}

const CLUSTER = "cluster";

/** Rows: the cluster row first, then hosts with a failure, then those waiting for a decision, then the rest in definition order. */
export function buildGrid(run: Pick<RunView, "plan" | "steps"> & { hosts: Pick<RunHost, "name" | "role" | "address">[] }): Grid {
  const phases = run.plan.phases.map((p) => ({ id: p.id, title: p.title }));
  const phaseIndex = new Map(phases.map((p, i) => [p.id, i]));
  const byHost = new Map<string | null, StepView[][]>();
  for (const step of run.steps) {
    const i = phaseIndex.get(step.phase);
    if (i === undefined) continue;
    let perPhase = byHost.get(step.host);
    if (!perPhase) byHost.set(step.host, (perPhase = phases.map(() => [])));
    perPhase[i]!.push(step);
  }
  const known = new Map(run.hosts.map((h, i) => [h.name, { ...h, position: i }]));
  const rows: (GridRow & { position: number })[] = [];
  for (const [host, perPhase] of byHost) {
    const info = host === null ? undefined : known.get(host);
    const cells = perPhase.map((steps, i) => (steps.length ? toCell(phases[i]!.id, steps) : null));
    rows.push({
      host,
      id: host ?? CLUSTER,
      role: host === null ? CLUSTER : (info?.role ?? ""),
      address: info?.address ?? "",
      status: combineStatus(cells.flatMap((c) => (c ? [c.status] : []))),
      cells,
      // The cluster row leads; hosts no longer in the definition go last, by name.
      position: host === null ? -1 : (info?.position ?? Number.MAX_SAFE_INTEGER),
    });
  }
  rows.sort((a, b) => rank(a) - rank(b) || a.position - b.position || a.id.localeCompare(b.id));
  return { phases, rows: rows.map(({ position: _position, ...row }) => row) };
}

function rank(row: GridRow): number {
  if (row.host === null) return 0;
  return row.status === "failed" ? 1 : row.status === "decision" ? 2 : 3;
}

function toCell(phase: string, steps: StepView[]): GridCell {
  const starts = steps.flatMap((s) => (s.startedAt ? [s.startedAt] : [])).sort();
  const finishes = steps.map((s) => s.finishedAt);
  const allFinished = finishes.every((f) => f !== null) && steps.every((s) => s.startedAt);
  return {
    phase,
    steps,
    status: combineStatus(steps.map(stepState)),
    startedAt: starts[0] ?? null,
    finishedAt: allFinished ? ((finishes as string[]).sort().at(-1) ?? null) : null,
  };
}

/** Keeps rows of the role ("all", "cluster", "master", "worker") whose status is the state ("all" or a status). */
export function filterRows(rows: readonly GridRow[], filter: GridFilter): GridRow[] {
  return rows.filter((r) => (filter.role === "all" || r.role === filter.role) && (filter.state === "all" || r.status === filter.state));
}

/** The roles present, for the role filter: cluster first, then as they appear. */
export function rolesOf(rows: readonly GridRow[]): string[] {
  return [...new Set(rows.map((r) => r.role).filter(Boolean))];
}

/** Rows per status, for the state filter's labels ("failed (3)"). */
export function countByStatus(rows: readonly GridRow[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

/**
 * Steps that ran to an end (done, failed, or cancelled while running) and in total, for the progress
 * bar; those stopped for a decision apart from failures. A step that never ran — skipped (an earlier
 * step failed, the run stopped or ended before it) or cancelled before it started — is not progress:
 * it is counted as not run.
 */
export function progressOf(steps: readonly Pick<StepView, "status" | "error" | "startedAt">[]): { finished: number; failed: number; decisions: number; notRun: number; total: number } {
  let finished = 0;
  let failed = 0;
  let decisions = 0;
  let notRun = 0;
  for (const s of steps) {
    if (s.status === "skipped" || (s.status === "cancelled" && !s.startedAt)) notRun += 1;
    else if (s.status === "done" || s.status === "failed" || s.status === "cancelled") finished += 1;
    const state = stepState(s);
    if (state === "failed") failed += 1;
    if (state === "decision") decisions += 1;
  }
  return { finished, failed, decisions, notRun, total: steps.length };
}

/**
 * The warnings that wait for a decision, each once with the hosts that have it ("cgroup v1 …": master-1,
 * worker-1), from the preflight steps' errors ("preflight on HOST: warnings need …: W1; W2").
 */
export function groupWarnings(steps: readonly Pick<StepView, "host" | "error">[]): { message: string; hosts: string[] }[] {
  const byMessage = new Map<string, string[]>();
  for (const s of steps) {
    const at = s.error?.indexOf(`${WARNINGS_NEED_DECISION}: `) ?? -1;
    if (at < 0) continue;
    for (const message of s.error!.slice(at + WARNINGS_NEED_DECISION.length + 2).split("; ")) {
      const hosts = byMessage.get(message) ?? [];
      hosts.push(s.host ?? "the cluster");
      byMessage.set(message, hosts);
    }
  }
  return [...byMessage].map(([message, hosts]) => ({ message, hosts }));
}

/** The cell of a row for a phase id, for the details panel. */
export function findCell(grid: Grid, rowId: string, phase: string): { row: GridRow; cell: GridCell } | null {
  const row = grid.rows.find((r) => r.id === rowId);
  const i = grid.phases.findIndex((p) => p.id === phase);
  const cell = row && i >= 0 ? row.cells[i] : null;
  return row && cell ? { row, cell } : null;
}
