// The lab's kube-controller-manager stand-in. It talks to the API server only through the API, like
// the real one, and runs the controllers bootstrapping depends on: DaemonSet, Deployment, ReplicaSet,
// CSR approval and signing (kubelet client certificates, with the cluster CA and openssl), node
// lifecycle (NotReady/Unknown and the not-ready/unreachable taints), service accounts (+ legacy token
// secrets before 1.24), kube-root-ca.crt, endpoints and garbage collection. Leader election uses a
// Lease in kube-system, as the real one does with --leader-elect.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { flagBool, parseFlags } from "./flags";
import { signJwt } from "./jwt";
import { ApiError, containerPath, Informer, KubeClient } from "./kube-client";
import { matchSelectorObject } from "./selectors";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Log = (l: string) => void;

const nowTs = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
const suffix = () => randomBytes(4).toString("hex").slice(0, 5);
const hash = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex").slice(0, 10);

export type ControllerManagerOptions = {
  kubeconfig: string;
  signingCertFile?: string;
  signingKeyFile?: string;
  rootCaFile?: string;
  serviceAccountKeyFile?: string;
  leaderElect: boolean;
  nodeMonitorGraceSeconds: number;
  version: string;
  /** --allocate-node-cidrs with --cluster-cidr: a /24 per node. */
  clusterCidr?: string;
};

export function controllerManagerOptions(argv: readonly string[], log: Log): ControllerManagerOptions {
  const f = parseFlags(
    argv,
    {
      kubeconfig: "string",
      "cluster-signing-cert-file": "string",
      "cluster-signing-key-file": "string",
      "root-ca-file": "string",
      "service-account-private-key-file": "string",
      "leader-elect": "bool",
      "node-monitor-grace-period": "string",
      "cluster-cidr": "string",
      "allocate-node-cidrs": "bool",
      master: "string",
    },
    false,
  );
  for (const u of f.unknown) if (u.startsWith("-")) log(`flag ${u.split("=")[0]} is accepted and ignored by the lab controller-manager`);
  const kubeconfig = f.values.get("kubeconfig");
  if (!kubeconfig) throw new Error("--kubeconfig is required by the lab controller-manager");
  const grace = /^(\d+)s$/.exec(f.values.get("node-monitor-grace-period") ?? "") ?? undefined;
  return {
    kubeconfig,
    signingCertFile: f.values.get("cluster-signing-cert-file"),
    signingKeyFile: f.values.get("cluster-signing-key-file"),
    rootCaFile: f.values.get("root-ca-file"),
    serviceAccountKeyFile: f.values.get("service-account-private-key-file"),
    leaderElect: flagBool(f, "leader-elect", true),
    nodeMonitorGraceSeconds: grace ? Number(grace[1]) : Number(process.env.BOOTDECK_LAB_NODE_GRACE || 40),
    version: process.env.BOOTDECK_LAB_K8S_VERSION ?? "v1.34.4",
    clusterCidr: flagBool(f, "allocate-node-cidrs") ? f.values.get("cluster-cidr") : undefined,
  };
}

/** Lease-based leader election (kube-system/<name>), renewed every 2 s, 15 s lease. */
export class LeaderElector {
  leading = false;
  private timer?: NodeJS.Timeout;
  readonly identity = `${os.hostname()}_${randomBytes(8).toString("hex")}`;

  constructor(
    private readonly client: KubeClient,
    private readonly name: string,
    private readonly log: Log,
    private readonly durationSec = 15,
  ) {}

