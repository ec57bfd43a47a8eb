"use client";
// The host × phase grid of a started run. Rows are virtualized: only the rows in view (plus a few) are
// in the DOM, so a 500-host bootstrap scrolls and updates like a 3-host one. The rules (which rows,
// in which order, what a filter keeps) live in grid-model.ts.
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { formatDuration } from "./eta";
import { countByStatus, filterRows, rolesOf, type Grid, type GridCell, type GridFilter, type GridRow } from "./grid-model";
import { statusIcon, statusLabel, statusStyle } from "./run-status";

const ROW_HEIGHT = 36;
const HEADER_HEIGHT = 40;
const HOST_COLUMN = "14rem";
const states = ["failed", "decision", "running", "waiting", "pending", "done", "skipped", "cancelled"] as const;

export type CellRef = { row: string; phase: string };

/** Row and column of a cell in the filtered grid, for keyboard focus. */
type Pos = { row: number; col: number };

/**
 * Where an arrow key (or Home, End, PageUp, PageDown) moves focus from `at`: to the next cell that has a
 * step, skipping the empty ones; up and down go to the nearest cell with a step in the row reached.
 * Null when the key does not move it. Exported for tests.
 */
export function nextCellPosition(rows: readonly Pick<GridRow, "cells">[], at: Pos, key: string, page = 10): Pos | null {
  const has = (r: number, c: number) => !!rows[r]?.cells[c];
  const nearestIn = (r: number, c: number): number | null => {
    const width = rows[r]?.cells.length ?? 0;
    for (let d = 0; d < width; d++) {
      if (has(r, c - d)) return c - d;
      if (has(r, c + d)) return c + d;
    }
    return null;
  };
  // The first row from `from` towards `to` (inclusive) with a step near the column.
  const scan = (from: number, to: number): Pos | null => {
    const step = from <= to ? 1 : -1;
    for (let r = from; step > 0 ? r <= to : r >= to; r += step) {
      const c = nearestIn(r, at.col);
      if (c !== null) return { row: r, col: c };
    }
    return null;
  };
  const last = rows.length - 1;
  switch (key) {
    case "ArrowRight":
      for (let c = at.col + 1; c < (rows[at.row]?.cells.length ?? 0); c++) if (has(at.row, c)) return { row: at.row, col: c };
      return null;
    case "ArrowLeft":
      for (let c = at.col - 1; c >= 0; c--) if (has(at.row, c)) return { row: at.row, col: c };
      return null;
    case "ArrowDown":
      return at.row < last ? scan(at.row + 1, last) : null;
    case "ArrowUp":
      return at.row > 0 ? scan(at.row - 1, 0) : null;
    case "PageDown":
      return at.row < last ? (scan(Math.min(last, at.row + page), at.row + 1) ?? scan(Math.min(last, at.row + page), last)) : null;
    case "PageUp":
      return at.row > 0 ? (scan(Math.max(0, at.row - page), at.row - 1) ?? scan(Math.max(0, at.row - page), 0)) : null;
    case "Home": {
      const c = rows[at.row]?.cells.findIndex(Boolean) ?? -1;
      return c >= 0 ? { row: at.row, col: c } : null;
    }
    case "End": {
      const cells = rows[at.row]?.cells ?? [];
      for (let c = cells.length - 1; c >= 0; c--) if (cells[c]) return { row: at.row, col: c };
      return null;
    }
    default:
      return null;
  }
}

export function cellDuration(cell: Pick<GridCell, "startedAt" | "finishedAt">, now: number): string {
  if (!cell.startedAt) return "";
  return formatDuration((cell.finishedAt ? Date.parse(cell.finishedAt) : now) - Date.parse(cell.startedAt));
}

