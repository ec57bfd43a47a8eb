// Reading a cluster's state the way the bootstrap judges it: which nodes are Ready, which control-plane
// pods are Running and Ready, what a master's role labels and taints must be. Pure functions over
// API objects (golden-free unit tests), used by the pivot, join and verify steps.

export type NodeLike = {
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: { taints?: { key: string; value?: string; effect: string }[] };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string; lastHeartbeatTime?: unknown }[] };
};
export type PodLike = {
  metadata?: { name?: string; namespace?: string; ownerReferences?: { kind: string }[]; annotations?: Record<string, string> };
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[]; containerStatuses?: { ready: boolean; restartCount: number; state?: { waiting?: { reason?: string; message?: string } } }[] };
};

export function nodeReady(node: NodeLike): { ready: boolean; why: string } {
  const c = node.status?.conditions?.find((x) => x.type === "Ready");
  if (!c) return { ready: false, why: "no Ready condition reported yet" };
  if (c.status === "True") return { ready: true, why: "Ready" };
  return { ready: false, why: `NotReady${c.reason ? ` (${c.reason}${c.message ? `: ${c.message}` : ""})` : ""}` };
}

export function podReady(pod: PodLike): boolean {
  return pod.status?.phase === "Running" && pod.status.conditions?.find((c) => c.type === "Ready")?.status === "True";
}

/** A pod the bootstrap watches, in one line: "kube-system/kube-apiserver-x7 Running 0/1 (CrashLoopBackOff)". */
export function podLine(pod: PodLike): string {
  const cs = pod.status?.containerStatuses ?? [];
  const waiting = cs.map((c) => c.state?.waiting?.reason).find(Boolean) ?? unscheduledWhy(pod);
  const node = pod.spec?.nodeName ? ` on ${pod.spec.nodeName}` : "";
  return `${pod.metadata?.namespace}/${pod.metadata?.name}${node} ${pod.status?.phase ?? "Pending"} ${cs.filter((c) => c.ready).length}/${cs.length || 1}${waiting ? ` (${waiting})` : ""}`;
}

/** The scheduler's reason for a pod it could not place ("0/6 nodes are available: …"), without its preemption note. */
function unscheduledWhy(pod: PodLike): string | undefined {
  if (pod.spec?.nodeName) return undefined;
  const c = pod.status?.conditions?.find((x) => x.type === "PodScheduled" && x.status === "False");
  if (!c) return undefined;
  const message = (c.message ?? "").split(/\.? ?preemption:/)[0]!.trim();
  const why = `${c.reason ?? "not scheduled"}${message ? `: ${message}` : ""}`;
  return why.length > 240 ? `${why.slice(0, 239)}…` : why;
}

/** True for a static pod's mirror: the API object the kubelet creates for a pod it runs from a file. */
export const isMirrorPod = (pod: PodLike) => pod.metadata?.ownerReferences?.some((o) => o.kind === "Node") === true || pod.metadata?.annotations?.["kubernetes.io/config.mirror"] !== undefined;

/**
 * The self-hosted control plane is up when every required component has a Running and Ready pod that is
 * not a bootstrap static pod. Returns what is still missing.
 */
export function controlPlaneMissing(pods: PodLike[], components: readonly string[]): string[] {
  return components.filter(
    (c) =>
      !pods.some(
        (p) =>
          p.metadata?.namespace === "kube-system" &&
          (p.metadata?.name ?? "").startsWith(`${c}-`) &&
          !(p.metadata?.name ?? "").startsWith("bootstrap-") &&
          podReady(p),
      ),
  );
}

export const CONTROL_PLANE_COMPONENTS = ["kube-apiserver", "kube-controller-manager", "kube-scheduler"] as const;

export type Taint = { key: string; value?: string; effect: string };

/** Labels and the taint a node of this role must carry (its kubelet may not set the role label itself). */
export function roleOf(role: "master" | "worker"): { labels: Record<string, string>; taint?: Taint } {
  if (role === "worker") return { labels: { "node-role.kubernetes.io/worker": "" } };
  const key = "node-role.kubernetes.io/control-plane";
  return { labels: { [key]: "" }, taint: { key, effect: "NoSchedule" } };
}

/** What of its role a node lacks: one of the labels, the taint. */
export function roleMissing(node: NodeLike, wanted: { labels: Record<string, string>; taint?: Taint }): { labels: boolean; taint: boolean } {
  const labels = node.metadata?.labels ?? {};
  const taints = node.spec?.taints ?? [];
  return {
    labels: Object.entries(wanted.labels).some(([k, v]) => labels[k] !== v),
    taint: wanted.taint !== undefined && !taints.some((t) => t.key === wanted.taint?.key && t.effect === wanted.taint.effect),
  };
}
