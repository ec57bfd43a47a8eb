import { describe, expect, test } from "vitest";
import type { StepView } from "@/lib/engine/queries";
import { WARNINGS_NEED_DECISION } from "@/lib/clusters/host-state";
import { allRows, buildGrid, combineStatus, countByStatus, filterRows, findCell, groupWarnings, progressOf, rolesOf, stepState } from "./grid-model";

const phases = [
  { id: "facts", title: "Facts" },
  { id: "control-plane", title: "Control plane" },
  { id: "pivot", title: "Pivot" },
];
const hosts = [
  { name: "master-1", role: "master", address: "10.0.0.1" },
  { name: "worker-1", role: "worker", address: "10.0.0.11" },
  { name: "worker-2", role: "worker", address: "10.0.0.12" },
];

let n = 0;
function step(phase: string, host: string | null, status: string, times: Partial<Pick<StepView, "startedAt" | "finishedAt">> = {}, action = "run"): StepView {
  n += 1;
  return {
    id: `step_${n}`,
    key: `${phase}/${host ?? "cluster"}/${action}`,
    phase,
    title: `${phase} ${action}`,
    host,
    status,
    attempts: status === "pending" ? 0 : 1,
    exitCode: null,
    error: null,
    hint: null,
    output: null,
    startedAt: times.startedAt ?? null,
    finishedAt: times.finishedAt ?? null,
    waiting: null,
  };
}

function run(steps: StepView[]): Parameters<typeof buildGrid>[0] {
  return { plan: { runType: "bootstrap", phases: phases.map((p) => ({ ...p, steps: [] })) }, steps, hosts };
}

describe("combineStatus", () => {
  test("a failure anywhere wins, then running, then waiting", () => {
    expect(combineStatus(["done", "failed", "running"])).toBe("failed");
    expect(combineStatus(["done", "decision", "failed"])).toBe("failed");
    expect(combineStatus(["done", "decision", "running"])).toBe("decision");
    expect(combineStatus(["done", "waiting", "running"])).toBe("running");
    expect(combineStatus(["done", "waiting", "pending"])).toBe("waiting");
  });

  test("finished and pending steps together are work in progress", () => {
    expect(combineStatus(["done", "pending"])).toBe("running");
    expect(combineStatus(["pending", "pending"])).toBe("pending");
  });

  test("all skipped is skipped; done and skipped is done", () => {
    expect(combineStatus(["skipped", "skipped"])).toBe("skipped");
    expect(combineStatus(["done", "skipped"])).toBe("done");
    expect(combineStatus(["done", "cancelled"])).toBe("cancelled");
  });
});

