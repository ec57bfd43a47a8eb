// An EventSource closed by an HTTP error is opened again after a back-off; one the browser is already
// retrying (a network error) is left to the browser.
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { FakeEventSource, fakeImpl } from "@/test/fake-event-source";
import { openReconnectingEventSource } from "./reconnecting-event-source";


describe("openReconnectingEventSource", () => {
  beforeEach(() => {
    FakeEventSource.instances = [];
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  test("says when the server closed the stream (so a plain request can find out why), not when the network dropped it", () => {
    const onClosedByServer = vi.fn();
    openReconnectingEventSource({ url: () => "/s", listeners: {}, onClosedByServer, EventSourceImpl: fakeImpl });
    const first = FakeEventSource.instances[0]!;
    first.opened();
    first.networkError();
    expect(onClosedByServer).not.toHaveBeenCalled();
    first.httpError();
    expect(onClosedByServer).toHaveBeenCalledTimes(1);
  });

  test("after an HTTP error closes the source, a new one opens after 1 s, 2 s, 4 s … with a fresh URL, and reports that it is open again", () => {
    let n = 0;
    const onReopened = vi.fn();
    const onMessage = vi.fn();
    openReconnectingEventSource({ url: () => `/s?n=${n++}`, listeners: { tick: onMessage }, onReopened, EventSourceImpl: fakeImpl });
    const first = FakeEventSource.instances[0]!;
    first.opened();
    first.httpError();
    vi.advanceTimersByTime(999);
    expect(FakeEventSource.instances).toHaveLength(1);
    vi.advanceTimersByTime(1);
    const second = FakeEventSource.instances[1]!;
    expect(second.url).toBe("/s?n=1");
    second.httpError(); // still down: wait longer
    vi.advanceTimersByTime(1_999);
    expect(FakeEventSource.instances).toHaveLength(2);
    vi.advanceTimersByTime(1);
    const third = FakeEventSource.instances[2]!;
    expect(third.url).toBe("/s?n=2");
    expect(onReopened).not.toHaveBeenCalled();
    third.opened();
    expect(onReopened).toHaveBeenCalledTimes(1);
    third.emit("tick", { a: 1 });
    expect(onMessage).toHaveBeenCalledTimes(1);
    // Open again: the back-off starts over.
    third.httpError();
    vi.advanceTimersByTime(1_000);
    expect(FakeEventSource.instances).toHaveLength(4);
  });

  test("a network error is left to the browser's own reconnect, and its reopen is not reported", () => {
    const onReopened = vi.fn();
    openReconnectingEventSource({ url: () => "/s", listeners: {}, onReopened, EventSourceImpl: fakeImpl });
    const first = FakeEventSource.instances[0]!;
    first.opened();
    first.networkError();
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.instances).toHaveLength(1);
    first.opened();
    expect(onReopened).not.toHaveBeenCalled();
  });

  test("closing it stops a pending reopen", () => {
    const stream = openReconnectingEventSource({ url: () => "/s", listeners: {}, EventSourceImpl: fakeImpl });
    FakeEventSource.instances[0]!.httpError();
    stream.close();
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.instances).toHaveLength(1);
  });

  test("reports its state: connecting, open, reconnecting after a network error or an HTTP error, open again, closed", () => {
    const states: string[] = [];
    const stream = openReconnectingEventSource({ url: () => "/s", listeners: {}, onStateChange: (s) => states.push(s), EventSourceImpl: fakeImpl });
    expect(states).toEqual(["connecting"]);
    const first = FakeEventSource.instances[0]!;
    first.opened();
    first.networkError(); // the browser retries
    first.networkError(); // and again: no repeat
    first.opened();
    first.httpError(); // closed for good: reopened after the back-off
    vi.advanceTimersByTime(1_000);
    FakeEventSource.instances[1]!.opened();
    stream.close();
    stream.close();
    expect(states).toEqual(["connecting", "open", "reconnecting", "open", "reconnecting", "open", "closed"]);
  });

  test("a failure before the first open stays connecting", () => {
    const states: string[] = [];
    openReconnectingEventSource({ url: () => "/s", listeners: {}, onStateChange: (s) => states.push(s), EventSourceImpl: fakeImpl });
    FakeEventSource.instances[0]!.httpError();
    vi.advanceTimersByTime(1_000);
    FakeEventSource.instances[1]!.opened();
    expect(states).toEqual(["connecting", "open"]);
  });
});
