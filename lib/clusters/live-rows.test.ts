// The live tables show pods and nodes the way kubectl does.
import { describe, expect, it } from "vitest";
import { nodeRow, podRow, podStatus } from "./live-rows";

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
