import { describe, expect, test } from "vitest";
import { estimateRemaining, formatClock, formatDuration, waitingText, type EtaStep } from "./eta";

const t0 = Date.parse("2026-11-30T12:00:00Z");
const at = (s: number) => new Date(t0 + s * 1000).toISOString();
const step = (phase: string, status: string, start?: number, finish?: number): EtaStep => ({
  phase,
  status,
  startedAt: start === undefined ? null : at(start),
  finishedAt: finish === undefined ? null : at(finish),
});

const phases = ["facts", "preflight", "packages", "control-plane", "pivot"].map((id) => ({ id, title: id }));
const estimate = (steps: EtaStep[], now: number, history?: Record<string, number>) => estimateRemaining({ steps, phases, startedAt: at(0), now: t0 + now * 1000, history });

describe("estimateRemaining", () => {
  test("has no estimate before any step has finished, and says why", () => {
    expect(estimate([step("facts", "running", 0), step("facts", "pending")], 5)).toEqual({ ms: null, why: 'no estimate yet: "facts" has not finished a step and no earlier run shows how long it takes' });
  });

  test("has no estimate for a run that has not started", () => {
    expect(estimateRemaining({ steps: [step("facts", "pending")], phases, startedAt: null, now: t0 })).toEqual({ ms: null, why: "not started" });
  });

  test("is zero when nothing is left to run", () => {
    expect(estimate([step("facts", "done", 0, 10), step("packages", "skipped")], 12)).toEqual({ ms: 0, basis: "steps" });
  });

  test("none after a failure, nor while warnings wait for a decision", () => {
    const steps = [step("facts", "done", 0, 10), { ...step("preflight", "failed", 10, 12), error: "preflight failed on w: swap is on" }, step("packages", "pending")];
    expect(estimate(steps, 12)).toEqual({ ms: null, why: "no estimate after a failure" });
    const decision = [step("facts", "done", 0, 10), { ...step("preflight", "failed", 10, 12), error: "preflight on w: warnings need an admin's decision: cgroup v1" }, step("packages", "running", 12)];
    expect(estimate(decision, 13).ms).toBeNull();
  });

  test("one host, steps in a row: the phase's average duration per pending step", () => {
    // Two facts steps took 10 s each, one after the other; two more facts steps are pending → 20 s.
    const steps = [step("facts", "done", 0, 10), step("facts", "done", 10, 20), step("facts", "pending"), step("facts", "pending")];
    expect(estimate(steps, 20)).toEqual({ ms: 20_000, basis: "steps" });
  });

  test("a running step counts only the time it still needs", () => {
    expect(estimate([step("facts", "done", 0, 10), step("facts", "running", 10)], 14).ms).toBe(6_000);
  });

  test("hosts side by side: the observed parallelism divides a phase's remaining work", () => {
    // Four hosts ran facts at once (10 s each): parallelism 4. Two of four preflight steps took 4 s;
    // two are pending: 8 s of work over min(4, 2) = 2 → 4 s.
    const facts = ["a", "b", "c", "d"].map(() => step("facts", "done", 0, 10));
    const preflight = [step("preflight", "done", 10, 14), step("preflight", "done", 10, 14), step("preflight", "pending"), step("preflight", "pending")];
    expect(estimate([...facts, ...preflight], 14).ms).toBe(4_000);
  });

  test("a phase nothing has measured yet does not borrow another phase's average: it needs history", () => {
    // The old estimate said "about 10 s left" here; the pivot waits for pods and takes far longer.
    const facts = ["a", "b", "c", "d"].map(() => step("facts", "done", 0, 10));
    expect(estimate([...facts, step("pivot", "pending")], 10).ms).toBeNull();
    expect(estimate([...facts, step("pivot", "pending")], 10, { pivot: 21_000 })).toEqual({ ms: 21_000, basis: "history" });
  });

  test("waits count: a phase under way with no finished step takes its earlier time less what it has run", () => {
    const steps = [step("facts", "done", 0, 2), step("control-plane", "waiting", 2), step("pivot", "pending")];
    expect(estimate(steps, 12, { "control-plane": 30_000, pivot: 20_000 })).toEqual({ ms: 40_000, basis: "history" });
  });

  test("a phase running longer than it did in the earlier run: no estimate rather than zero", () => {
    const steps = [step("facts", "done", 0, 2), step("control-plane", "waiting", 2)];
    expect(estimate(steps, 60, { "control-plane": 30_000 })).toEqual({ ms: null, why: 'no estimate: "control-plane" is taking longer than in the last successful run' });
  });

  test("uses each phase's own average where it has one, history only for the phases after", () => {
    // facts took 2 s, packages 30 s on one host; the other host's packages step is pending; pivot from history.
    const steps = [step("facts", "done", 0, 2), step("packages", "done", 2, 32), step("packages", "pending"), step("pivot", "pending")];
    expect(estimate(steps, 32, { packages: 1_000, pivot: 5_000 })).toEqual({ ms: 35_000, basis: "history" });
  });

  test("never goes negative when a step runs longer than its phase's average", () => {
    expect(estimate([step("facts", "done", 0, 10), step("facts", "waiting", 10)], 60).ms).toBe(0);
  });
});

describe("formatting", () => {
  test("durations read as seconds, minutes or hours", () => {
    expect(formatDuration(42_400)).toBe("42 s");
    expect(formatDuration(185_000)).toBe("3 min 05 s");
    expect(formatDuration(3_720_000)).toBe("1 h 02 min");
    expect(formatDuration(-5)).toBe("0 s");
  });

  test("a wait's clock is mm:ss, with hours when needed", () => {
    expect(formatClock(42_900)).toBe("00:42");
    expect(formatClock(300_000)).toBe("05:00");
    expect(formatClock(3_723_000)).toBe("1:02:03");
  });
});

describe("waitingText", () => {
  const wait = { what: "kube-apiserver", host: "master-1", since: at(0), deadline: at(300) };

  test("says what, where, how long so far and out of how long", () => {
    expect(waitingText(wait, t0 + 42_500)).toEqual({ text: "waiting for kube-apiserver on master-1, 00:42 of 05:00", overdue: false });
  });

  test("a cluster-wide wait has no host; a wait without a deadline no total", () => {
    expect(waitingText({ ...wait, host: null, deadline: "" }, t0 + 5_000).text).toBe("waiting for kube-apiserver, 00:05");
  });

  test("names the host once when what it waits for already does", () => {
    expect(waitingText({ ...wait, what: "the control plane on master-2 Running and Ready", host: "master-2" }, t0 + 43_000).text).toBe("waiting for the control plane on master-2 Running and Ready, 00:43 of 05:00");
    // master-1 is not master-10.
    expect(waitingText({ ...wait, what: "etcd on master-10", host: "master-1" }, t0).text).toBe("waiting for etcd on master-10 on master-1, 00:00 of 05:00");
  });

  test("is overdue past the deadline", () => {
    expect(waitingText(wait, t0 + 301_000)).toEqual({ text: "waiting for kube-apiserver on master-1, 05:01 of 05:00", overdue: true });
  });
});