  start(onChange: (leading: boolean) => void): void {
    const tick = async () => {
      const was = this.leading;
      try {
        this.leading = await this.tryAcquire();
      } catch {
        this.leading = false;
      }
      if (was !== this.leading) {
        this.log(this.leading ? `successfully acquired lease kube-system/${this.name}` : `lost lease kube-system/${this.name}`);
        onChange(this.leading);
      }
    };
    void tick();
    this.timer = setInterval(() => void tick(), 2_000);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private async tryAcquire(): Promise<boolean> {
    const p = `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${this.name}`;
    const cur = await this.client.getOrUndefined(p);
    const spec = { holderIdentity: this.identity, leaseDurationSeconds: this.durationSec, renewTime: new Date().toISOString().replace("Z", "000Z").replace(/(\.\d{6})\d*Z$/, "$1Z") };
    if (!cur) {
      await this.client.create("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", { metadata: { name: this.name }, spec: { ...spec, acquireTime: spec.renewTime, leaseTransitions: 0 } });
      return true;
    }
    const holder = cur.spec?.holderIdentity;
    const renewed = Date.parse(cur.spec?.renewTime ?? 0);
    const expired = Date.now() - renewed > (cur.spec?.leaseDurationSeconds ?? this.durationSec) * 1000;
    if (holder !== this.identity && !expired) return false;
    const transitions = (cur.spec?.leaseTransitions ?? 0) + (holder === this.identity ? 0 : 1);
    await this.client.update(p, { ...cur, spec: { ...cur.spec, ...spec, leaseTransitions: transitions, ...(holder === this.identity ? {} : { acquireTime: spec.renewTime }) } });
    return true;
  }
}

const DAEMON_TOLERATIONS = [
  { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
  { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
  { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
];

export function tolerates(tolerations: Obj[] | undefined, taint: Obj): boolean {
  return (tolerations ?? []).some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === "Exists") return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? "") === (taint.value ?? "");
  });
}

