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
  state: "connecting" | "connected" | "unreachable" | "not-bootstrapped";
  since: string;
  message?: string;
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
