import { describe, expect, test } from "vitest";
import { estimateRemainingMs, formatClock, formatDuration, waitingText, type EtaStep } from "./eta";

const t0 = Date.parse("2026-11-30T12:00:00Z");
const at = (s: number) => new Date(t0 + s * 1000).toISOString();
const step = (phase: string, status: string, start?: number, finish?: number): EtaStep => ({
  phase,
  status,
  startedAt: start === undefined ? null : at(start),
  finishedAt: finish === undefined ? null : at(finish),
});

describe("estimateRemainingMs", () => {
  test("has no estimate before any step has finished", () => {
    expect(estimateRemainingMs({ steps: [step("facts", "running", 0), step("facts", "pending")], startedAt: at(0), now: t0 + 5000 })).toBeNull();
  });

  test("has no estimate for a run that has not started", () => {
    expect(estimateRemainingMs({ steps: [step("facts", "pending")], startedAt: null, now: t0 })).toBeNull();
  });

  test("is zero when nothing is left to run, failed or skipped steps included", () => {
    const steps = [step("facts", "done", 0, 10), step("preflight", "failed", 10, 12), step("packages", "skipped")];
    expect(estimateRemainingMs({ steps, startedAt: at(0), now: t0 + 12_000 })).toBe(0);
  });

  test("one host, steps in a row: the phase's average duration per pending step", () => {
    // Two facts steps took 10 s each, one after the other; two more facts steps are pending → 20 s.
    const steps = [step("facts", "done", 0, 10), step("facts", "done", 10, 20), step("facts", "pending"), step("facts", "pending")];
    expect(estimateRemainingMs({ steps, startedAt: at(0), now: t0 + 20_000 })).toBe(20_000);
  });

  test("a running step counts only the time it still needs", () => {
    const steps = [step("facts", "done", 0, 10), step("facts", "running", 10)];
    expect(estimateRemainingMs({ steps, startedAt: at(0), now: t0 + 14_000 })).toBe(6_000);
  });

  test("hosts side by side: the observed parallelism divides the remaining work", () => {
    // Four hosts ran facts at the same time (10 s each, 10 s of wall time: parallelism 4); four
    // preflight steps are pending. With no preflight step measured, each is expected to take the
    // overall average (10 s): 40 s of work / 4 = 10 s.
    const facts = ["a", "b", "c", "d"].map(() => step("facts", "done", 0, 10));
    const preflight = ["a", "b", "c", "d"].map(() => step("preflight", "pending"));
    expect(estimateRemainingMs({ steps: [...facts, ...preflight], startedAt: at(0), now: t0 + 10_000 })).toBe(10_000);
  });

  test("a phase with one cluster-wide step gains nothing from parallelism", () => {
    const facts = ["a", "b", "c", "d"].map(() => step("facts", "done", 0, 10));
    expect(estimateRemainingMs({ steps: [...facts, step("pivot", "pending")], startedAt: at(0), now: t0 + 10_000 })).toBe(10_000);
  });

  test("uses each phase's own average where it has one", () => {
    // facts took 2 s, packages 30 s (measured on one host); the other host's packages step is pending.
    const steps = [step("facts", "done", 0, 2), step("packages", "done", 2, 32), step("packages", "pending")];
    expect(estimateRemainingMs({ steps, startedAt: at(0), now: t0 + 32_000 })).toBe(30_000);
  });

  test("never goes negative when a step runs longer than the average", () => {
    const steps = [step("facts", "done", 0, 10), step("facts", "waiting", 10)];
    expect(estimateRemainingMs({ steps, startedAt: at(0), now: t0 + 60_000 })).toBe(0);
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

  test("is overdue past the deadline", () => {
    expect(waitingText(wait, t0 + 301_000)).toEqual({ text: "waiting for kube-apiserver on master-1, 05:01 of 05:00", overdue: true });
  });
});
