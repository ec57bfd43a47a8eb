import { describe, expect, test } from "vitest";
import type { PlannedStep, RunPlan } from "@/lib/engine/plan";
import { allCollapsed, estimateRowHeight, isStepOpen, phaseRowIndex, planRows, rowSizeKey, stepSummary, toggleAll, toggleStep, type PlanRow } from "./plan-model";

function step(phase: string, host: string | null, extra: Partial<PlannedStep> = {}): PlannedStep {
  return { key: `${phase}/${host ?? "cluster"}`, phase, action: phase, title: `${phase} on ${host ?? "the cluster"}`, host, files: [], commands: [`bootdeck-${phase}`], dependsOn: [], timeoutMs: 60_000, ...extra };
}

const plan: RunPlan = {
  runType: "bootstrap",
  phases: [
    { id: "facts", title: "Gather facts", steps: [step("facts", "master-1"), step("facts", "worker-1")] },
    { id: "join", title: "Join", steps: [] },
    { id: "pivot", title: "Pivot", steps: [step("pivot", null)] },
  ],
};

const keys = (rows: PlanRow[]) => rows.map((r) => r.key);
const openKeys = (rows: PlanRow[]) => rows.filter((r) => r.kind === "step" && r.open).map((r) => r.key);

describe("planRows", () => {
  test("one flat list: each phase's heading, then its steps in plan order; an empty phase gets one 'nothing to do' row", () => {
    const rows = planRows(plan, allCollapsed);
    expect(keys(rows)).toEqual(["phase:facts", "facts/master-1", "facts/worker-1", "phase:join", "empty:join", "phase:pivot", "pivot/cluster"]);
    expect(rows[0]).toMatchObject({ kind: "phase", id: "facts", title: "Gather facts", number: 1, steps: 2 });
    expect(rows[3]).toMatchObject({ kind: "phase", id: "join", number: 2, steps: 0 });
    expect(rows[6]).toMatchObject({ kind: "step", phase: "pivot", open: false });
  });

  test("every step is collapsed at first", () => {
    expect(openKeys(planRows(plan, allCollapsed))).toEqual([]);
  });

  test("a 500-host plan is 3 000+ rows but building them is one linear pass", () => {
    const hosts = Array.from({ length: 500 }, (_, i) => `host-${i}`);
    const big: RunPlan = { runType: "bootstrap", phases: ["facts", "preflight", "packages", "binaries", "kubelet", "join"].map((id) => ({ id, title: id, steps: hosts.map((h) => step(id, h)) })) };
    const rows = planRows(big, toggleAll(allCollapsed));
    expect(rows).toHaveLength(6 + 3000);
    expect(rows.at(-1)).toMatchObject({ key: "join/host-499", open: true });
    expect(phaseRowIndex(rows).get("join")).toBe(5 * 501);
  });
});

describe("expansion", () => {
  test("a click opens one step, a second click closes it", () => {
    const once = toggleStep(allCollapsed, "facts/worker-1");
    expect(openKeys(planRows(plan, once))).toEqual(["facts/worker-1"]);
    expect(openKeys(planRows(plan, toggleStep(once, "facts/worker-1")))).toEqual([]);
  });

  test("Expand all opens every step, also the ones opened one by one; a click then closes one against it", () => {
    const all = toggleAll(toggleStep(allCollapsed, "facts/worker-1"));
    expect(openKeys(planRows(plan, all))).toEqual(["facts/master-1", "facts/worker-1", "pivot/cluster"]);
    const oneClosed = toggleStep(all, "facts/master-1");
    expect(isStepOpen(oneClosed, "facts/master-1")).toBe(false);
    expect(openKeys(planRows(plan, oneClosed))).toEqual(["facts/worker-1", "pivot/cluster"]);
  });

  test("Collapse all closes every step, also the ones closed or opened one by one", () => {
    const all = toggleStep(toggleAll(allCollapsed), "pivot/cluster");
    expect(openKeys(planRows(plan, toggleAll(all)))).toEqual([]);
  });

  test("toggling never changes the expansion it was given", () => {
    const before = toggleStep(allCollapsed, "facts/master-1");
    toggleStep(before, "facts/worker-1");
    toggleAll(before);
    expect([...before.toggled]).toEqual(["facts/master-1"]);
    expect(allCollapsed.toggled.size).toBe(0);
  });
});

describe("phaseRowIndex", () => {
  test("points at each phase's heading row", () => {
    const rows = planRows(plan, allCollapsed);
    const index = phaseRowIndex(rows);
    expect([...index]).toEqual([
      ["facts", 0],
      ["join", 3],
      ["pivot", 5],
    ]);
    expect(rows[index.get("pivot")!]).toMatchObject({ kind: "phase", id: "pivot" });
  });
});

describe("row sizes", () => {
  test("an open step has its own size key, so its measured height never stands in for the closed row's", () => {
    const [closed] = planRows(plan, allCollapsed).filter((r) => r.key === "facts/master-1");
    const [open] = planRows(plan, toggleAll(allCollapsed)).filter((r) => r.key === "facts/master-1");
    expect(rowSizeKey(closed!)).toBe("facts/master-1");
    expect(rowSizeKey(open!)).toBe("facts/master-1#open");
    expect(rowSizeKey(planRows(plan, toggleAll(allCollapsed))[0]!)).toBe("phase:facts");
  });

  test("an open step is estimated taller than a closed one, and grows with its files and wrapped command lines", () => {
    const row = (s: PlannedStep, open: boolean): PlanRow => ({ kind: "step", key: s.key, phase: s.phase, step: s, open });
    const file = { path: "/etc/kubernetes/kubelet.conf", mode: 0o600, sha256: "0".repeat(64), size: 10 };
    const small = step("kubelet", "w-1");
    const withFiles = step("kubelet", "w-1", { files: [file, { ...file, path: "/etc/x" }] });
    const longCommand = step("kubelet", "w-1", { commands: ["x".repeat(1000)] });
    const script = step("kubelet", "w-1", { commands: [Array.from({ length: 40 }, () => "echo").join("\n")] });
    expect(estimateRowHeight(row(small, true))).toBeGreaterThan(estimateRowHeight(row(small, false)));
    expect(estimateRowHeight(row(withFiles, true))).toBeGreaterThan(estimateRowHeight(row(small, true)));
    expect(estimateRowHeight(row(longCommand, true))).toBeGreaterThan(estimateRowHeight(row(small, true)));
    expect(estimateRowHeight(row(script, true))).toBeGreaterThan(estimateRowHeight(row(longCommand, true)));
    expect(estimateRowHeight(row(longCommand, false))).toBe(estimateRowHeight(row(small, false)));
  });
});

describe("stepSummary", () => {
  test("counts files and commands, singular and plural", () => {
    const file = { path: "/a", mode: 0o644, sha256: "0".repeat(64), size: 1 };
    expect(stepSummary({ files: [file, file], commands: ["a", "b"] })).toBe("2 files · 2 commands");
    expect(stepSummary({ files: [file], commands: ["a"] })).toBe("1 file · 1 command");
    expect(stepSummary({ files: [], commands: [] })).toBe("no commands");
    expect(stepSummary({ files: [file], commands: [] })).toBe("1 file · no commands");
    const call = { id: "create ConfigMap kube-system/a", verb: "create" as const, object: { apiVersion: "v1", kind: "ConfigMap", name: "a", namespace: "kube-system" }, when: "always" as const };
    expect(stepSummary({ files: [], commands: ["a"], api: [call, call] })).toBe("1 command · 2 API writes");
  });
});
