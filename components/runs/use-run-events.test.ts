import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import type { RunView, StepView } from "@/lib/engine/queries";
import { runQueryKeys } from "@/lib/engine/schemas";
import { FakeEventSource, fakeImpl } from "@/test/fake-event-source";
import { appliedAfter, applyEvent, carryLiveOutput, followRunEvents, freshRunSnapshot, MAX_LIVE_LINES, type RunEvent } from "./use-run-events";

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
    // A long wait says again what it is still waiting on.
    const still = applyEvent(next, event(6, "step.waiting", { key: step.key, ...wait, why: "API not answering (0)" }));
    expect(still.steps[0]).toMatchObject({ status: "waiting", waiting: { ...wait, why: "API not answering (0)" } });
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

describe("applyEvent: live output", () => {
  const output = (seq: number, key: string, ...lines: [string, string][]) => event(seq, "step.output", { step: key, lines: lines.map(([stream, line]) => ({ stream, line })) }, null);

  test("step.output appends its lines, with the event's seq, to the step named by data.step", () => {
    let next = applyEvent(run, output(5, step.key, ["stdout", "one"], ["stderr", "two"]));
    next = applyEvent(next, output(6, "control-plane/master-2/wait-apiserver", ["stdout", "other"]));
    next = applyEvent(next, output(7, step.key, ["stdout", "three"]));
    expect(next.lastSeq).toBe(7);
    expect(next.steps[0]!.liveOutput).toEqual([
      { seq: 5, stream: "stdout", line: "one" },
      { seq: 5, stream: "stderr", line: "two" },
      { seq: 7, stream: "stdout", line: "three" },
    ]);
    expect(next.steps[1]!.liveOutput).toEqual([{ seq: 6, stream: "stdout", line: "other" }]);
    expect(run.steps[0]!.liveOutput).toBeUndefined(); // the snapshot given is not changed
  });

  test(`keeps the last ${MAX_LIVE_LINES} lines of a step`, () => {
    let next = run;
    for (let i = 0; i < 6; i++) next = applyEvent(next, output(5 + i, step.key, ...Array.from({ length: 1_000 }, (_, j) => ["stdout", `${i}.${j}`] as [string, string])));
    const live = next.steps[0]!.liveOutput!;
    expect(live).toHaveLength(MAX_LIVE_LINES);
    expect(live[0]!.line).toBe("1.0");
    expect(live.at(-1)!.line).toBe("5.999");
  });

  test("a later attempt starts with a note, as in the server's full output; the first does not", () => {
    let next = applyEvent(run, event(5, "step.started", { key: step.key, attempt: 1 }));
    next = applyEvent(next, output(6, step.key, ["stdout", "one"]));
    next = applyEvent(next, event(7, "step.retrying", { key: step.key, attempt: 2, of: 3, error: "download failed", inMs: 2_000 }));
    next = applyEvent(next, event(8, "step.started", { key: step.key, attempt: 3 }));
    expect(next.steps[0]!.liveOutput!.map((l) => [l.seq, l.stream, l.line])).toEqual([
      [6, "stdout", "one"],
      [7, "note", "── download failed; attempt 2 of 3 in 2 s ──"],
      [8, "note", "── attempt 3 ──"],
    ]);
  });

  test("a refetched snapshot keeps the live lines the page had", () => {
    const live = applyEvent(run, output(5, step.key, ["stdout", "one"]));
    const fresh = { ...run, lastSeq: 9, steps: run.steps.map((s) => ({ ...s, status: "done" })) } as RunView;
    const kept = carryLiveOutput(live, fresh);
    expect(kept.lastSeq).toBe(9);
    expect(kept.steps.map((s) => [s.status, s.liveOutput?.length ?? 0])).toEqual([
      ["done", 1],
      ["done", 0],
    ]);
    expect(carryLiveOutput(undefined, fresh)).toBe(fresh);
  });

  test("a snapshot older than what the page applied, whose missed events are not kept, is read again", async () => {
    const applied = { ...run, lastSeq: 12 } as RunView;
    const notKept = () => undefined;
    const served = [{ ...run, lastSeq: 10 }, { ...run, lastSeq: 13 }] as RunView[];
    const fetchRun = vi.fn(async () => served.shift()!);
    expect((await freshRunSnapshot(fetchRun, () => applied, notKept)).lastSeq).toBe(13);
    expect(fetchRun).toHaveBeenCalledTimes(2);
    // A first load, or a snapshot as new as the page's, is taken at once.
    const once = vi.fn(async () => ({ ...run, lastSeq: 12 }) as RunView);
    expect((await freshRunSnapshot(once, () => applied, notKept)).lastSeq).toBe(12);
    expect((await freshRunSnapshot(once, () => undefined, notKept)).lastSeq).toBe(12);
    expect(once).toHaveBeenCalledTimes(2);
    // A server that stays behind (it should not) is believed after three reads rather than asked for ever.
    const behind = vi.fn(async () => ({ ...run, lastSeq: 3 }) as RunView);
    expect((await freshRunSnapshot(behind, () => applied, notKept)).lastSeq).toBe(3);
    expect(behind).toHaveBeenCalledTimes(3);
  });

  test("a snapshot older than what the page applied has the events it missed replayed onto it: read once", async () => {
    const missed = [event(5, "step.started", { key: step.key, attempt: 2 }), event(6, "step.finished", { key: step.key })];
    const page = missed.reduce(applyEvent, run);
    const fetchRun = vi.fn(async () => run);
    const fresh = await freshRunSnapshot(fetchRun, () => page, (seq) => missed.filter((e) => e.seq > seq));
    expect(fetchRun).toHaveBeenCalledTimes(1);
    expect(fresh).toEqual(page);
    // Kept events that stop short of the page's (a hole) are not enough: it is read again.
    const short = vi.fn(async () => run);
    expect((await freshRunSnapshot(short, () => page, () => missed.slice(0, 1))).lastSeq).toBe(4);
    expect(short).toHaveBeenCalledTimes(3);
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

  test("after an HTTP error closes the stream, it asks for the snapshot (an expired session signs out there), reopens from what the page applied (queued events first) and refetches once open", async () => {
    const { send, snapshot, fetches, stop } = setup();
    const first = FakeEventSource.instances[0]!;
    first.opened();
    send(first, event(5, "step.started", { key: step.key, attempt: 1 }));
    first.httpError(); // e.g. a reverse proxy's 502 while the dashboard restarts, or a 401
    await vi.waitFor(() => expect(fetches).toHaveBeenCalledTimes(1));
    vi.advanceTimersByTime(1_000);
    const second = FakeEventSource.instances[1]!;
    expect(second.url).toBe("/api/runs/run_1/events?after=5");
    expect(snapshot().lastSeq).toBe(5);
    second.opened();
    await vi.waitFor(() => expect(fetches).toHaveBeenCalledTimes(2));
    send(second, event(6, "step.finished", { key: step.key }));
    vi.advanceTimersByTime(16);
    expect(snapshot()).toMatchObject({ lastSeq: 6, steps: [{ status: "done" }, { status: "running" }] });
    stop();
  });

  test("a refetched snapshot (here after a gap) is followed by a refetch of the open step outputs, not before", async () => {
    const { queryClient, send, fetches, stop } = setup();
    let snapshotDone = false;
    const order: string[] = [];
    fetches.mockImplementation(async () => {
      await Promise.resolve();
      snapshotDone = true;
      order.push("snapshot");
      return queryClient.getQueryData<RunView>(runQueryKeys.run("run_1"))!;
    });
    const outputFetch = vi.fn(async () => (order.push(`output after snapshot: ${snapshotDone}`), { lines: [] }));
    const unsubscribe = new QueryObserver(queryClient, { queryKey: runQueryKeys.stepOutput("run_1", step.key), queryFn: outputFetch, staleTime: Infinity }).subscribe(() => undefined);
    await vi.waitFor(() => expect(outputFetch).toHaveBeenCalledTimes(1));
    order.length = 0;
    const source = FakeEventSource.instances[0]!;
    source.opened();
    send(source, event(7, "step.finished", { key: step.key })); // 5 and 6 never came
    vi.advanceTimersByTime(16);
    await vi.waitFor(() => expect(outputFetch).toHaveBeenCalledTimes(2));
    expect(order).toEqual(["snapshot", "output after snapshot: true"]);
    unsubscribe();
    stop();
  });

  test("a snapshot read while events kept coming is brought up to date from the events the page applied: no gap, no refetch of the open outputs", async () => {
    const { queryClient, send, fetches, snapshot, stop } = setup();
    const outputFetch = vi.fn(async () => ({ lines: [] }));
    const unsubscribe = new QueryObserver(queryClient, { queryKey: runQueryKeys.stepOutput("run_1", step.key), queryFn: outputFetch, staleTime: Infinity }).subscribe(() => undefined);
    await vi.waitFor(() => expect(outputFetch).toHaveBeenCalledTimes(1));
    const source = FakeEventSource.instances[0]!;
    source.opened();
    send(source, event(5, "step.output", { step: step.key, lines: [{ stream: "stdout", line: "pulling" }] }, null));
    send(source, event(6, "step.output", { step: step.key, lines: [{ stream: "stdout", line: "started" }] }, null));
    vi.advanceTimersByTime(16);
    // The server answers with the snapshot as it was before those two (say a window focus refetched it).
    fetches.mockImplementation(async () => run);
    await queryClient.fetchQuery({ queryKey: runQueryKeys.run("run_1"), queryFn: () => freshRunSnapshot(fetches, snapshot, (seq) => appliedAfter(queryClient, "run_1", seq)) });
    expect(snapshot().lastSeq).toBe(6);
    expect(snapshot().steps[0]!.liveOutput?.map((l) => l.line)).toEqual(["pulling", "started"]);
    send(source, event(7, "step.finished", { key: step.key }));
    vi.advanceTimersByTime(16);
    expect(snapshot()).toMatchObject({ lastSeq: 7, steps: [{ status: "done" }, { status: "running" }] });
    expect(fetches).toHaveBeenCalledTimes(1);
    expect(outputFetch).toHaveBeenCalledTimes(1);
    unsubscribe();
    stop();
    expect(appliedAfter(queryClient, "run_1", 4)).toBeUndefined();
  });

  test("reports the stream's state for the page's live line", () => {
    const queryClient = new QueryClient();
    queryClient.setQueryData(runQueryKeys.run("run_1"), run);
    const states: string[] = [];
    const stop = followRunEvents({ runId: "run_1", queryClient, EventSourceImpl: fakeImpl, onStateChange: (s) => states.push(s) });
    const source = FakeEventSource.instances[0]!;
    source.opened();
    source.networkError();
    source.opened();
    stop();
    expect(states).toEqual(["connecting", "open", "reconnecting", "open", "closed"]);
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

  test.each(["failed", "needs-decision", "cancelled"])("a run that ends %s is still followed: a retry from another page reaches this one", (status) => {
    const { send, stop, queryClient } = setup();
    const first = FakeEventSource.instances[0]!;
    first.opened();
    send(first, event(5, "run.finished", { status }, null));
    vi.advanceTimersByTime(16);
    expect(first.readyState).toBe(1);
    expect(queryClient.getQueryData<RunView>(runQueryKeys.run("run_1"))?.status).toBe(status);
    // Someone else accepts the warnings or retries: the same stream brings the run back to life.
    send(first, event(6, "run.retried", { steps: [step.key] }, null));
    send(first, event(7, "run.started", { retry: true }, null));
    vi.advanceTimersByTime(16);
    expect(queryClient.getQueryData<RunView>(runQueryKeys.run("run_1"))?.status).toBe("running");
    stop();
  });

  test("a successful run's end closes the stream for good", () => {
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
