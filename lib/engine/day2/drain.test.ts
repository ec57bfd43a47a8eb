import { describe, expect, it } from "vitest";
import { chooseEvictions, evictionRefusal, unmanaged, type DrainPod } from "./drain";

const pod = (name: string, extra: Partial<DrainPod["metadata"]> = {}, phase = "Running", node = "w1"): DrainPod => ({ metadata: { name, namespace: "default", ...extra }, spec: { nodeName: node }, status: { phase } });

describe("what a drain evicts", () => {
  it("evicts workloads and leaves DaemonSet pods, static pods, finished and leaving pods", () => {
    const { evict, stay } = chooseEvictions(
      [
        pod("web-1", { ownerReferences: [{ kind: "ReplicaSet", controller: true }] }),
        pod("proxy-x", { ownerReferences: [{ kind: "DaemonSet", controller: true }] }),
        pod("etcd-w1", { ownerReferences: [{ kind: "Node", controller: true }], annotations: { "kubernetes.io/config.mirror": "x" } }),
        pod("job-1", { ownerReferences: [{ kind: "Job" }] }, "Succeeded"),
        pod("leaving", { deletionTimestamp: "2026-01-01T00:00:00Z", ownerReferences: [{ kind: "ReplicaSet" }] }),
        pod("bare"),
        pod("elsewhere", {}, "Running", "w2"),
      ],
      "w1",
    );
    expect(evict.map((p) => p.metadata?.name)).toEqual(["web-1", "bare"]);
    expect(stay.map((s) => `${s.pod}: ${s.why}`)).toEqual([
      "default/proxy-x: a DaemonSet's pod",
      "default/etcd-w1: a static pod (its kubelet runs it from a file)",
      "default/job-1: finished (Succeeded)",
      "default/leaving: already terminating",
    ]);
    expect(unmanaged(evict)).toEqual(["default/bare"]);
  });

  it("says which disruption budget refused an eviction", () => {
    const body = JSON.stringify({ message: "Cannot evict pod as it would violate the pod's disruption budget.", details: { causes: [{ reason: "DisruptionBudget", message: "The disruption budget web needs 2 healthy pods and has 2 currently" }] } });
    expect(evictionRefusal(429, body)).toBe("Cannot evict pod as it would violate the pod's disruption budget. (The disruption budget web needs 2 healthy pods and has 2 currently)");
    expect(evictionRefusal(500, "oops")).toBe("HTTP 500 oops");
  });
});
