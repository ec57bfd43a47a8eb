// How long a running run still needs, and the run page's clocks (durations, "waiting for … 00:42 of
// 05:00"). Pure, so the page and its tests agree.
//
// An estimate is only given when it means something:
//   - none after a failure (the phases after a failed master or cluster-wide step will not run, and a
//     failed worker's retry is a person's decision), nor while warnings wait for a decision;
//   - a phase under way with finished steps is estimated from them: each unfinished step is expected to
//     take that phase's average, minus the time it has already run, and the phase's remaining work is
//     divided by the parallelism observed so far (busy step time ÷ wall time), capped by its unfinished
//     steps (a phase of one cluster-wide step gains nothing from parallelism);
//   - a phase with no finished step yet — the waits for the API, the pivot, the joins — takes as long as
//     it took in an earlier successful run of the same kind (`history`, from
//     GET /api/clusters/:id/phase-times), less the time it has already run; with no such run, or once
//     a phase runs longer than it did then, there is no estimate, and the page says why.

import { stepState } from "./grid-model";

export type EtaStep = { phase: string; status: string; error?: string | null; startedAt: string | null; finishedAt: string | null };

/** Wall time of each phase in an earlier successful run of the same type (phase id → ms). */
export type PhaseHistory = Record<string, number>;

export type Estimate = { ms: number; basis: "steps" | "history" } | { ms: null; why: string };

const unfinished = new Set(["pending", "running", "waiting"]);
const measured = new Set(["done"]);

export function estimateRemaining({
  steps,
  phases,
  startedAt,
  now,
  history,
}: {
  steps: readonly EtaStep[];
  /** The plan's phases in order, with titles for the reasons. */
  phases: readonly { id: string; title: string }[];
  startedAt: string | null;
  now: number;
  history?: PhaseHistory | null;
}): Estimate {
  if (!startedAt) return { ms: null, why: "not started" };
  const states = steps.map((s) => stepState({ status: s.status, error: s.error ?? null }));
  if (states.includes("failed")) return { ms: null, why: "no estimate after a failure" };
  if (states.includes("decision")) return { ms: null, why: "no estimate while warnings wait for a decision" };
  const left = steps.filter((s) => unfinished.has(s.status));
  if (left.length === 0) return { ms: 0, basis: "steps" };

  const byPhase = new Map<string, { total: number; count: number; firstStart: number }>();
  let busy = 0;
  for (const s of steps) {
    if (!s.startedAt) continue;
    const start = Date.parse(s.startedAt);
    const p = byPhase.get(s.phase) ?? { total: 0, count: 0, firstStart: start };
    p.firstStart = Math.min(p.firstStart, start);
    if (measured.has(s.status) && s.finishedAt) {
      const d = Math.max(0, Date.parse(s.finishedAt) - start);
      p.total += d;
      p.count += 1;
      busy += d;
    } else if (s.status === "running" || s.status === "waiting") {
      busy += Math.max(0, now - start);
    }
    byPhase.set(s.phase, p);
  }
  const wall = Math.max(1, now - Date.parse(startedAt));
  const parallelism = Math.max(1, busy / wall);

  let eta = 0;
  let basis: "steps" | "history" = "steps";
  for (const phase of phases) {
    const open = left.filter((s) => s.phase === phase.id);
    if (open.length === 0) continue;
    const seen = byPhase.get(phase.id);
    if (seen && seen.count > 0) {
      const expected = seen.total / seen.count;
      let work = 0;
      for (const s of open) work += Math.max(0, expected - (s.startedAt && s.status !== "pending" ? Math.max(0, now - Date.parse(s.startedAt)) : 0));
      eta += work / Math.min(parallelism, open.length);
      continue;
    }
    const before = history?.[phase.id];
    if (before === undefined) return { ms: null, why: `no estimate yet: "${phase.title}" has not finished a step and no earlier run shows how long it takes` };
    const ran = seen ? Math.max(0, now - seen.firstStart) : 0;
    if (ran > before) return { ms: null, why: `no estimate: "${phase.title}" is taking longer than in the last successful run` };
    eta += before - ran;
    basis = "history";
  }
  return { ms: Math.round(eta), basis };
}

/** "42 s", "3 min 05 s", "1 h 02 min": for elapsed times and estimates. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

/** "00:42" or "1:02:03": a wait's clock. */
export function formatClock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, "0");
  const ss = String(s % 60).padStart(2, "0");
  return hh > 0 ? `${hh}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** "waiting for kube-apiserver on master-1, 00:42 of 05:00", red once past the deadline. */
export function waitingText(waiting: { what: string; host: string | null; since: string; deadline: string }, now: number): { text: string; overdue: boolean } {
  const since = Date.parse(waiting.since);
  const deadline = Date.parse(waiting.deadline);
  // "… on master-2" once: many waits already name their host.
  const named = waiting.host !== null && new RegExp(`(^|[^\\w.-])${waiting.host.replace(/[.]/g, "\\.")}($|[^\\w.-])`).test(waiting.what);
  const where = waiting.host && !named ? ` on ${waiting.host}` : "";
  const clock = Number.isNaN(since) ? "" : `, ${formatClock(now - since)}${Number.isNaN(deadline) ? "" : ` of ${formatClock(deadline - since)}`}`;
  return { text: `waiting for ${waiting.what}${where}${clock}`, overdue: !Number.isNaN(deadline) && now > deadline };
}