describe("buildGrid", () => {
  test("one row per host with role and address, one cell per phase, the cluster row on top", () => {
    const grid = buildGrid(
      run([
        step("facts", "master-1", "done"),
        step("facts", "worker-1", "done"),
        step("facts", "worker-2", "done"),
        step("control-plane", "master-1", "running"),
        step("pivot", null, "pending"),
      ]),
    );
    expect(grid.phases.map((p) => p.id)).toEqual(["facts", "control-plane", "pivot"]);
    expect(grid.rows.map((r) => [r.id, r.role, r.address])).toEqual([
      ["cluster", "cluster", ""],
      ["master-1", "master", "10.0.0.1"],
      ["worker-1", "worker", "10.0.0.11"],
      ["worker-2", "worker", "10.0.0.12"],
    ]);
    const [cluster, master, worker] = grid.rows;
    expect(cluster!.cells.map((c) => c?.status ?? null)).toEqual([null, null, "pending"]);
    expect(master!.cells.map((c) => c?.status ?? null)).toEqual(["done", "running", null]);
    expect(worker!.cells.map((c) => c?.status ?? null)).toEqual(["done", null, null]);
    expect(master!.status).toBe("running");
    expect(worker!.status).toBe("done");
  });

  test("hosts with a failure come first, after the cluster row, the rest keep definition order", () => {
    const grid = buildGrid(
      run([
        step("pivot", null, "done"),
        step("facts", "master-1", "done"),
        step("facts", "worker-1", "done"),
        step("facts", "worker-2", "failed"),
        step("control-plane", "worker-2", "skipped"),
      ]),
    );
    expect(grid.rows.map((r) => r.id)).toEqual(["cluster", "worker-2", "master-1", "worker-1"]);
    expect(grid.rows[1]!.status).toBe("failed");
  });

  test("hosts with no step in the run (a join of one host) get no row", () => {
    const grid = buildGrid(run([step("facts", "worker-2", "pending")]));
    expect(grid.rows.map((r) => r.id)).toEqual(["worker-2"]);
  });

  test("a host that left the definition still shows, last, without role or address", () => {
    const grid = buildGrid(run([step("facts", "old-node", "done"), step("facts", "master-1", "done")]));
    expect(grid.rows.map((r) => [r.id, r.role])).toEqual([
      ["master-1", "master"],
      ["old-node", ""],
    ]);
  });

  test("several steps of a host in one phase share a cell: combined status, first start, last finish", () => {
    const a = step("facts", "master-1", "done", { startedAt: "2026-11-30T12:00:00.000Z", finishedAt: "2026-11-30T12:00:05.000Z" }, "gather");
    const b = step("facts", "master-1", "done", { startedAt: "2026-11-30T12:00:05.000Z", finishedAt: "2026-11-30T12:00:09.000Z" }, "pin");
    const cell = buildGrid(run([a, b])).rows[0]!.cells[0]!;
    expect(cell.steps.map((s) => s.key)).toEqual([a.key, b.key]);
    expect(cell.status).toBe("done");
    expect([cell.startedAt, cell.finishedAt]).toEqual(["2026-11-30T12:00:00.000Z", "2026-11-30T12:00:09.000Z"]);
  });

  test("a cell still running has no finish time", () => {
    const a = step("facts", "master-1", "done", { startedAt: "2026-11-30T12:00:00.000Z", finishedAt: "2026-11-30T12:00:05.000Z" }, "gather");
    const b = step("facts", "master-1", "running", { startedAt: "2026-11-30T12:00:05.000Z" }, "pin");
    const cell = buildGrid(run([a, b])).rows[0]!.cells[0]!;
    expect(cell.status).toBe("running");
    expect(cell.finishedAt).toBeNull();
  });

  // How fast it builds is bench:run-grid's to measure (a timed test fails on a busy machine).
  test("500 hosts × 10 phases: a row per host, the failed one first, a cell per phase", () => {
    const many = Array.from({ length: 500 }, (_, i) => ({ name: `node-${i}`, role: i < 3 ? "master" : "worker", address: `10.1.${Math.floor(i / 250)}.${i % 250}` }));
    const tenPhases = Array.from({ length: 10 }, (_, i) => ({ id: `p${i}`, title: `Phase ${i}`, steps: [] }));
    const steps = many.flatMap((h, i) => tenPhases.map((p) => step(p.id, h.name, i === 499 && p.id === "p3" ? "failed" : "done")));
    const grid = buildGrid({ plan: { runType: "bootstrap", phases: tenPhases }, steps, hosts: many });
    expect(grid.rows).toHaveLength(500);
    expect(grid.rows[0]!.id).toBe("node-499");
    expect(grid.rows[0]!.cells).toHaveLength(10);
  });
});

