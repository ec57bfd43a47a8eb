// A host's state from the runs that worked on it: browser-safe rules shared by the host API
// (lib/clusters/hosts.ts) and its page, unit-tested in host-state.test.ts.

/** In a preflight step's error when its warnings stop a bootstrap or join until an admin accepts them. */
export const WARNINGS_NEED_DECISION = "need an admin's decision";

export type HostRunView = {
  id: string;
  type: string;
  status: string;
  at: string;
  /** How the run went on this host: its failed (or decision) step, else done, else what it did last. */
  outcome: "done" | "failed" | "decision" | "skipped" | "cancelled" | "in progress" | "not started";
  failedStep: { key: string; phase: string; title: string; error: string | null } | null;
};

export type HostState = { label: string; tone: "ok" | "bad" | "warn" | "busy" | "none" };

/** The latest run that did something on the host (a planned run has not yet); newest first in `runs`. */
export function lastWorkedRun<T extends Pick<HostRunView, "outcome">>(runs: readonly T[]): T | undefined {
  return runs.find((r) => r.outcome !== "not started");
}

/** The host's state from the latest run that worked on it (newest first in `runs`). */
export function hostState(runs: readonly Pick<HostRunView, "type" | "status" | "outcome" | "failedStep">[], pinned: boolean): HostState {
  const last = lastWorkedRun(runs);
  if (!last) return pinned ? { label: "key pinned, nothing run yet", tone: "none" } : { label: "not contacted yet", tone: "none" };
  if (last.outcome === "in progress") return { label: `in a ${last.type} run`, tone: "busy" };
  if (last.outcome === "failed") return { label: `${last.type} failed at ${last.failedStep?.phase ?? "a step"}`, tone: "bad" };
  if (last.outcome === "decision") return { label: "preflight warnings need a decision", tone: "warn" };
  if (last.outcome === "cancelled") return { label: `${last.type} cancelled`, tone: "warn" };
  if (last.outcome === "done") {
    if (last.type === "reset") return { label: "reset: Bootdeck's files and the kubelet removed", tone: "none" };
    if (last.type === "check") return { label: "checked (facts and preflight)", tone: "ok" };
    return { label: last.type === "join" ? "joined" : "bootstrapped", tone: "ok" };
  }
  return { label: `${last.type}: skipped on this host`, tone: "warn" };
}
