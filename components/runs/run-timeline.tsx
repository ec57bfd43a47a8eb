"use client";
// The Gantt view of a run: one line per host, one bar per phase on a shared time axis. Virtualized like
// the grid, so it stays cheap at 500 hosts; opened on demand.
import { useVirtualizer } from "@tanstack/react-virtual";
import { useMemo, useRef, useState } from "react";
import { formatDuration } from "./eta";
import type { Grid } from "./grid-model";
import { buildTimeline } from "./timeline-model";

const ROW_HEIGHT = 22;
// One colour per phase (by position), so the same phase lines up across hosts.
const PHASE_COLOURS = ["#94a3b8", "#a78bfa", "#60a5fa", "#34d399", "#fbbf24", "#f472b6", "#22d3ee", "#fb923c", "#4ade80", "#818cf8"];

export function RunTimeline({ grid, now }: { grid: Grid; now: number }) {
  const [open, setOpen] = useState(false);
  return (
    <section className="card" data-testid="run-timeline">
      <div className="flex items-center justify-between">
        <h2 className="font-semibold">Timeline</h2>
        <button className="btn" onClick={() => setOpen(!open)} data-testid="toggle-timeline">
          {open ? "Hide" : "Show"} the timeline
        </button>
      </div>
      {open && <TimelineBody grid={grid} now={now} />}
    </section>
  );
}

function TimelineBody({ grid, now }: { grid: Grid; now: number }) {
  const timeline = useMemo(() => buildTimeline(grid, now), [grid, now]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const rows = timeline?.rows ?? [];
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 10 });
  if (!timeline) return <p className="mt-2 text-sm text-slate-500">No step has started yet.</p>;
  const span = timeline.endMs - timeline.startMs;
  return (
    <div className="mt-2 space-y-2 text-xs">
      <div className="flex flex-wrap gap-3">
        {grid.phases.map((p, i) => (
          <span key={p.id} className="flex items-center gap-1" title={p.title}>
            <span className="inline-block h-2 w-4 rounded" style={{ background: PHASE_COLOURS[i % PHASE_COLOURS.length] }} /> {i + 1}. {p.id.replace(/-/g, " ")}
          </span>
        ))}
      </div>
      <div className="flex pl-40 text-slate-500">
        {[0, 0.25, 0.5, 0.75, 1].map((f) => (
          <span key={f} className="flex-1 first:flex-none">
            {formatDuration(span * f)}
          </span>
        ))}
      </div>
      <div ref={scrollRef} className="max-h-[50vh] overflow-auto rounded border border-slate-200">
        <div className="relative" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((v) => {
            const row = rows[v.index]!;
            return (
              <div key={row.id} className="absolute left-0 right-0 flex items-center border-b border-slate-50" style={{ top: v.start, height: ROW_HEIGHT }} data-testid={`timeline-row-${row.id}`}>
                <span className="w-40 shrink-0 truncate px-2 font-mono">{row.id}</span>
                <div className="relative h-3 flex-1">
                  {row.bars.map((b) => (
                    <span
                      key={b.phase}
                      className={`absolute top-0 h-3 rounded-sm ${b.status === "failed" ? "ring-2 ring-red-600" : b.status === "running" || b.status === "waiting" ? "animate-pulse" : ""}`}
                      style={{ left: `${b.left * 100}%`, width: `${b.width * 100}%`, background: PHASE_COLOURS[b.phaseIndex % PHASE_COLOURS.length] }}
                      title={`${row.id} · ${b.phase}: ${b.status}, ${formatDuration(b.ms)}`}
                    />
                  ))}
                </div>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
