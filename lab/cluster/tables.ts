// Server-side printing: the meta.k8s.io/v1 Table kubectl asks for (`Accept: …;as=Table`), with the
// columns the real API server prints for the kinds bootstrapping looks at.
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Col = { name: string; type: string; format?: string; priority?: number; description?: string };

export function age(ts: string | undefined, now = Date.now()): string {
  if (!ts) return "<unknown>";
  const s = Math.max(0, Math.floor((now - Date.parse(ts)) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 ? `${s % 60}s` : ""}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

function podStatus(p: Obj): string {
  if (p.metadata?.deletionTimestamp) return "Terminating";
  let reason: string = p.status?.reason ?? p.status?.phase ?? "Pending";
  for (const c of p.status?.containerStatuses ?? []) {
    if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
    else if (c.state?.terminated?.reason && p.status?.phase !== "Running") reason = c.state.terminated.reason;
  }
  return reason;
}

function nodeRoles(n: Obj): string {
  const roles = Object.keys(n.metadata?.labels ?? {})
    .filter((k) => k.startsWith("node-role.kubernetes.io/"))
    .map((k) => k.slice("node-role.kubernetes.io/".length))
    .filter(Boolean);
  if (n.metadata?.labels?.["kubernetes.io/role"]) roles.push(n.metadata.labels["kubernetes.io/role"]);
  return roles.length ? roles.sort().join(",") : "<none>";
}

function nodeStatus(n: Obj): string {
  const ready = (n.status?.conditions ?? []).find((c: Obj) => c.type === "Ready");
  let s = ready?.status === "True" ? "Ready" : ready ? "NotReady" : "Unknown";
  if (n.spec?.unschedulable) s += ",SchedulingDisabled";
  return s;
}

const addr = (n: Obj, type: string) => (n.status?.addresses ?? []).find((a: Obj) => a.type === type)?.address ?? "<none>";

const TABLES: Record<string, { cols: Col[]; cells: (o: Obj) => unknown[] }> = {
  pods: {
    cols: [
      { name: "Name", type: "string", format: "name" },
      { name: "Ready", type: "string" },
      { name: "Status", type: "string" },
      { name: "Restarts", type: "string" },
      { name: "Age", type: "string" },
      { name: "IP", type: "string", priority: 1 },
      { name: "Node", type: "string", priority: 1 },
      { name: "Nominated Node", type: "string", priority: 1 },
      { name: "Readiness Gates", type: "string", priority: 1 },
    ],
    cells: (p) => {
      const cs: Obj[] = p.status?.containerStatuses ?? [];
      const total = (p.spec?.containers ?? []).length;
      return [
        p.metadata.name,
        `${cs.filter((c) => c.ready).length}/${total}`,
        podStatus(p),
        String(cs.reduce((n, c) => n + (c.restartCount ?? 0), 0)),
        age(p.metadata.creationTimestamp),
        p.status?.podIP ?? "<none>",
        p.spec?.nodeName ?? "<none>",
        "<none>",
        "<none>",
      ];
    },
  },
  nodes: {
    cols: [
      { name: "Name", type: "string", format: "name" },
      { name: "Status", type: "string" },
      { name: "Roles", type: "string" },
      { name: "Age", type: "string" },
      { name: "Version", type: "string" },
      { name: "Internal-IP", type: "string", priority: 1 },
      { name: "External-IP", type: "string", priority: 1 },
      { name: "OS-Image", type: "string", priority: 1 },
      { name: "Kernel-Version", type: "string", priority: 1 },
      { name: "Container-Runtime", type: "string", priority: 1 },
    ],
    cells: (n) => [
      n.metadata.name,
      nodeStatus(n),
      nodeRoles(n),
      age(n.metadata.creationTimestamp),
      n.status?.nodeInfo?.kubeletVersion ?? "",
      addr(n, "InternalIP"),
      addr(n, "ExternalIP"),
      n.status?.nodeInfo?.osImage ?? "<unknown>",
      n.status?.nodeInfo?.kernelVersion ?? "<unknown>",
      n.status?.nodeInfo?.containerRuntimeVersion ?? "<unknown>",
    ],
  },
  namespaces: {
    cols: [
      { name: "Name", type: "string", format: "name" },
      { name: "Status", type: "string" },
      { name: "Age", type: "string" },
    ],
    cells: (o) => [o.metadata.name, o.status?.phase ?? "Active", age(o.metadata.creationTimestamp)],
  },
  deployments: {
    cols: ["Name", "Ready", "Up-to-date", "Available", "Age"].map((name) => ({ name, type: "string" })),
    cells: (d) => [
      d.metadata.name,
      `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 1}`,
      d.status?.updatedReplicas ?? 0,
      d.status?.availableReplicas ?? 0,
      age(d.metadata.creationTimestamp),
    ],
  },
  replicasets: {
    cols: ["Name", "Desired", "Current", "Ready", "Age"].map((name) => ({ name, type: "string" })),
    cells: (d) => [d.metadata.name, d.spec?.replicas ?? 1, d.status?.replicas ?? 0, d.status?.readyReplicas ?? 0, age(d.metadata.creationTimestamp)],
  },
  daemonsets: {
    cols: ["Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age"].map((name) => ({ name, type: "string" })),
    cells: (d) => [
      d.metadata.name,
      d.status?.desiredNumberScheduled ?? 0,
      d.status?.currentNumberScheduled ?? 0,
      d.status?.numberReady ?? 0,
      d.status?.updatedNumberScheduled ?? 0,
      d.status?.numberAvailable ?? 0,
      Object.entries(d.spec?.template?.spec?.nodeSelector ?? {}).map(([k, v]) => `${k}=${v}`).join(",") || "<none>",
      age(d.metadata.creationTimestamp),
    ],
  },
  services: {
    cols: ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age"].map((name) => ({ name, type: "string" })),
    cells: (s) => [
      s.metadata.name,
      s.spec?.type ?? "ClusterIP",
      s.spec?.clusterIP ?? "<none>",
      "<none>",
      (s.spec?.ports ?? []).map((p: Obj) => `${p.port}/${p.protocol ?? "TCP"}`).join(",") || "<none>",
      age(s.metadata.creationTimestamp),
    ],
  },
  certificatesigningrequests: {
    cols: ["Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"].map((name) => ({ name, type: "string" })),
    cells: (c) => {
      const conds = (c.status?.conditions ?? []).map((x: Obj) => x.type);
      if (c.status?.certificate) conds.push("Issued");
      return [c.metadata.name, age(c.metadata.creationTimestamp), c.spec?.signerName ?? "", c.spec?.username ?? "", "<none>", conds.join(",") || "Pending"];
    },
  },
};

const DEFAULT = {
  cols: [
    { name: "Name", type: "string", format: "name" },
    { name: "Age", type: "string" },
  ] as Col[],
  cells: (o: Obj) => [o.metadata?.name, age(o.metadata?.creationTimestamp)],
};

export function toTable(plural: string, items: Obj[], resourceVersion: string, includeObject: string | null, withHeaders = true): Obj {
  const t = TABLES[plural] ?? DEFAULT;
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: { resourceVersion },
    columnDefinitions: withHeaders ? t.cols.map((c) => ({ name: c.name, type: c.type, format: c.format ?? "", description: c.description ?? "", priority: c.priority ?? 0 })) : [],
    rows: items.map((o) => ({
      cells: t.cells(o),
      object:
        includeObject === "None"
          ? undefined
          : includeObject === "Object"
            ? o
            : { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: o.metadata },
    })),
  };
}