/** Would a pod with this spec fit the node by selector, required node affinity and NoSchedule/NoExecute taints? */
export function fitsNode(spec: Obj, node: Obj): { ok: true } | { ok: false; reason: string } {
  // The real scheduler's filter order: NodeUnschedulable, TaintToleration, NodeAffinity.
  if (node.spec?.unschedulable && !tolerates(spec.tolerations, { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" })) return { ok: false, reason: "were unschedulable" };
  for (const taint of node.spec?.taints ?? []) {
    if (taint.effect === "PreferNoSchedule") continue;
    if (!tolerates(spec.tolerations, taint)) return { ok: false, reason: `had untolerated taint {${taint.key}: ${taint.value ?? ""}}` };
  }
  const labels: Record<string, string> = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (labels[k] !== v) return { ok: false, reason: "didn't match Pod's node affinity/selector" };
  const terms: Obj[] = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  if (terms.length > 0) {
    const termOk = (t: Obj) =>
      (t.matchExpressions ?? []).every((e: Obj) => exprOk(e, labels[e.key])) && (t.matchFields ?? []).every((e: Obj) => exprOk(e, e.key === "metadata.name" ? node.metadata.name : undefined));
    if (!terms.some(termOk)) return { ok: false, reason: "didn't match Pod's node affinity/selector" };
  }
  return { ok: true };
}

function exprOk(e: Obj, v: string | undefined): boolean {
  switch (e.operator) {
    case "In":
      return v !== undefined && (e.values ?? []).includes(v);
    case "NotIn":
      return v === undefined || !(e.values ?? []).includes(v);
    case "Exists":
      return v !== undefined;
    case "DoesNotExist":
      return v === undefined;
    default:
      return false;
  }
}

export const isReadyPod = (p: Obj) => (p.status?.conditions ?? []).some((c: Obj) => c.type === "Ready" && c.status === "True");
const isActive = (p: Obj) => !p.metadata?.deletionTimestamp && !["Succeeded", "Failed"].includes(p.status?.phase);
const ownedBy = (o: Obj, uid: string) => (o.metadata?.ownerReferences ?? []).some((r: Obj) => r.uid === uid && r.controller);
const ownerRef = (owner: Obj, apiVersion: string, kind: string) => ({ apiVersion, kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true });
const nodeReady = (n: Obj) => (n.status?.conditions ?? []).find((c: Obj) => c.type === "Ready");

export class ControllerManager {
  readonly client: KubeClient;
  private informers: Record<string, Informer> = {};
  private elector?: LeaderElector;
  private timer?: NodeJS.Timeout;
  private busy = false;
  private dirty = true;
  private stopped = false;

  constructor(
    readonly opts: ControllerManagerOptions,
    private readonly log: Log = (l) => process.stderr.write(`${l}\n`),
    client?: KubeClient,
  ) {
    this.client = client ?? KubeClient.fromKubeconfig(opts.kubeconfig);
  }

  start(): void {
    const mark = () => {
      this.dirty = true;
    };
    const paths: Record<string, string> = {
      nodes: "/api/v1/nodes",
      pods: "/api/v1/pods",
      daemonsets: "/apis/apps/v1/daemonsets",
      deployments: "/apis/apps/v1/deployments",
      replicasets: "/apis/apps/v1/replicasets",
      csrs: "/apis/certificates.k8s.io/v1/certificatesigningrequests",
      namespaces: "/api/v1/namespaces",
      serviceaccounts: "/api/v1/serviceaccounts",
      services: "/api/v1/services",
      leases: "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
    };
    const run = () => {
      for (const [k, p] of Object.entries(paths)) this.informers[k] = new Informer(this.client, p, mark, this.log).run();
      this.timer = setInterval(() => void this.tick(), 500);
    };
    if (!this.opts.leaderElect) return run();
    this.elector = new LeaderElector(this.client, "kube-controller-manager", this.log);
    this.elector.start((leading) => {
      if (leading && !this.timer) run();
      if (!leading && this.timer) this.pause();
    });
  }

  private pause(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const i of Object.values(this.informers)) i.stop();
    this.informers = {};
  }

  stop(): void {
    this.stopped = true;
    this.elector?.stop();
    this.pause();
  }

  private lastPeriodic = 0;
  /** Expectations, as in the real controllers: objects created for an owner that the informer has not shown yet. */
  private readonly expected = new Map<string, { names: string[]; until: number }>();

  private awaiting(ownerUid: string, kind: string): boolean {
    const e = this.expected.get(ownerUid);
    if (!e) return false;
    const seen = new Set(this.list(kind).map((o) => o.metadata.name));
    if (Date.now() > e.until || e.names.every((n) => seen.has(n))) {
      this.expected.delete(ownerUid);
      return false;
    }
    return true;
  }

  private expect(ownerUid: string, name: string): void {
    const e = this.expected.get(ownerUid) ?? { names: [], until: 0 };
    e.names.push(name);
    e.until = Date.now() + 10_000;
    this.expected.set(ownerUid, e);
  }

  private async tick(): Promise<void> {
    if (this.busy || this.stopped) return;
    if (!Object.values(this.informers).every((i) => i.synced)) return;
    const periodic = Date.now() - this.lastPeriodic > 5_000;
    if (!this.dirty && !periodic) return;
    this.busy = true;
    this.dirty = false;
    if (periodic) this.lastPeriodic = Date.now();
    try {
      for (const step of [this.serviceAccounts, this.csrs, this.nodeLifecycle, this.deployments, this.replicaSets, this.daemonSets, this.endpoints, this.garbage]) {
        try {
          await step.call(this);
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 409)) this.log(`controller: ${(e as Error).message}`);
          this.dirty = true;
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private list(kind: string): Obj[] {
    return this.informers[kind]?.list() ?? [];
  }

  async event(involved: Obj, reason: string, message: string, type = "Normal", component = "controller-manager"): Promise<void> {
    const ns = involved.metadata?.namespace ?? "default";
    await this.client
      .create(`/api/v1/namespaces/${ns}/events`, {
        metadata: { name: `${involved.metadata?.name}.${Date.now().toString(16)}${suffix()}`, namespace: ns },
        involvedObject: { kind: involved.kind, namespace: involved.metadata?.namespace, name: involved.metadata?.name, uid: involved.metadata?.uid, apiVersion: involved.apiVersion },
        reason,
        message,
        type,
        source: { component },
        firstTimestamp: nowTs(),
        lastTimestamp: nowTs(),
        count: 1,
      })
      .catch(() => undefined);
  }

  // ---------------------------------------------------------------- service accounts and root CA
  private async serviceAccounts(): Promise<void> {
    const sas = this.list("serviceaccounts");
    const minor = Number(/^v1\.(\d+)/.exec(this.opts.version)?.[1] ?? 32);
    const rootCa = this.opts.rootCaFile ? fs.readFileSync(containerPath(this.opts.rootCaFile), "utf8") : undefined;
    for (const ns of this.list("namespaces")) {
      if (ns.status?.phase === "Terminating") continue;
      const name = ns.metadata.name;
      if (!sas.some((s) => s.metadata.namespace === name && s.metadata.name === "default"))
        await this.client.create(`/api/v1/namespaces/${name}/serviceaccounts`, { metadata: { name: "default" } }).catch(ignore409);
      if (rootCa && minor >= 20 && this.rootCaPublished.get(name) !== rootCa) {
        const body = { metadata: { name: "kube-root-ca.crt", namespace: name }, data: { "ca.crt": rootCa } };
        await this.client.update(`/api/v1/namespaces/${name}/configmaps/kube-root-ca.crt`, body).catch(() => this.client.create(`/api/v1/namespaces/${name}/configmaps`, body).catch(ignore409));
        this.rootCaPublished.set(name, rootCa);
      }
    }
    // Legacy token secrets (the token controller) for versions before 1.24, signed with the SA key.
    if (minor < 24 && this.opts.serviceAccountKeyFile) {
      const key = fs.readFileSync(containerPath(this.opts.serviceAccountKeyFile), "utf8");
      for (const sa of sas) {
        if ((sa.secrets ?? []).length > 0) continue;
        const secretName = `${sa.metadata.name}-token-${suffix()}`;
        const token = signJwt(
          {
            iss: "kubernetes/serviceaccount",
            "kubernetes.io/serviceaccount/namespace": sa.metadata.namespace,
            "kubernetes.io/serviceaccount/secret.name": secretName,
            "kubernetes.io/serviceaccount/service-account.name": sa.metadata.name,
            "kubernetes.io/serviceaccount/service-account.uid": sa.metadata.uid,
            sub: `system:serviceaccount:${sa.metadata.namespace}:${sa.metadata.name}`,
          },
          key,
        );
        await this.client.create(`/api/v1/namespaces/${sa.metadata.namespace}/secrets`, {
          metadata: { name: secretName, annotations: { "kubernetes.io/service-account.name": sa.metadata.name, "kubernetes.io/service-account.uid": sa.metadata.uid } },
          type: "kubernetes.io/service-account-token",
          data: { token: Buffer.from(token).toString("base64"), namespace: Buffer.from(sa.metadata.namespace).toString("base64"), ...(rootCa ? { "ca.crt": Buffer.from(rootCa).toString("base64") } : {}) },
        });
        await this.client.patch(`/api/v1/namespaces/${sa.metadata.namespace}/serviceaccounts/${sa.metadata.name}`, { secrets: [{ name: secretName }] });
      }
    }
  }

  private rootCaPublished = new Map<string, string>();

  // ---------------------------------------------------------------- certificates
  private async csrs(): Promise<void> {
    for (const csr of this.list("csrs")) {
      const conds: Obj[] = csr.status?.conditions ?? [];
      const approved = conds.some((c) => c.type === "Approved");
      const denied = conds.some((c) => c.type === "Denied" || c.type === "Failed");
      const signer = csr.spec?.signerName ?? "kubernetes.io/kube-apiserver-client-kubelet";
      const p = `/apis/certificates.k8s.io/v1/certificatesigningrequests/${csr.metadata.name}`;
      if (!approved && !denied && signer === "kubernetes.io/kube-apiserver-client-kubelet") {
        const groups: string[] = csr.spec?.groups ?? [];
        const subject = csrSubject(Buffer.from(csr.spec?.request ?? "", "base64").toString());
        const selfRenewal = groups.includes("system:nodes") && subject.cn === csr.spec?.username;
        if ((groups.includes("system:bootstrappers") || selfRenewal) && /^system:node:/.test(subject.cn ?? "") && subject.o.includes("system:nodes")) {
          conds.push({ type: "Approved", status: "True", reason: "AutoApproved", message: "Auto approving kubelet client certificate after SubjectAccessReview.", lastUpdateTime: nowTs(), lastTransitionTime: nowTs() });
          await this.client.update(`${p}/approval`, { ...csr, status: { ...csr.status, conditions: conds } });
          this.log(`approved CSR ${csr.metadata.name} for ${subject.cn}`);
          continue;
        }
      }
      if (approved && !denied && !csr.status?.certificate && this.opts.signingCertFile && this.opts.signingKeyFile) {
        if (!["kubernetes.io/kube-apiserver-client-kubelet", "kubernetes.io/kube-apiserver-client", "kubernetes.io/kubelet-serving"].includes(signer)) continue;
        const cert = signCsr(
          Buffer.from(csr.spec.request, "base64").toString(),
          containerPath(this.opts.signingCertFile),
          containerPath(this.opts.signingKeyFile),
          signer === "kubernetes.io/kubelet-serving" ? "serverAuth" : "clientAuth",
          Math.min(365 * 86400, Number(csr.spec?.expirationSeconds ?? 365 * 86400)),
        );
        await this.client.update(`${p}/status`, { ...csr, status: { ...csr.status, certificate: Buffer.from(cert).toString("base64") } });
        this.log(`signed CSR ${csr.metadata.name}`);
      }
    }
  }

  // ---------------------------------------------------------------- nodes
  private async nodeLifecycle(): Promise<void> {
    const leases = new Map(this.list("leases").map((l) => [l.metadata.name, l]));
    const graceMs = this.opts.nodeMonitorGraceSeconds * 1000;
    if (this.opts.clusterCidr) {
      const [a = 10, b = 244] = (this.opts.clusterCidr.split("/")[0] ?? "").split(".").map(Number);
      const used = new Set(this.list("nodes").map((n) => n.spec?.podCIDR).filter(Boolean));
      for (const node of this.list("nodes").filter((n) => !n.spec?.podCIDR)) {
        let third = 0;
        while (used.has(`${a}.${b}.${third}.0/24`) && third < 255) third++;
        const cidr = `${a}.${b}.${third}.0/24`;
        used.add(cidr);
        await this.client.patch(`/api/v1/nodes/${node.metadata.name}`, { spec: { podCIDR: cidr, podCIDRs: [cidr] } });
      }
    }
    for (const node of this.list("nodes")) {
      const ready = nodeReady(node);
      const heartbeat = Math.max(Date.parse(ready?.lastHeartbeatTime ?? 0) || 0, Date.parse(leases.get(node.metadata.name)?.spec?.renewTime ?? 0) || 0);
      const p = `/api/v1/nodes/${node.metadata.name}`;
      if (ready && ready.status !== "Unknown" && heartbeat > 0 && Date.now() - heartbeat > graceMs) {
        const conditions = (node.status?.conditions ?? []).map((c: Obj) =>
          c.type === "Ready" ? { ...c, status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastTransitionTime: nowTs() } : c,
        );
        await this.client.patch(`${p}/status`, { status: { conditions } }, "merge");
        this.log(`node ${node.metadata.name}: Kubelet stopped posting node status; marking it NotReady (Unknown)`);
        await this.event({ ...node, kind: "Node", apiVersion: "v1" }, "NodeNotReady", `Node ${node.metadata.name} status is now: NodeNotReady`);
        for (const pod of this.list("pods").filter((x) => x.spec?.nodeName === node.metadata.name)) {
          const pc = (pod.status?.conditions ?? []).map((c: Obj) => (c.type === "Ready" ? { ...c, status: "False", lastTransitionTime: nowTs() } : c));
          await this.client.patch(`/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}/status`, { status: { conditions: pc } }).catch(() => undefined);
        }
        continue;
      }
      // Taints follow the Ready condition (TaintNodesByCondition).
      const want = ready?.status === "True" ? undefined : ready?.status === "Unknown" ? "node.kubernetes.io/unreachable" : "node.kubernetes.io/not-ready";
      const taints: Obj[] = node.spec?.taints ?? [];
      const managed = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"];
      const have = taints.filter((t) => managed.includes(t.key) && t.effect === "NoSchedule").map((t) => t.key);
      if (JSON.stringify(have) !== JSON.stringify(want ? [want] : [])) {
        const next = [...taints.filter((t) => !(managed.includes(t.key) && t.effect === "NoSchedule")), ...(want ? [{ key: want, effect: "NoSchedule", timeAdded: nowTs() }] : [])];
        await this.client.patch(p, { spec: { taints: next.length ? next : null } });
      }
    }
  }

  // ---------------------------------------------------------------- workloads
  private async deployments(): Promise<void> {
    const rss = this.list("replicasets");
    for (const d of this.list("deployments")) {
      if (d.metadata.deletionTimestamp || this.awaiting(d.metadata.uid, "replicasets")) continue;
      const ns = d.metadata.namespace;
      const tmplHash = hash(d.spec?.template);
      const owned = rss.filter((r) => r.metadata.namespace === ns && ownedBy(r, d.metadata.uid));
      const name = `${d.metadata.name}-${tmplHash}`;
      let current = owned.find((r) => r.metadata.name === name);
      const replicas = d.spec?.replicas ?? 1;
      if (!current) {
        const labels = { ...(d.spec?.template?.metadata?.labels ?? {}), "pod-template-hash": tmplHash };
        current = await this.client.create(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
          metadata: { name, labels, ownerReferences: [ownerRef(d, "apps/v1", "Deployment")], annotations: { "deployment.kubernetes.io/revision": String(owned.length + 1) } },
          spec: {
            replicas,
            selector: { matchLabels: { ...(d.spec?.selector?.matchLabels ?? {}), "pod-template-hash": tmplHash }, matchExpressions: d.spec?.selector?.matchExpressions },
            template: { ...d.spec.template, metadata: { ...(d.spec.template.metadata ?? {}), labels } },
          },
        });
        this.expect(d.metadata.uid, name);
        await this.event({ ...d, kind: "Deployment", apiVersion: "apps/v1" }, "ScalingReplicaSet", `Scaled up replica set ${name} to ${replicas}`, "Normal", "deployment-controller");
      } else if ((current.spec?.replicas ?? 1) !== replicas) {
        await this.client.patch(`/apis/apps/v1/namespaces/${ns}/replicasets/${name}`, { spec: { replicas } });
      }
      for (const old of owned.filter((r) => r.metadata.name !== name && (r.spec?.replicas ?? 0) > 0))
        await this.client.patch(`/apis/apps/v1/namespaces/${ns}/replicasets/${old.metadata.name}`, { spec: { replicas: 0 } });
      const all = owned.length ? owned : [current];
      const status = {
        observedGeneration: d.metadata.generation,
        replicas: all.reduce((n, r) => n + (r.status?.replicas ?? 0), 0),
        updatedReplicas: current?.status?.replicas ?? 0,
        readyReplicas: all.reduce((n, r) => n + (r.status?.readyReplicas ?? 0), 0),
        availableReplicas: all.reduce((n, r) => n + (r.status?.availableReplicas ?? 0), 0),
      };
      const available = status.availableReplicas >= replicas;
      const conditions = [{ type: "Available", status: available ? "True" : "False", reason: available ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable", message: available ? "Deployment has minimum availability." : "Deployment does not have minimum availability." }];
      if (JSON.stringify({ ...d.status, conditions: undefined }) !== JSON.stringify({ ...d.status, ...status, conditions: undefined }) || (d.status?.conditions?.[0]?.status !== conditions[0]?.status))
        await this.client.patch(`/apis/apps/v1/namespaces/${ns}/deployments/${d.metadata.name}/status`, { status: { ...status, conditions } });
    }
  }

  private async replicaSets(): Promise<void> {
    const pods = this.list("pods");
    for (const rs of this.list("replicasets")) {
      if (rs.metadata.deletionTimestamp || this.awaiting(rs.metadata.uid, "pods")) continue;
      const ns = rs.metadata.namespace;
      const mine = pods.filter((p) => p.metadata.namespace === ns && ownedBy(p, rs.metadata.uid) && isActive(p));
      const want = rs.spec?.replicas ?? 1;
      for (let i = mine.length; i < want; i++) {
        const pod = await this.client.create(`/api/v1/namespaces/${ns}/pods`, {
          metadata: { name: `${rs.metadata.name}-${suffix()}`, labels: rs.spec.template?.metadata?.labels, annotations: rs.spec.template?.metadata?.annotations, ownerReferences: [ownerRef(rs, "apps/v1", "ReplicaSet")] },
          spec: rs.spec.template?.spec,
        });
        this.expect(rs.metadata.uid, pod.metadata.name);
        await this.event({ ...rs, kind: "ReplicaSet", apiVersion: "apps/v1" }, "SuccessfulCreate", `Created pod: ${pod.metadata.name}`, "Normal", "replicaset-controller");
      }
      if (mine.length > want) {
        const victims = [...mine].sort((a, b) => Number(isReadyPod(a)) - Number(isReadyPod(b)) || (a.spec?.nodeName ? 1 : 0) - (b.spec?.nodeName ? 1 : 0)).slice(0, mine.length - want);
        for (const v of victims) await this.client.delete(`/api/v1/namespaces/${ns}/pods/${v.metadata.name}`).catch(() => undefined);
      }
      const ready = mine.filter(isReadyPod).length;
      const status = { replicas: mine.length, fullyLabeledReplicas: mine.length, readyReplicas: ready, availableReplicas: ready, observedGeneration: rs.metadata.generation };
      if (JSON.stringify(pick(rs.status, status)) !== JSON.stringify(status)) await this.client.patch(`/apis/apps/v1/namespaces/${ns}/replicasets/${rs.metadata.name}/status`, { status });
    }
  }

  private async daemonSets(): Promise<void> {
    const pods = this.list("pods");
    const nodes = this.list("nodes");
    for (const ds of this.list("daemonsets")) {
      if (ds.metadata.deletionTimestamp || this.awaiting(ds.metadata.uid, "pods")) continue;
      const ns = ds.metadata.namespace;
      const tmplSpec: Obj = ds.spec?.template?.spec ?? {};
      const tolerations = [...(tmplSpec.tolerations ?? []), ...DAEMON_TOLERATIONS, ...(tmplSpec.hostNetwork ? [{ key: "node.kubernetes.io/network-unavailable", operator: "Exists", effect: "NoSchedule" }] : [])];
      const mine = pods.filter((p) => p.metadata.namespace === ns && ownedBy(p, ds.metadata.uid));
      const gen = hash(ds.spec?.template);
      let desired = 0;
      for (const node of nodes) {
        const nodeName = node.metadata.name;
        // As in the real controller: the template's tolerations plus the daemon ones; a NotReady node's
        // not-ready:NoSchedule taint keeps daemons that do not tolerate it off (bootkube #827's hang).
        const fit = fitsNode({ ...tmplSpec, tolerations, affinity: undefined }, node);
        const onNode = mine.filter((p) => podNodeTarget(p) === nodeName && isActive(p));
        if (!fit.ok) {
          for (const p of onNode) await this.client.delete(`/api/v1/namespaces/${ns}/pods/${p.metadata.name}`).catch(() => undefined);
          continue;
        }
        desired++;
        const stale = onNode.filter((p) => p.metadata?.labels?.["pod-template-generation"] !== gen);
        if (onNode.length === 0 || (stale.length === onNode.length && (ds.spec?.updateStrategy?.type ?? "RollingUpdate") === "RollingUpdate")) {
          for (const p of stale) await this.client.delete(`/api/v1/namespaces/${ns}/pods/${p.metadata.name}`).catch(() => undefined);
          const labels = { ...(ds.spec.template?.metadata?.labels ?? {}), "controller-revision-hash": gen, "pod-template-generation": gen };
          const pod = await this.client.create(`/api/v1/namespaces/${ns}/pods`, {
            metadata: { generateName: `${ds.metadata.name}-`, labels, annotations: ds.spec.template?.metadata?.annotations, ownerReferences: [ownerRef(ds, "apps/v1", "DaemonSet")] },
            spec: {
              ...tmplSpec,
              tolerations,
              affinity: { ...(tmplSpec.affinity ?? {}), nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: [nodeName] }] }] } } },
            },
          });
          this.expect(ds.metadata.uid, pod.metadata.name);
          await this.event({ ...ds, kind: "DaemonSet", apiVersion: "apps/v1" }, "SuccessfulCreate", `Created pod: ${pod.metadata.name}`, "Normal", "daemonset-controller");
        }
      }
      const active = mine.filter(isActive);
      const status = {
        desiredNumberScheduled: desired,
        currentNumberScheduled: active.length,
        numberReady: active.filter(isReadyPod).length,
        numberAvailable: active.filter(isReadyPod).length,
        updatedNumberScheduled: active.filter((p) => p.metadata?.labels?.["pod-template-generation"] === gen).length,
        numberMisscheduled: 0,
        observedGeneration: ds.metadata.generation,
      };
      if (JSON.stringify(pick(ds.status, status)) !== JSON.stringify(status)) await this.client.patch(`/apis/apps/v1/namespaces/${ns}/daemonsets/${ds.metadata.name}/status`, { status });
    }
  }

  private async endpoints(): Promise<void> {
    const pods = this.list("pods");
    for (const svc of this.list("services")) {
      if (!svc.spec?.selector || svc.metadata.name === "kubernetes") continue;
      const ns = svc.metadata.namespace;
      const sel = { matchLabels: svc.spec.selector };
      const backing = pods.filter((p) => p.metadata.namespace === ns && isActive(p) && p.status?.podIP && matchSelectorObject(sel, p.metadata.labels));
      const addresses = backing.filter(isReadyPod).map((p) => ({ ip: p.status.podIP, nodeName: p.spec.nodeName, targetRef: { kind: "Pod", namespace: ns, name: p.metadata.name, uid: p.metadata.uid } }));
      const notReadyAddresses = backing.filter((p) => !isReadyPod(p)).map((p) => ({ ip: p.status.podIP, nodeName: p.spec.nodeName }));
      const ports = (svc.spec.ports ?? []).map((p: Obj) => ({ name: p.name, port: typeof p.targetPort === "number" ? p.targetPort : p.port, protocol: p.protocol ?? "TCP" }));
      const subsets = addresses.length || notReadyAddresses.length ? [{ ...(addresses.length ? { addresses } : {}), ...(notReadyAddresses.length ? { notReadyAddresses } : {}), ports }] : [];
      const key = `${ns}/${svc.metadata.name}`;
      const sig = JSON.stringify(subsets);
      if (this.endpointsSeen.get(key) === sig) continue;
      await this.client.update(`/api/v1/namespaces/${ns}/endpoints/${svc.metadata.name}`, { metadata: { name: svc.metadata.name, namespace: ns }, subsets });
      this.endpointsSeen.set(key, sig);
    }
  }

  private endpointsSeen = new Map<string, string>();

  /** Deletes dependents whose controlling owner is gone (background cascading deletion). */
  private async garbage(): Promise<void> {
    const uids = new Set([...this.list("deployments"), ...this.list("replicasets"), ...this.list("daemonsets"), ...this.list("nodes")].map((o) => o.metadata.uid));
    const orphaned = (o: Obj) => {
      const refs: Obj[] = (o.metadata?.ownerReferences ?? []).filter((r: Obj) => ["Deployment", "ReplicaSet", "DaemonSet"].includes(r.kind));
      return refs.length > 0 && refs.every((r) => !uids.has(r.uid));
    };
    for (const rs of this.list("replicasets").filter(orphaned)) await this.client.delete(`/apis/apps/v1/namespaces/${rs.metadata.namespace}/replicasets/${rs.metadata.name}`).catch(() => undefined);
    for (const p of this.list("pods").filter(orphaned)) if (!p.metadata.deletionTimestamp) await this.client.delete(`/api/v1/namespaces/${p.metadata.namespace}/pods/${p.metadata.name}`).catch(() => undefined);
  }
}

