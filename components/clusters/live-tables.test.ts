// The live tables apply stream messages in place: a snapshot replaces, upserts change one row, deletes remove it.
import { QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PodRow } from "@/lib/clusters/live-rows";
import { FakeEventSource, fakeImpl } from "@/test/fake-event-source";
import type { LiveMessage } from "@/lib/clusters/live-rows";
import { age, applyLive, applyLiveBatch, filterPods, followClusterLive } from "./live-tables";

const pod = (uid: string, over: Partial<PodRow> = {}): PodRow => ({ uid, namespace: "kube-system", name: uid, ready: 1, containers: 1, status: "Running", restarts: 0, createdAt: null, ip: null, node: "m1", ...over });

describe("live tables", () => {
  it("replaces on a snapshot and changes rows in place", () => {
    let live = applyLive({ pods: {}, nodes: {}, api: null }, { type: "snapshot", pods: [pod("a"), pod("b")], nodes: [], api: { state: "connected", since: "t" } });
    live = applyLive(live, { type: "pod", op: "upsert", row: pod("a", { status: "CrashLoopBackOff", restarts: 3 }) });
    live = applyLive(live, { type: "pod", op: "delete", uid: "b" });
    live = applyLive(live, { type: "api", api: { state: "unreachable", since: "t2", message: "refused" } });
    expect(Object.values(live.pods)).toEqual([pod("a", { status: "CrashLoopBackOff", restarts: 3 })]);
    expect(live.api?.state).toBe("unreachable");
  });

  it("applies a batch of messages exactly as one after another, without touching what the batch leaves alone", () => {
    const start = applyLive({ pods: {}, nodes: {}, api: null }, { type: "snapshot", pods: [pod("a"), pod("b")], nodes: [{ name: "m1", ready: true, status: "Ready", roles: ["control-plane"], createdAt: null, version: "v1.36.3", addresses: [] }], api: { state: "connected", since: "t" } });
    const batch: LiveMessage[] = [
      { type: "pod", op: "upsert", row: pod("c") },
      { type: "pod", op: "delete", uid: "a" },
      { type: "pod", op: "upsert", row: pod("b", { restarts: 1 }) },
      { type: "api", api: { state: "unreachable", since: "t2" } },
    ];
    const together = applyLiveBatch(start, batch);
    expect(together).toEqual(batch.reduce(applyLive, start));
    expect(Object.keys(together.pods).sort()).toEqual(["b", "c"]);
    expect(together.nodes).toBe(start.nodes); // unchanged maps keep their identity: nothing re-renders for them
    expect(start.pods.a).toBeDefined(); // the previous state is not mutated
  });

  it("filters on namespace, name, node and status, and sorts", () => {
    const pods = [pod("b", { node: "w2" }), pod("a", { namespace: "kube-flannel", node: "w1" }), pod("c", { restarts: 5 })];
    expect(filterPods(pods, "flannel", "namespace").map((p) => p.uid)).toEqual(["a"]);
    expect(filterPods(pods, "w", "node").map((p) => p.uid)).toEqual(["a", "b"]);
    expect(filterPods(pods, "", "restarts")[0]?.uid).toBe("c");
  });

  it("shows ages like kubectl", () => {
    const now = Date.parse("2026-11-30T12:00:00Z");
    expect(age("2026-11-30T11:59:30Z", now)).toBe("30s");
    expect(age("2026-11-30T11:00:00Z", now)).toBe("60m");
    expect(age("2026-11-29T00:00:00Z", now)).toBe("36h");
  });
});

describe("the live stream", () => {
  beforeEach(() => {
    FakeEventSource.instances = [];
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it("opens again after an HTTP error closed it, and the new snapshot replaces the rows", () => {
    const queryClient = new QueryClient();
    const stop = followClusterLive({ clusterId: "cl_1", queryClient, EventSourceImpl: fakeImpl });
    const first = FakeEventSource.instances[0]!;
    expect(first.url).toBe("/api/clusters/cl_1/live");
    first.opened();
    first.emit("snapshot", { type: "snapshot", pods: [pod("a"), pod("b")], nodes: [], api: { state: "connected", since: "t" } });
    first.httpError();
    vi.advanceTimersByTime(1_000);
    const second = FakeEventSource.instances[1]!;
    second.opened();
    second.emit("snapshot", { type: "snapshot", pods: [pod("b")], nodes: [], api: { state: "connected", since: "t" } });
    vi.advanceTimersByTime(16); // messages are applied once per frame
    expect(Object.keys(queryClient.getQueryData<{ pods: Record<string, PodRow> }>(["live", "cl_1"])!.pods)).toEqual(["b"]);
    stop();
    expect(second.readyState).toBe(2);
  });
});
