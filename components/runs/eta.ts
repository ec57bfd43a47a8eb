// How long a running run still needs, estimated from the steps that have finished so far, and the run
// page's clocks (durations, "waiting for … 00:42 of 05:00"). Pure, so the page and its tests agree.
//
// Phases run one after another and, inside a phase, hosts run side by side (bounded by the engine's
// concurrency, which the page does not know). So the estimate is:
//   - each unfinished step is expected to take as long as the finished steps of its phase took on
//     average (or, for a phase with none finished yet, the average of every finished step), minus the
//     time it has already been running;
//   - the observed parallelism p is the busy time of all steps divided by the run's wall time so far;
//   - each phase's remaining work is divided by min(p, its unfinished steps): a phase of one
//     cluster-wide step gains nothing from parallelism.

export type EtaStep = { phase: string; status: string; startedAt: string | null; finishedAt: string | null };

const unfinished = new Set(["pending", "running", "waiting"]);
const measured = new Set(["done", "failed"]);

/** Milliseconds the run still needs; null when nothing has finished yet (no basis for a guess). */
export function estimateRemainingMs({ steps, startedAt, now }: { steps: readonly EtaStep[]; startedAt: string | null; now: number }): number | null {
  if (!startedAt) return null;
  const byPhase = new Map<string, { total: number; count: number }>();
  let finishedTotal = 0;
  let finishedCount = 0;
  let busy = 0;
  for (const s of steps) {
    if (!s.startedAt) continue;
    const start = Date.parse(s.startedAt);
    if (measured.has(s.status) && s.finishedAt) {
      const d = Math.max(0, Date.parse(s.finishedAt) - start);
      const p = byPhase.get(s.phase) ?? { total: 0, count: 0 };
      p.total += d;
      p.count += 1;
      byPhase.set(s.phase, p);
      finishedTotal += d;
      finishedCount += 1;
      busy += d;
    } else if (s.status === "running" || s.status === "waiting") {
      busy += Math.max(0, now - start);
    }
  }
  const left = steps.filter((s) => unfinished.has(s.status));
  if (left.length === 0) return 0;
  if (finishedCount === 0) return null;
  const wall = Math.max(1, now - Date.parse(startedAt));
  const parallelism = Math.max(1, busy / wall);
  const overallAverage = finishedTotal / finishedCount;

  const work = new Map<string, { ms: number; steps: number }>();
  for (const s of left) {
    const p = byPhase.get(s.phase);
    const expected = p ? p.total / p.count : overallAverage;
    const ran = s.startedAt && s.status !== "pending" ? Math.max(0, now - Date.parse(s.startedAt)) : 0;
    const w = work.get(s.phase) ?? { ms: 0, steps: 0 };
    w.ms += Math.max(0, expected - ran);
    w.steps += 1;
    work.set(s.phase, w);
  }
  let eta = 0;
  for (const w of work.values()) eta += w.ms / Math.min(parallelism, w.steps);
  return Math.round(eta);
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
  const where = waiting.host ? ` on ${waiting.host}` : "";
  const clock = Number.isNaN(since) ? "" : `, ${formatClock(now - since)}${Number.isNaN(deadline) ? "" : ` of ${formatClock(deadline - since)}`}`;
  return { text: `waiting for ${waiting.what}${where}${clock}`, overdue: !Number.isNaN(deadline) && now > deadline };
}