describe("filters", () => {
  const grid = buildGrid(
    run([
      step("pivot", null, "pending"),
      step("facts", "master-1", "done"),
      step("facts", "worker-1", "failed"),
      step("facts", "worker-2", "running"),
    ]),
  );

  test("all rows by default", () => {
    expect(filterRows(grid.rows, allRows)).toHaveLength(4);
  });

  test("by role", () => {
    expect(filterRows(grid.rows, { role: "worker", state: "all" }).map((r) => r.id)).toEqual(["worker-1", "worker-2"]);
    expect(filterRows(grid.rows, { role: "cluster", state: "all" }).map((r) => r.id)).toEqual(["cluster"]);
  });

  test("by state, and both at once", () => {
    expect(filterRows(grid.rows, { role: "all", state: "failed" }).map((r) => r.id)).toEqual(["worker-1"]);
    expect(filterRows(grid.rows, { role: "master", state: "failed" })).toEqual([]);
    expect(filterRows(grid.rows, { role: "worker", state: "running" }).map((r) => r.id)).toEqual(["worker-2"]);
  });

  test("roles and counts for the filter menus", () => {
    expect(rolesOf(grid.rows)).toEqual(["cluster", "worker", "master"]);
    expect(countByStatus(grid.rows)).toEqual({ pending: 1, failed: 1, done: 1, running: 1 });
  });
});

describe("progress and lookup", () => {
  test("finished counts the steps that ran to an end; those that never ran are counted apart", () => {
    const s = (status: string, startedAt: string | null = "2026-12-06T10:00:00Z") => ({ status, error: null, startedAt });
    expect(progressOf([s("done"), s("failed"), s("cancelled"), s("running"), s("waiting"), s("pending", null)])).toEqual({ finished: 3, failed: 1, decisions: 0, notRun: 0, total: 6 });
    // Skipped steps never ran; a run cancelled before it started ran none of its steps.
    expect(progressOf([s("done"), s("skipped", null), s("cancelled", null), s("cancelled", null)])).toEqual({ finished: 1, failed: 0, decisions: 0, notRun: 3, total: 4 });
  });

  test("the warnings waiting for a decision, each once with the hosts that have it", () => {
    const w = (host: string, listed: string) => ({ host, error: `preflight on ${host}: warnings ${WARNINGS_NEED_DECISION}: ${listed}` });
    expect(groupWarnings([w("master-1", "cgroup v1 (allowed)"), w("worker-1", "cgroup v1 (allowed); swap is on"), { host: "worker-2", error: "exit code 1" }])).toEqual([
      { message: "cgroup v1 (allowed)", hosts: ["master-1", "worker-1"] },
      { message: "swap is on", hosts: ["worker-1"] },
    ]);
  });

  test("a step stopped by warnings waiting for a decision is finished but not a failure; the steps the stopped run never reached are not run", () => {
    const s = (status: string, error: string | null = null) => ({ status, error, startedAt: status === "skipped" ? null : "2026-12-06T10:00:00Z" });
    const decision = s("failed", `preflight on worker-1: warnings ${WARNINGS_NEED_DECISION}: cgroup v1`);
    expect(progressOf([decision, s("failed", "preflight failed on worker-2: swap is on"), s("skipped")])).toEqual({ finished: 2, failed: 1, decisions: 1, notRun: 1, total: 3 });
    // Six preflight steps stopped for a decision, the rest of a 50-step bootstrap never reached: not "50/50".
    const stopped = [...Array.from({ length: 6 }, () => decision), s("done"), ...Array.from({ length: 43 }, () => s("skipped", "not run: the run stopped before it"))];
    expect(progressOf(stopped)).toEqual({ finished: 7, failed: 0, decisions: 6, notRun: 43, total: 50 });
    expect(progressOf([decision, s("done"), s("skipped", "skipped: an earlier step failed on worker-1"), s("skipped", "not run: the run ended before it")])).toEqual({ finished: 2, failed: 0, decisions: 1, notRun: 2, total: 4 });
    expect(stepState(decision)).toBe("decision");
    expect(stepState(s("failed", "exit code 1"))).toBe("failed");
  });

  test("findCell finds a host's cell by phase, and nothing where it has none", () => {
    const grid = buildGrid(run([step("facts", "master-1", "done"), step("pivot", null, "pending")]));
    expect(findCell(grid, "master-1", "facts")?.cell.steps[0]?.key).toBe("facts/master-1/run");
    expect(findCell(grid, "master-1", "pivot")).toBeNull();
    expect(findCell(grid, "nobody", "facts")).toBeNull();
  });
});
