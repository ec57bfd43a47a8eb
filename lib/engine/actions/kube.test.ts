// How the bootstrap reads cluster state: Ready nodes, Running-and-Ready control-plane pods (never the
// bootstrap ones), and the role labels and taints a node still needs.
import { describe, expect, it } from "vitest";
import { controlPlaneMissing, nodeReady, podLine, roleMissing, roleOf, type PodLike } from "./kube";

const pod = (name: string, phase: string, ready: boolean, ns = "kube-system"): PodLike => ({
  metadata: { name, namespace: ns },
  status: { phase, conditions: [{ type: "Ready", status: ready ? "True" : "False" }], containerStatuses: [{ ready, restartCount: 0, ...(ready ? {} : { state: { waiting: { reason: "CrashLoopBackOff" } } }) }] },
});

describe("cluster state as the bootstrap judges it", () => {
  it("a node is Ready only with a True Ready condition, and says why not", () => {
    expect(nodeReady({ status: { conditions: [{ type: "Ready", status: "True" }] } }).ready).toBe(true);
    expect(nodeReady({ status: { conditions: [{ type: "Ready", status: "False", reason: "KubeletNotReady", message: "cni config uninitialized" }] } }).why).toBe("NotReady (KubeletNotReady: cni config uninitialized)");
    expect(nodeReady({}).why).toMatch(/no Ready condition/);
  });

  it("counts only self-hosted control-plane pods that are Running and Ready, and names each with its node and state or why it is not placed", () => {
    const pods = [pod("bootstrap-kube-apiserver-m1", "Running", true), pod("kube-apiserver-x1", "Running", false), pod("kube-scheduler-a", "Running", true), pod("kube-controller-manager-b", "Pending", false)];
    expect(controlPlaneMissing(pods, ["kube-apiserver", "kube-scheduler", "kube-controller-manager"])).toEqual(["kube-apiserver", "kube-controller-manager"]);
    expect(podLine(pods[1]!)).toBe("kube-system/kube-apiserver-x1 Running 0/1 (CrashLoopBackOff)");
    expect(podLine({ ...pods[1]!, spec: { nodeName: "master-2" } })).toBe("kube-system/kube-apiserver-x1 on master-2 Running 0/1 (CrashLoopBackOff)");
    const unplaced: PodLike = {
      metadata: { name: "kube-scheduler-abc", namespace: "kube-system" },
      status: {
        phase: "Pending",
        conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: "0/4 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 3 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling." }],
      },
    };
    expect(podLine(unplaced)).toBe("kube-system/kube-scheduler-abc Pending 0/1 (Unschedulable: 0/4 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 3 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: })");
  });

  it("gives a master the control-plane label and taint through the API, only what is missing", () => {
    const master = roleOf("master");
    expect(master).toEqual({ labels: { "node-role.kubernetes.io/control-plane": "" }, taint: { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" } });
    expect(roleMissing({ metadata: { labels: {} }, spec: {} }, master)).toEqual({ labels: true, taint: true });
    // Registered with the taint (KubeletConfiguration registerWithTaints): only the label is missing.
    expect(roleMissing({ metadata: { labels: {} }, spec: { taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] } }, master)).toEqual({ labels: true, taint: false });
    expect(roleMissing({ metadata: { labels: { "node-role.kubernetes.io/worker": "" } } }, roleOf("worker"))).toEqual({ labels: false, taint: false });
  });
});
