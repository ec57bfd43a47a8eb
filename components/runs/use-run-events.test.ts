import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import type { RunView, StepView } from "@/lib/engine/queries";
import { runQueryKeys } from "@/lib/engine/schemas";
import { FakeEventSource, fakeImpl } from "@/test/fake-event-source";
import { applyEvent, followRunEvents, type RunEvent } from "./use-run-events";

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

describe("followRunEvents", () => {
  beforeEach(() => {
    FakeEventSource.instances = [];
    vi.useFakeTimers();
    vi.stubGlobal("requestAnimationFrame", (f: () => void) => setTimeout(f, 16) as unknown as number);
    vi.stubGlobal("cancelAnimationFrame", (t: number) => clearTimeout(t));
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  const setup = () => {
    const queryClient = new QueryClient();
    const key = runQueryKeys.run("run_1");
    const fetches = vi.fn(async () => queryClient.getQueryData<RunView>(key)!);
    queryClient.setQueryData(key, run);
    // An observer, as on the page, so an invalidation refetches.
    const unsubscribe = new QueryObserver(queryClient, { queryKey: key, queryFn: fetches, staleTime: Infinity }).subscribe(() => undefined);
    const stop = followRunEvents({ runId: "run_1", queryClient, EventSourceImpl: fakeImpl });
    const send = (source: FakeEventSource, e: RunEvent) => source.emit(e.type, e, String(e.seq));
    return { queryClient, key, fetches, stop: () => (stop(), unsubscribe()), send, snapshot: () => queryClient.getQueryData<RunView>(key)! };
  };

  test("opens the stream after the snapshot's last sequence number and applies events once per frame", () => {
    const { send, snapshot, stop } = setup();
    const source = FakeEventSource.instances[0]!;
    expect(source.url).toBe("/api/runs/run_1/events?after=4");
    source.opened();
    send(source, event(5, "step.finished", { key: step.key }));
    send(source, event(5, "step.finished", { key: step.key })); // replayed: applied once
    expect(snapshot().lastSeq).toBe(4);
    vi.advanceTimersByTime(16);
    expect(snapshot().lastSeq).toBe(5);
    expect(snapshot().steps[0]!.status).toBe("done");
    stop();
  });

  test("after an HTTP error closes the stream, it reopens from what the page applied (queued events first) and refetches the snapshot once open", async () => {
    const { send, snapshot, fetches, stop } = setup();
    const first = FakeEventSource.instances[0]!;
    first.opened();
    send(first, event(5, "step.started", { key: step.key, attempt: 1 }));
    first.httpError(); // e.g. a reverse proxy's 502 while the dashboard restarts
    vi.advanceTimersByTime(1_000);
    const second = FakeEventSource.instances[1]!;
    expect(second.url).toBe("/api/runs/run_1/events?after=5");
    expect(snapshot().lastSeq).toBe(5);
    expect(fetches).not.toHaveBeenCalled();
    second.opened();
    await vi.waitFor(() => expect(fetches).toHaveBeenCalledTimes(1));
    send(second, event(6, "step.finished", { key: step.key }));
    vi.advanceTimersByTime(16);
    expect(snapshot()).toMatchObject({ lastSeq: 6, steps: [{ status: "done" }, { status: "running" }] });
    stop();
  });

  test("a network error is left to the browser, which resumes from Last-Event-ID", () => {
    const { stop } = setup();
    const first = FakeEventSource.instances[0]!;
    first.opened();
    first.networkError();
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.instances).toHaveLength(1);
    stop();
  });

  test("the run's end closes the stream for good", () => {
    const { send, stop } = setup();
    const first = FakeEventSource.instances[0]!;
    first.opened();
    send(first, event(5, "run.finished", { status: "succeeded" }, null));
    vi.advanceTimersByTime(16);
    expect(first.readyState).toBe(2);
    first.httpError();
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.instances).toHaveLength(1);
    stop();
  });
});
