import { describe, expect, test } from "vitest";
import { phaseDurations } from "./phase-times";

describe("phaseDurations", () => {
  test("each phase's longest execution: a retry that passes over a finished phase does not shorten it", () => {
    const e = (type: string, phase: string, at: number) => ({ type, phase, at });
    expect(
      phaseDurations([
        e("phase.started", "facts", 0),
        e("phase.finished", "facts", 400),
        e("phase.started", "preflight", 400),
        e("phase.finished", "preflight", 500),
        // the retry: facts done already, preflight again, then the rest
        e("phase.started", "facts", 60_000),
        e("phase.finished", "facts", 60_010),
        e("phase.started", "preflight", 60_010),
        e("phase.finished", "preflight", 60_150),
        e("phase.started", "pivot", 70_000),
        e("phase.finished", "pivot", 91_000),
      ]),
    ).toEqual({ facts: 400, preflight: 140, pivot: 21_000 });
  });

  test("a phase started but never finished (the worker stopped) is left out", () => {
    expect(phaseDurations([{ type: "phase.started", phase: "join", at: 0 }])).toEqual({});
  });
});
