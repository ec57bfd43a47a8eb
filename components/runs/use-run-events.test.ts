import { describe, expect, test } from "vitest";
import type { RunView, StepView } from "@/lib/engine/queries";
import { applyEvent, type RunEvent } from "./use-run-events";

const step: StepView = {
  id: "step_1",
  key: "control-plane/master-1/wait-apiserver",
  phase: "control-plane",
  title: "Wait for the API server",
  host: "master-1",
  status: "running",
  attempts: 1,
  exitCode: null,
  error: null,
  hint: null,
  output: null,
  startedAt: "2026-11-30T12:00:00.000Z",
  finishedAt: null,
  waiting: null,
};
const run = { id: "run_1", status: "running", lastSeq: 4, steps: [step, { ...step, id: "step_2", key: "control-plane/master-2/wait-apiserver", host: "master-2" }] } as RunView;
const wait = { what: "kube-apiserver", host: "master-1", since: "2026-11-30T12:00:01.000Z", deadline: "2026-11-30T12:05:01.000Z" };
const event = (seq: number, type: string, data: Record<string, unknown>, stepId: string | null = "step_1"): RunEvent => ({ seq, type, stepId, data, at: "2026-11-30T12:00:02.000Z" });

describe("applyEvent", () => {
  test("step.waiting marks the step waiting and keeps what, where, since and deadline", () => {
    const next = applyEvent(run, event(5, "step.waiting", { key: step.key, ...wait }));
    expect(next.lastSeq).toBe(5);
    expect(next.steps[0]).toMatchObject({ status: "waiting", waiting: wait });
    expect(next.steps[1]).toMatchObject({ status: "running", waiting: null });
  });

  test("without a stepId the step is found by its key", () => {
    const next = applyEvent(run, event(5, "step.waiting", { key: "control-plane/master-2/wait-apiserver", ...wait, host: "master-2" }, null));
    expect(next.steps.map((s) => s.waiting?.host ?? null)).toEqual([null, "master-2"]);
  });

  test.each(["step.finished", "step.failed", "step.cancelled", "step.started"])("%s ends the wait", (type) => {
    const waiting = applyEvent(run, event(5, "step.waiting", { key: step.key, ...wait }));
    const next = applyEvent(waiting, event(6, type, { key: step.key, error: "timed out", attempt: 2 }));
    expect(next.steps[0]!.waiting).toBeNull();
    expect(next.steps[0]!.status).not.toBe("waiting");
  });
});
