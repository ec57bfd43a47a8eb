// The live tables show pods and nodes the way kubectl does.
import { describe, expect, it } from "vitest";
import { knownPods, nodeRow, podRow, podStatus, type NodeRow, type PodRow } from "./live-rows";

describe("pod rows like kubectl get pods -o wide", () => {
  it("shows ready containers, restarts, IP and node", () => {
    const row = podRow({
      metadata: { uid: "u1", name: "kube-apiserver-abc", namespace: "kube-system", creationTimestamp: new Date("2026-11-30T10:00:00Z") },
      spec: { nodeName: "master-1" },
      status: { phase: "Running", podIP: "10.0.0.1", containerStatuses: [{ ready: true, restartCount: 2 }, { ready: false, restartCount: 1 }] },
    });
    expect(row).toEqual({ uid: "u1", namespace: "kube-system", name: "kube-apiserver-abc", ready: 1, containers: 2, status: "Running", restarts: 3, createdAt: "2026-11-30T10:00:00.000Z", ip: "10.0.0.1", node: "master-1" });
  });

  it("shows a container's waiting reason over the phase, and Terminating for a deleted pod", () => {
    expect(podStatus({ status: { phase: "Running", containerStatuses: [{ state: { waiting: { reason: "CrashLoopBackOff" } } }] } })).toBe("CrashLoopBackOff");
    expect(podStatus({ status: { phase: "Pending" } })).toBe("Pending");
    expect(podStatus({ metadata: { deletionTimestamp: "2026-11-30T10:00:00Z" }, status: { phase: "Running" } })).toBe("Terminating");
    expect(podStatus({ status: { phase: "Succeeded", containerStatuses: [{ state: { terminated: { reason: "Completed" } } }] } })).toBe("Succeeded");
  });
});

describe("node rows like kubectl get nodes -o wide", () => {
  it("shows Ready, roles from node-role labels, version and addresses", () => {
    const row = nodeRow({
      metadata: { name: "master-1", labels: { "node-role.kubernetes.io/control-plane": "", "kubernetes.io/os": "linux" } },
      spec: { unschedulable: true },
      status: { conditions: [{ type: "Ready", status: "True" }], nodeInfo: { kubeletVersion: "v1.36.3" }, addresses: [{ type: "InternalIP", address: "10.0.0.10" }] },
    });
    expect(row).toMatchObject({ name: "master-1", status: "Ready,SchedulingDisabled", ready: true, roles: ["control-plane"], version: "v1.36.3", addresses: ["10.0.0.10"] });
    expect(nodeRow({ metadata: { name: "w" }, status: { conditions: [{ type: "Ready", status: "Unknown" }] } }).status).toBe("NotReady");
  });
});

describe("pods as far as they are known", () => {
  const pod = (name: string, node: string | null, status = "Running", ready = 1): PodRow => ({ uid: name, namespace: "kube-system", name, ready, containers: 1, status, restarts: 0, createdAt: null, ip: null, node });
  const node = (name: string, ready = true): NodeRow => ({ name, status: ready ? "Ready" : "NotReady", ready, roles: [], version: null, createdAt: null, addresses: [] });
  const nodes = { "master-1": node("master-1"), "worker-1": node("worker-1"), "worker-2": node("worker-2", false) };

  it("a reset worker's pods, still listed Running, are not counted Running and Ready: their node is gone", () => {
    const pods = [pod("apiserver", "master-1"), pod("flannel-a", "worker-1"), pod("flannel-b", "worker-3"), pod("proxy-b", "worker-3")];
    const known = knownPods(pods, nodes);
    expect([known.ready, known.total, known.doubtful]).toEqual([2, 4, 2]);
    expect(known.rows.find((r) => r.pod.name === "flannel-b")?.doubt).toEqual({ node: "worker-3", why: "gone" });
  });

  it("pods on a node that is not Ready are in doubt too; unscheduled pods are not", () => {
    const known = knownPods([pod("flannel-c", "worker-2"), pod("pending", null, "Pending", 0)], nodes);
    expect(known.rows.map((r) => r.doubt)).toEqual([{ node: "worker-2", why: "not-ready" }, null]);
    expect([known.ready, known.doubtful]).toEqual([0, 1]);
  });
});