export function HostGrid({
  grid,
  filter,
  onFilter,
  selected,
  onSelect,
  now,
}: {
  grid: Grid;
  filter: GridFilter;
  onFilter: (f: GridFilter) => void;
  selected: CellRef | null;
  onSelect: (c: CellRef) => void;
  now: number;
}) {
  const rows = useMemo(() => filterRows(grid.rows, filter), [grid.rows, filter]);
  const roles = useMemo(() => rolesOf(grid.rows), [grid.rows]);
  const counts = useMemo(() => countByStatus(grid.rows), [grid.rows]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    scrollMargin: HEADER_HEIGHT,
    getItemKey: (i) => rows[i]?.id ?? i,
    useFlushSync: false,
  });
  // Keyboard: one cell is in the tab order (the focused one, else the selected, else the first); arrows
  // move focus between cells, scrolling the virtualized rows; Enter or Space opens the cell.
  const [focus, setFocus] = useState<Pos | null>(null);
  const fallback = useMemo((): Pos => {
    if (selected) {
      const r = rows.findIndex((x) => x.id === selected.row);
      const c = grid.phases.findIndex((p) => p.id === selected.phase);
      if (r >= 0 && c >= 0 && rows[r]?.cells[c]) return { row: r, col: c };
    }
    const r = rows.findIndex((x) => x.cells.some(Boolean));
    return { row: Math.max(0, r), col: Math.max(0, rows[r]?.cells.findIndex(Boolean) ?? 0) };
  }, [rows, selected, grid.phases]);
  const active = focus && rows[focus.row]?.cells[focus.col] ? focus : fallback;
  const wantFocus = useRef(false);
  const onKeyDown = useCallback(
    (e: KeyboardEvent<HTMLDivElement>) => {
      if (!(e.target instanceof HTMLElement) || !e.target.dataset.cell) return;
      const next = nextCellPosition(rows, active, e.key, Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 400) / ROW_HEIGHT) - 1));
      if (!next) return;
      e.preventDefault();
      wantFocus.current = true;
      setFocus(next);
      virtualizer.scrollToIndex(next.row, { align: "auto" });
    },
    [rows, active, virtualizer],
  );
  useEffect(() => {
    if (!wantFocus.current) return;
    const row = rows[active.row];
    const phase = grid.phases[active.col];
    if (!row || !phase) return;
    // The row may only be in the DOM after the virtualizer's next render: try for a few frames.
    let tries = 0;
    let raf = 0;
    const attempt = () => {
      const el = scrollRef.current?.querySelector<HTMLElement>(`[data-testid="${CSS.escape(`cell-${row.id}-${phase.id}`)}"]`);
      if (el) {
        wantFocus.current = false;
        el.focus({ preventScroll: false });
      } else if (tries++ < 10) raf = requestAnimationFrame(attempt);
    };
    attempt();
    return () => cancelAnimationFrame(raf);
  }, [active, rows, grid.phases]);

  // A bootstrap's 12 phases fit a 1400 px window without scrolling sideways.
  const columns = `${HOST_COLUMN} repeat(${grid.phases.length}, minmax(5rem, 1fr))`;
  const minWidth = `calc(${HOST_COLUMN} + ${grid.phases.length} * 5rem)`;
  const hostCount = grid.rows.filter((r) => r.host !== null).length;

  return (
    <section className="card space-y-2" data-testid="run-grid">
      <div className="flex flex-wrap items-center gap-3 text-sm">
        <h2 className="font-semibold">Hosts</h2>
        <label className="flex items-center gap-1">
          Role
          <select className="input w-auto py-0.5" data-testid="grid-filter-role" value={filter.role} onChange={(e) => onFilter({ ...filter, role: e.target.value })}>
            <option value="all">all</option>
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1">
          State
          <select className="input w-auto py-0.5" data-testid="grid-filter-state" value={filter.state} onChange={(e) => onFilter({ ...filter, state: e.target.value })}>
            <option value="all">all</option>
            {states.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)} ({counts[s] ?? 0})
              </option>
            ))}
          </select>
        </label>
        <span className="text-slate-500" data-testid="grid-count">
          {rows.length === grid.rows.length ? `${hostCount} hosts` : `showing ${rows.length} of ${grid.rows.length} rows`}
        </span>
      </div>
      <p className="sr-only" id="grid-keys">
        Arrow keys move between cells, Home and End to the row&apos;s first and last, Page Up and Page Down by a screen; Enter opens a cell.
      </p>
      <div
        ref={scrollRef}
        className="max-h-[70vh] overflow-auto rounded border border-slate-200"
        data-testid="grid-scroll"
        role="grid"
        aria-label="Hosts by phase"
        aria-describedby="grid-keys"
        aria-rowcount={rows.length + 1}
        aria-colcount={grid.phases.length + 1}
        onKeyDown={onKeyDown}
      >
        <div style={{ minWidth }}>
          <div className="sticky top-0 z-10 grid border-b border-slate-200 bg-slate-50 text-xs font-medium text-slate-600" style={{ gridTemplateColumns: columns, height: HEADER_HEIGHT }} role="row">
            <div className="sticky left-0 flex items-center bg-slate-50 px-2" role="columnheader">
              Host
            </div>
            {grid.phases.map((p, i) => (
              // The phase's short id fits the fixed-height header on two lines ("8. control / plane"); its
              // full title is the tooltip.
              <div key={p.id} className="flex items-center justify-center overflow-hidden px-1 text-center leading-tight" title={p.title} aria-label={`${i + 1}. ${p.title}`} role="columnheader" data-testid={`grid-phase-${p.id}`}>
                <span className="line-clamp-2 break-words">
                  {i + 1}. {p.id.replace(/-/g, " ")}
                </span>
              </div>
            ))}
          </div>
          <div className="relative" style={{ height: virtualizer.getTotalSize() }} role="rowgroup">
            {rows.length === 0 && <p className="p-2 text-sm text-slate-500">No host matches the filter.</p>}
            {virtualizer.getVirtualItems().map((v) => {
              const row = rows[v.index];
              if (!row) return null;
              return (
                <div key={v.key} className="absolute left-0 top-0 w-full" style={{ height: v.size, transform: `translateY(${v.start - HEADER_HEIGHT}px)` }}>
                  <GridRowView
                    row={row}
                    rowIndex={v.index + 2}
                    columns={columns}
                    phases={grid.phases}
                    selected={selected}
                    onSelect={(c) => {
                      setFocus({ row: v.index, col: grid.phases.findIndex((p) => p.id === c.phase) });
                      onSelect(c);
                    }}
                    now={now}
                    tabbableCol={active.row === v.index ? active.col : -1}
                  />
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </section>
  );
}

function GridRowView({
  row,
  rowIndex,
  columns,
  phases,
  selected,
  onSelect,
  now,
  tabbableCol,
}: {
  row: GridRow;
  /** The column whose cell is in the tab order (-1: none in this row). */
  tabbableCol: number;
  /** 1-based, counting the header row (aria-rowindex). */
  rowIndex: number;
  columns: string;
  phases: Grid["phases"];
  selected: CellRef | null;
  onSelect: (c: CellRef) => void;
  now: number;
}) {
  return (
    <div className="grid h-full border-b border-slate-100 text-sm" style={{ gridTemplateColumns: columns }} role="row" aria-rowindex={rowIndex} data-testid={`grid-row-${row.id}`} data-status={row.status}>
      <div className="sticky left-0 z-[1] flex min-w-0 items-center gap-2 bg-white px-2" role="rowheader">
        <span className="truncate font-mono text-xs font-medium" title={row.id}>
          {row.host ?? "cluster"}
        </span>
        {row.host !== null && <span className="shrink-0 text-xs text-slate-500">{row.role}</span>}
        {row.address && <span className="truncate text-xs text-slate-600">{row.address}</span>}
      </div>
      {row.cells.map((cell, i) => {
        const phase = phases[i]!.id;
        if (!cell) return <div key={phase} role="gridcell" />;
        const isSelected = selected?.row === row.id && selected.phase === phase;
        return (
          <div key={phase} role="gridcell" className="flex p-0.5">
            <button
              // Scrolled into view (keyboard focus, find), a cell stops below the sticky header, not under it.
              style={{ scrollMarginTop: HEADER_HEIGHT }}
              className={`flex flex-1 items-center justify-center gap-1 rounded text-xs ${statusStyle[cell.status] ?? ""} ${isSelected ? "ring-2 ring-indigo-500" : "hover:ring-1 hover:ring-slate-400"}`}
              data-testid={`cell-${row.id}-${phase}`}
              data-status={cell.status}
              data-cell="1"
              tabIndex={i === tabbableCol ? 0 : -1}
              title={`${row.host ?? "cluster"} · ${phases[i]!.title}: ${statusLabel(cell.status)}`}
              aria-label={`${row.host ?? "cluster"} ${phases[i]!.title}: ${statusLabel(cell.status)}`}
              aria-pressed={isSelected}
              onClick={() => onSelect({ row: row.id, phase })}
            >
              <span aria-hidden>{statusIcon[cell.status]}</span>
              <span className="tabular-nums">{cellDuration(cell, now)}</span>
            </button>
          </div>
        );
      })}
    </div>
  );
}
