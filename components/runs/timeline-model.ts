// The run's timeline (Gantt) as plain data: for every row of the grid, one bar per phase from its
// first step's start to its last step's finish (now while it runs), as fractions of the run's span, so
// slow hosts and serial phases stand out. No React here.
import type { CellStatus, Grid } from "./grid-model";

export type TimelineBar = { phase: string; phaseIndex: number; status: CellStatus; left: number; width: number; ms: number };
export type TimelineRow = { id: string; host: string | null; bars: TimelineBar[] };
export type Timeline = { startMs: number; endMs: number; rows: TimelineRow[] };

/** Bars shorter than this fraction of the span are widened to stay visible. */
const MIN_WIDTH = 0.004;

export function buildTimeline(grid: Grid, now: number): Timeline | null {
  let start = Infinity;
  let end = -Infinity;
  for (const row of grid.rows)
    for (const cell of row.cells) {
      if (!cell?.startedAt) continue;
      start = Math.min(start, Date.parse(cell.startedAt));
      end = Math.max(end, cell.finishedAt ? Date.parse(cell.finishedAt) : now);
    }
  if (!Number.isFinite(start)) return null;
  const span = Math.max(end - start, 1);
  const rows = grid.rows.map((row) => ({
    id: row.id,
    host: row.host,
    bars: row.cells.flatMap((cell, phaseIndex) => {
      if (!cell?.startedAt) return [];
      const from = Date.parse(cell.startedAt);
      const to = cell.finishedAt ? Date.parse(cell.finishedAt) : now;
      return [{ phase: cell.phase, phaseIndex, status: cell.status, left: (from - start) / span, width: Math.max((to - from) / span, MIN_WIDTH), ms: to - from }];
    }),
  }));
  return { startMs: start, endMs: end, rows };
}
