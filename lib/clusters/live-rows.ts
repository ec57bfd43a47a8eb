// Pods and nodes as the live tables show them (the columns of `kubectl get pods -o wide -A` and
// `kubectl get nodes -o wide`), and the messages of the live stream. Browser-safe: plain functions.

export type PodRow = {
  uid: string;
  namespace: string;
  name: string;
  ready: number;
  containers: number;
  status: string;
  restarts: number;
  createdAt: string | null;
  ip: string | null;
  node: string | null;
};

export type NodeRow = {
  name: string;
  status: string;
  ready: boolean;
  roles: string[];
  version: string | null;
  createdAt: string | null;
  addresses: string[];
};

export type ApiState = {
  /** not-bootstrapped: no API exists yet (no bootstrap has brought up its temporary control plane). */
  state: "connecting" | "connected" | "unreachable" | "not-bootstrapped";
  since: string;
  message?: string;
  /** Unreachable while a run of this cluster is in its pivot, when a short gap is expected. */
  duringPivot?: boolean;
};

export type LiveMessage =
  | { type: "snapshot"; pods: PodRow[]; nodes: NodeRow[]; api: ApiState }
  | { type: "pod"; op: "upsert"; row: PodRow }
  | { type: "pod"; op: "delete"; uid: string }
  | { type: "node"; op: "upsert"; row: NodeRow }
  | { type: "node"; op: "delete"; name: string }
  | { type: "api"; api: ApiState };

type Obj = {
  metadata?: { uid?: string; name?: string; namespace?: string; creationTimestamp?: unknown; deletionTimestamp?: unknown; labels?: Record<string, string> };
  spec?: { nodeName?: string; unschedulable?: boolean };
  status?: {
    phase?: string;
    reason?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { ready?: boolean; restartCount?: number; state?: { waiting?: { reason?: string }; terminated?: { reason?: string } } }[];
    nodeInfo?: { kubeletVersion?: string };
    addresses?: { type: string; address: string }[];
  };
};

const iso = (v: unknown): string | null => (v instanceof Date ? v.toISOString() : typeof v === "string" ? v : null);

/** The STATUS column the way kubectl computes it: terminating, a container's waiting or terminated reason, else the phase. */
export function podStatus(p: Obj): string {
  if (p.metadata?.deletionTimestamp) return "Terminating";
  for (const c of p.status?.containerStatuses ?? []) {
    const reason = c.state?.waiting?.reason ?? c.state?.terminated?.reason;
    if (reason && !(reason === "Completed" && p.status?.phase === "Succeeded")) return reason;
  }
  return p.status?.reason ?? p.status?.phase ?? "Pending";
}

export function podRow(p: Obj): PodRow {
  const cs = p.status?.containerStatuses ?? [];
  return {
    uid: p.metadata?.uid ?? `${p.metadata?.namespace}/${p.metadata?.name}`,
    namespace: p.metadata?.namespace ?? "",
    name: p.metadata?.name ?? "",
    ready: cs.filter((c) => c.ready).length,
    containers: cs.length || 1,
    status: podStatus(p),
    restarts: cs.reduce((n, c) => n + (c.restartCount ?? 0), 0),
    createdAt: iso(p.metadata?.creationTimestamp),
    ip: p.status?.podIP ?? null,
    node: p.spec?.nodeName ?? null,
  };
}

export function nodeRow(n: Obj): NodeRow {
  const ready = n.status?.conditions?.find((c) => c.type === "Ready");
  const roles = Object.keys(n.metadata?.labels ?? {})
    .filter((k) => k.startsWith("node-role.kubernetes.io/"))
    .map((k) => k.slice("node-role.kubernetes.io/".length))
    .sort();
  const status = `${ready?.status === "True" ? "Ready" : ready ? "NotReady" : "Unknown"}${n.spec?.unschedulable ? ",SchedulingDisabled" : ""}`;
  return {
    name: n.metadata?.name ?? "",
    status,
    ready: ready?.status === "True",
    roles,
    version: n.status?.nodeInfo?.kubeletVersion ?? null,
    createdAt: iso(n.metadata?.creationTimestamp),
    addresses: (n.status?.addresses ?? []).map((a) => a.address),
  };
}

/** Why a pod's status as listed cannot be trusted: its node is gone (reset, deleted) or not Ready. */
export type PodDoubt = { node: string; why: "gone" | "not-ready" };

export type KnownPods = { rows: { pod: PodRow; doubt: PodDoubt | null }[]; ready: number; total: number; doubtful: number };

/**
 * The pods as far as they are known. The API keeps listing the pods of a node whose kubelet stopped
 * (a reset worker) with their last status until controllers clean them up, which a small or stalled
 * cluster may never do: such a pod is Running only on paper. Pods on a node that no longer exists or is
 * not Ready are marked, and only pods on Ready nodes count as Running and Ready.
 */
export function knownPods(pods: readonly PodRow[], nodes: Readonly<Record<string, NodeRow>>): KnownPods {
  let ready = 0;
  let doubtful = 0;
  const rows = pods.map((pod) => {
    const node = pod.node ? nodes[pod.node] : undefined;
    const doubt: PodDoubt | null = !pod.node ? null : !node ? { node: pod.node, why: "gone" } : !node.ready ? { node: pod.node, why: "not-ready" } : null;
    if (doubt) doubtful += 1;
    else if (pod.status === "Running" && pod.ready === pod.containers) ready += 1;
    return { pod, doubt };
  });
  return { rows, ready, total: pods.length, doubtful };
}

/** "Unknown" with the reason, for a pod whose node cannot vouch for it. */
export function doubtText(d: PodDoubt): string {
  return d.why === "gone" ? `its node ${d.node} is no longer in the cluster (reset or removed); the API still lists it` : `its node ${d.node} is not Ready: nothing reports on this pod`;
}