function pick(cur: Obj | undefined, like: Obj): Obj {
  return Object.fromEntries(Object.keys(like).map((k) => [k, cur?.[k]]));
}

function ignore409(e: unknown): void {
  if (e instanceof ApiError && e.code === 409) return;
  throw e;
}

/** The node a pod is bound to, or the one its daemon node affinity names. */
export function podNodeTarget(p: Obj): string | undefined {
  if (p.spec?.nodeName) return p.spec.nodeName;
  for (const t of p.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [])
    for (const f of t.matchFields ?? []) if (f.key === "metadata.name") return f.values?.[0];
  return undefined;
}

/** Subject of a PEM CSR (CN, O list), read with openssl. */
export function csrSubject(csrPem: string): { cn?: string; o: string[] } {
  try {
    const out = execFileSync("openssl", ["req", "-noout", "-subject", "-nameopt", "RFC2253"], { input: csrPem, encoding: "utf8" });
    const dn = out.replace(/^subject=/, "").trim();
    const parts = dn.split(/,(?=[A-Z]+=)/);
    return { cn: parts.find((p) => p.startsWith("CN="))?.slice(3), o: parts.filter((p) => p.startsWith("O=")).map((p) => p.slice(2)) };
  } catch {
    return { o: [] };
  }
}

/** Signs a CSR with the CA through openssl, as the csrsigning controller does with its CA files. */
export function signCsr(csrPem: string, caCert: string, caKey: string, usage: "clientAuth" | "serverAuth", seconds: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lab-csr-"));
  try {
    fs.writeFileSync(path.join(dir, "req.csr"), csrPem);
    fs.writeFileSync(path.join(dir, "ext.cnf"), `keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=${usage}\nbasicConstraints=critical,CA:FALSE\n`);
    return execFileSync(
      "openssl",
      ["x509", "-req", "-in", path.join(dir, "req.csr"), "-CA", caCert, "-CAkey", caKey, "-set_serial", `0x${randomBytes(16).toString("hex").replace(/^./, "1")}`, "-days", String(Math.max(1, Math.round(seconds / 86400))), "-sha256", "-extfile", path.join(dir, "ext.cnf")],
      { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runControllerManager(argv: readonly string[]): Promise<ControllerManager> {
  const log: Log = (l) => process.stderr.write(`I${new Date().toISOString()} controller-manager] ${l}\n`);
  const cm = new ControllerManager(controllerManagerOptions(argv, log), log);
  cm.start();
  return cm;
}
