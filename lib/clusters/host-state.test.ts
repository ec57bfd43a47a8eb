import { describe, expect, test } from "vitest";
import { hostState, lastWorkedRun, type HostRunView } from "./host-state";

const run = (type: string, status: string, outcome: HostRunView["outcome"], phase?: string): HostRunView => ({
  id: `run_${type}_${outcome}`,
  type,
  status,
  at: "2026-12-01T12:00:00.000Z",
  outcome,
  failedStep: phase ? { key: `${phase}/worker-2`, phase, title: `${phase} on worker-2`, error: "boom" } : null,
});

describe("a host's state", () => {
  test("comes from the latest run that worked on it; a run only planned does not count", () => {
    const runs = [run("reset", "planned", "not started"), run("check", "failed", "failed", "preflight"), run("bootstrap", "succeeded", "done")];
    expect(lastWorkedRun(runs)?.type).toBe("check");
    expect(hostState(runs, true)).toEqual({ label: "check failed at preflight", tone: "bad" });
  });

  test("joined, reset, waiting for a decision, in a run, never contacted", () => {
    expect(hostState([run("join", "succeeded", "done")], true).label).toBe("joined");
    expect(hostState([run("reset", "succeeded", "done")], true).label).toMatch(/^reset/);
    expect(hostState([run("bootstrap", "needs-decision", "decision", "preflight")], true)).toEqual({ label: "preflight warnings need a decision", tone: "warn" });
    expect(hostState([run("bootstrap", "running", "in progress")], true)).toEqual({ label: "in a bootstrap run", tone: "busy" });
    expect(hostState([], false).label).toBe("not contacted yet");
    expect(hostState([], true).label).toBe("key pinned, nothing run yet");
  });
});
