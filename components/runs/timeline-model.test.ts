// The timeline places each phase of each host on one time axis, so slow hosts and serial phases show.
import { describe, expect, it } from "vitest";
import type { Grid, GridCell } from "./grid-model";
import { buildTimeline } from "./timeline-model";

const t = (s: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, s)).toISOString();
const cell = (phase: string, from: number | null, to: number | null, status: GridCell["status"] = "done"): GridCell => ({ phase, steps: [], status, startedAt: from === null ? null : t(from), finishedAt: to === null ? null : t(to) });
const grid: Grid = {
  phases: [
    { id: "facts", title: "Facts" },
    { id: "kubelet", title: "Kubelet" },
  ],
  rows: [
    { id: "master-1", host: "master-1", role: "master", address: "", status: "done", cells: [cell("facts", 0, 10), cell("kubelet", 10, 30)] },
    { id: "worker-1", host: "worker-1", role: "worker", address: "", status: "running", cells: [cell("facts", 0, 20), cell("kubelet", 20, null, "running")] },
    { id: "worker-2", host: "worker-2", role: "worker", address: "", status: "pending", cells: [cell("facts", null, null, "pending"), null] },
  ],
};

describe("the run timeline", () => {
  it("puts every started phase on one axis from the first start to the last finish (or now)", () => {
    const now = Date.parse(t(40));
    const tl = buildTimeline(grid, now)!;
    expect(tl.endMs - tl.startMs).toBe(40_000);
    expect(tl.rows[0]!.bars.map((b) => [b.phase, b.left, b.width])).toEqual([
      ["facts", 0, 0.25],
      ["kubelet", 0.25, 0.5],
    ]);
    // Still running: its bar grows to now.
    expect(tl.rows[1]!.bars[1]).toMatchObject({ phase: "kubelet", status: "running", left: 0.5, width: 0.5, ms: 20_000 });
    expect(tl.rows[2]!.bars).toEqual([]);
  });

  it("has nothing to show before any step started", () => {
    expect(buildTimeline({ phases: grid.phases, rows: [grid.rows[2]!] }, Date.now())).toBeNull();
  });

  it("keeps very short phases visible", () => {
    const tl = buildTimeline({ phases: grid.phases, rows: [{ ...grid.rows[0]!, cells: [cell("facts", 0, 0), cell("kubelet", 0, 1000)] }] }, 0)!;
    expect(tl.rows[0]!.bars[0]!.width).toBeGreaterThan(0);
  });
});
