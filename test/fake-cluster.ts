// Test doubles for running the engine without hosts: an SSH executor that records every command and
// upload it is asked to send (and answers like healthy hosts do), and a cluster API whose nodes and
// control plane are up. With them a whole bootstrap runs in a unit test in about a second, and a test
// can compare what reached "the hosts" with what the plan showed.
import { createHash } from "node:crypto";
import net from "node:net";
import type { Duplex } from "node:stream";
import tls from "node:tls";
import type * as k8s from "@kubernetes/client-node";
import type { EngineExecutor } from "../lib/engine/actions/types";
import type { ClusterApiClient, RawResponse } from "../lib/engine/cluster-api";
import type { ExecOptions, ExecResult, HostTarget } from "../lib/ssh";
import type { FileSpec } from "../lib/ssh/upload";
import { LOCKED_EXIT } from "../lib/engine/actions/host-scripts";

export type RecordedRun = { host: string; argv: string[]; step: string };
export type RecordedUpload = { host: string; step: string; files: { path: string; mode: number; sha256: string; size: number }[] };

/** What a fake host answers: stdout and exit code, or undefined for the default answer. */
export type Reply = { stdout?: string; stderr?: string[]; exitCode?: number; error?: Error; delayMs?: number } | undefined;

const result = (host: string, step: string, r: { stdout?: string; stderr?: string[]; exitCode?: number }): ExecResult => ({
  host,
  step,
  exitCode: r.exitCode ?? 0,
  stdout: Buffer.from(r.stdout ?? ""),
  stderrTail: r.stderr ?? [],
  durationMs: 1,
});

/** The name a fixed script runs under (`sh -c SCRIPT NAME …`), or the command itself. */
export function scriptName(argv: readonly string[]): string {
  return argv[0] === "sh" && argv[1] === "-c" ? (argv[3] ?? "") : (argv[0] ?? "");
}

export class RecordingExecutor implements EngineExecutor {
  readonly runs: RecordedRun[] = [];
  readonly uploads: RecordedUpload[] = [];
  /** The host-side run lock of each fake host (what /var/lib/bootdeck/run.lock holds). */
  readonly locks = new Map<string, string>();
  private readonly removed = new Set<string>();

  constructor(private readonly reply: (call: RecordedRun) => Reply = () => undefined) {}

  async run(host: HostTarget, argv: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> {
    const call = { host: host.id, argv: [...argv], step: opts.step ?? "" };
    this.runs.push(call);
    const custom = this.reply(call);
    if (custom?.delayMs) await sleep(custom.delayMs, opts.signal);
    if (custom?.error) throw custom.error;
    const answer = custom ?? this.answer(call);
    if ((answer.exitCode ?? 0) !== 0 && !opts.allowFailure) throw new Error(`${call.host}: ${scriptName(argv)} exited ${answer.exitCode}`);
    // Streamed stdout (an etcd snapshot) goes to its stream, as the real executor sends it, not into the result.
    if (opts.stdoutTo && answer.stdout) {
      const to = opts.stdoutTo;
      await new Promise<void>((resolve, reject) => to.write(answer.stdout!, (err?: Error | null) => (err ? reject(err) : resolve())));
      return result(host.id, call.step, { ...answer, stdout: "" });
    }
    return result(host.id, call.step, answer);
  }

  async upload(host: HostTarget, files: readonly FileSpec[], opts: Omit<ExecOptions, "stdin"> = {}) {
    const list = files.map((f) => {
      const content = Buffer.from(f.content);
      return { path: f.path, mode: f.mode ?? 0o644, sha256: createHash("sha256").update(content).digest("hex"), size: content.length };
    });
    this.uploads.push({ host: host.id, step: opts.step ?? "", files: list });
    return { host: host.id, step: opts.step ?? "", written: list.length, skipped: 0, bytes: 0, execs: 2 };
  }

  async forward(_host: HostTarget, _address: string, _port: number): Promise<Duplex> {
    throw new Error("the recording executor opens no tunnels (the tests give the engine a fake API)");
  }

  disconnect(): void {}

  async close(): Promise<void> {}

  /** Healthy hosts: every check passes, every lock is free unless a test set one. */
  private answer(call: RecordedRun): NonNullable<Reply> {
    const name = scriptName(call.argv);
    const script = call.argv[2] ?? "";
    if (name === "bootdeck-facts") return { stdout: `os=Debian GNU/Linux 12\nosId=debian\nkernel=6.1.0\narch=x86_64\nhostname=${call.host}\ninit=systemd\ncpus=2\nmemKb=4000000\ntime=${Date.now() / 1000}\n` };
    if (name === "bootdeck-preflight")
      return { stdout: "swapKb=0\nipForward=1\nbridgeNf=1\nconntrackMax=262144\ncgroup=cgroup2fs\ninit=systemd\narch=x86_64\nmodule=overlay\nmodule=br_netfilter\ndiskFreeKb=50000000\npkgManager=apt-get\n" };
    if (name === "bootdeck-present") return { stdout: this.removed.has(call.host) ? "" : call.argv.slice(4).map((p) => `present ${p}`).join("\n") };
    if (name === "bootdeck-unlock") {
      if (this.locks.get(call.host) === call.argv[4]) this.locks.delete(call.host);
      return { stdout: "" };
    }
    if (name === "bootdeck") {
      const runId = call.argv[4] ?? "";
      const holder = this.locks.get(call.host);
      if (holder && holder !== runId) return { exitCode: LOCKED_EXIT, stderr: [`bootdeck-locked-by ${holder}`] };
      this.locks.set(call.host, runId);
      if (script.includes("bootdeck-packages")) return { stdout: "bootdeck-packages present\n" };
      if (script.includes("bootdeck-binary")) return { stdout: `bootdeck-binary present ${call.argv.at(-1)}\n` };
      if (script.includes("bootdeck-kubelet")) return { stdout: "bootdeck-kubelet restarted state=active restarts=0..0\n" };
      if (script.includes("bootdeck-removed")) {
        this.removed.add(call.host);
        return { stdout: `bootdeck-removed ${call.argv.length - 5}\n` };
      }
      if (script.includes("bootdeck-reset")) return { stdout: `bootdeck-reset removed ${call.argv.length - 5} paths\n` };
    }
    return { stdout: "" };
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    }, { once: true });
  });
}

const CLUSTER_SCOPED = ["Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "PriorityClass", "StorageClass"];
const DISCOVERY = ["Namespace", "ConfigMap", "ServiceAccount", "Service", "Secret", "Deployment", "DaemonSet", "PodDisruptionBudget", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "CustomResourceDefinition", "PriorityClass", "StorageClass"].map((kind) => ({
  kind,
  name: `${kind.toLowerCase()}s`,
  namespaced: !CLUSTER_SCOPED.includes(kind),
}));

const segment = (x: string) => encodeURIComponent(x).replace(/%3A/g, ":").replace(/%40/g, "@");

type Obj = { apiVersion?: string; kind?: string; metadata: { name: string; namespace?: string; [k: string]: unknown }; [k: string]: unknown };

/**
 * A cluster whose API answers like a healthy self-hosted control plane: every listed node Ready with a
 * Lease renewed on every read, the control-plane pods Running and Ready (and Ready since just now, as
 * after a restart), service accounts with tokens,
 * CRDs Established. Objects created through it are kept, so a second create of the same one answers as
 * Kubernetes does (409, or 422 for a Service whose fixed clusterIP is taken).
 */
export class FakeClusterApi implements ClusterApiClient {
  readonly endpoint = "10.0.0.1:6443";
  lastTunnelError: string | undefined;
  /** Objects written through the API, by the path they are served at. */
  readonly objectsStore = new Map<string, Obj>();
  readonly requests: { method: string; path: string }[] = [];
  /** Every write (anything but a GET), with its body: what a run sent to the cluster. */
  readonly writes: { method: string; path: string; body?: unknown }[] = [];
  /** Nodes whose kubelet no longer renews its Lease (a host cut off); still Ready in the API. */
  readonly frozen = new Set<string>();
  private readonly nodeState = new Map<string, { labels: Record<string, string>; taints: unknown[]; unschedulable?: boolean }>();
  private renewals = 0;

  /** The checksum of the encryption configuration the API servers report running. */
  encryptionConfigSha = "";

  constructor(readonly nodes: string[]) {}

  async request(path: string, opts: { method?: string; body?: unknown } = {}): Promise<RawResponse> {
    const method = opts.method ?? "GET";
    this.requests.push({ method, path });
    if (method !== "GET") this.writes.push({ method, path, body: opts.body });
    if (path === "/healthz" || path === "/readyz") return { status: 200, body: "ok" };
    if (path === "/api/v1/namespaces/kube-system") return { status: 200, body: "{}" };
    // An API server's metrics: the encryption configuration it runs with (the file a test says it read).
    if (path === "/metrics")
      return { status: 200, body: `# TYPE apiserver_encryption_config_controller_last_config_info gauge\napiserver_encryption_config_controller_last_config_info{apiserver_id_hash="sha256:0f",hash="sha256:${this.encryptionConfigSha}"} 1\n` };
    const node = /^\/api\/v1\/nodes\/([^/]+)$/.exec(path);
    if (node) {
      const name = decodeURIComponent(node[1]!);
      if (!this.nodes.includes(name)) return { status: 404, body: "{}" };
      if (method === "DELETE") {
        this.nodes.splice(this.nodes.indexOf(name), 1);
        return { status: 200, body: "{}" };
      }
      if (method === "PATCH") {
        const patch = opts.body as { metadata?: { labels?: Record<string, string> }; spec?: { taints?: unknown[]; unschedulable?: boolean | null } };
        const st = this.stateOf(name);
        Object.assign(st.labels, patch.metadata?.labels ?? {});
        if (patch.spec?.taints) st.taints = patch.spec.taints;
        if (patch.spec && "unschedulable" in patch.spec) st.unschedulable = patch.spec.unschedulable === true;
      }
      return { status: 200, body: JSON.stringify(this.node(name)) };
    }
    // An eviction: the pod goes at once.
    if (method === "POST" && path.endsWith("/eviction")) return { status: 201, body: "{}" };
    if (method === "POST") {
      const o = opts.body as Obj;
      const key = `${path}/${segment(o.metadata.name)}`;
      if (this.objectsStore.has(key)) {
        const fixedIp = o.kind === "Service" && typeof (o.spec as { clusterIP?: string } | undefined)?.clusterIP === "string";
        return fixedIp
          ? { status: 422, body: JSON.stringify({ message: `Service "${o.metadata.name}" is invalid: spec.clusterIPs: failed to allocate IP: provided IP is already allocated` }) }
          : { status: 409, body: "{}" };
      }
      this.objectsStore.set(key, o);
      return { status: 201, body: JSON.stringify(o) };
    }
    const stored = this.objectsStore.get(path);
    if (method === "GET") return stored ? { status: 200, body: JSON.stringify(stored) } : { status: 404, body: "{}" };
    if (method === "DELETE") return { status: this.objectsStore.delete(path) ? 200 : 404, body: "{}" };
    if (method === "PUT") {
      this.objectsStore.set(path, opts.body as Obj);
      return { status: 200, body: JSON.stringify(opts.body) };
    }
    if (method === "PATCH" && stored) {
      this.objectsStore.set(path, { ...stored, ...(opts.body as object) });
      return { status: 200, body: "{}" };
    }
    // A Secret the render made and the run never created here (a rotation's patch of the running cluster's).
    if (method === "PATCH" && /\/secrets\//.test(path)) return { status: 200, body: "{}" };
    // A control-plane pod the fake lists (an annotation).
    const pod = /^\/api\/v1\/namespaces\/kube-system\/pods\/([^/]+)$/.exec(path);
    if (method === "PATCH" && pod && this.pods().some((p) => p.metadata.name === decodeURIComponent(pod[1]!))) return { status: 200, body: "{}" };
    return { status: 404, body: "{}" };
  }

  private stateOf(name: string) {
    return this.nodeState.get(name) ?? this.nodeState.set(name, { labels: {}, taints: [] }).get(name)!;
  }

  async getJson<T>(path: string): Promise<T | undefined> {
    this.requests.push({ method: "GET", path });
    const lease = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/kube-node-lease\/leases\/(.+)$/.exec(path);
    if (lease) {
      const name = decodeURIComponent(lease[1]!);
      if (!this.nodes.includes(name)) return undefined;
      return { spec: { renewTime: this.frozen.has(name) ? "2026-01-01T00:00:00.000000Z" : new Date(Date.now() + ++this.renewals).toISOString() } } as T;
    }
    // Every node's Lease, renewed just now (a frozen node's long ago).
    if (path === "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases")
      return { items: this.nodes.map((n) => ({ metadata: { name: n }, spec: { renewTime: this.frozen.has(n) ? "2026-01-01T00:00:00.000000Z" : new Date(Date.now() + 1).toISOString() } })) } as T;
    if (path === "/api/v1/nodes") return { items: this.nodes.map((n) => this.node(n)) } as T;
    // Every Secret written here, listed across namespaces (one page).
    if (path.startsWith("/api/v1/secrets?")) return { metadata: {}, items: [...this.objectsStore].filter(([p]) => /^\/api\/v1\/namespaces\/[^/]+\/secrets\/[^/]+$/.test(p)).map(([, o]) => o) } as T;
    if (path.startsWith("/api/v1/namespaces/kube-system/pods?labelSelector=")) {
      const selector = decodeURIComponent(path.slice(path.indexOf("=") + 1));
      const app = /^k8s-app=(.+)$/.exec(selector)?.[1] ?? "";
      return { items: this.pods().filter((p) => p.metadata.name.startsWith(`${app}-`)) } as T;
    }
    const etcdPod = /^\/api\/v1\/namespaces\/kube-system\/pods\/etcd-(.+)$/.exec(path);
    if (etcdPod) return (this.nodes.includes(decodeURIComponent(etcdPod[1]!)) ? this.ready(`etcd-${decodeURIComponent(etcdPod[1]!)}`, decodeURIComponent(etcdPod[1]!), this.images.etcd) : undefined) as T;
    const onNode = /^\/api\/v1\/namespaces\/kube-system\/pods\?fieldSelector=(.+)$/.exec(path);
    if (onNode) {
      const node = decodeURIComponent(onNode[1]!).replace(/^spec\.nodeName=/, "");
      return { items: this.pods().filter((p) => p.spec.nodeName === node) } as T;
    }
    const node = /^\/api\/v1\/nodes\/(.+)$/.exec(path);
    if (node) return (this.nodes.includes(decodeURIComponent(node[1]!)) ? this.node(decodeURIComponent(node[1]!)) : undefined) as T;
    if (path === "/api/v1/pods") return { items: this.pods() } as T;
    // Service accounts: the controller-manager's default one, and those created here, each with its token.
    if (/\/serviceaccounts\//.test(path)) return path.endsWith("/serviceaccounts/default") || this.objectsStore.has(path) ? ({ ...this.objectsStore.get(path), secrets: [{ name: "token" }] } as T) : undefined;
    const stored = this.objectsStore.get(path);
    // A workload rolled out as soon as it is written.
    if (stored?.kind === "Deployment") {
      const replicas = (stored.spec as { replicas?: number } | undefined)?.replicas ?? 1;
      return { ...stored, status: { replicas, updatedReplicas: replicas, availableReplicas: replicas } } as T;
    }
    if (stored) return stored as T;
    // Discovery: every kind the rendered manifests use, served under any group version.
    if (/^\/api\/v1$|^\/apis\/[^/]+\/[^/]+$/.test(path)) return { resources: DISCOVERY } as T;
    if (/\/customresourcedefinitions\//.test(path)) return { status: { conditions: [{ type: "Established", status: "True" }] } } as T;
    return undefined;
  }

  async kubeConfig(): Promise<k8s.KubeConfig> {
    throw new Error("the fake API has no kubeconfig");
  }

  async close(): Promise<void> {}

  private node(name: string) {
    const st = this.stateOf(name);
    return {
      metadata: { name, labels: { ...st.labels } },
      spec: { taints: st.taints, ...(st.unschedulable ? { unschedulable: true } : {}) },
      status: { conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: new Date().toISOString() }], nodeInfo: { kubeletVersion: this.kubelets.get(name) ?? this.kubeletVersion } },
    };
  }

  /** What every node's kubelet reports, unless `kubelets` says otherwise for it (an upgrade test moves each to the new version). */
  kubeletVersion = "v1.36.3";
  readonly kubelets = new Map<string, string>();

  /** The images the control plane's pods report (an upgrade test sets the new ones). */
  readonly images: { apiserver?: string; etcd?: string } = {};

  private ready(name: string, node: string, image?: string) {
    return {
      metadata: { name, namespace: "kube-system" },
      spec: { nodeName: node, containers: [{ image }] },
      status: { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: new Date().toISOString() }], containerStatuses: [{ ready: true, restartCount: 0 }] },
    };
  }

  private pods() {
    return this.nodes.filter((n) => n.startsWith("master")).flatMap((n) => ["kube-apiserver", "kube-controller-manager", "kube-scheduler"].map((c) => this.ready(`${c}-${n}`, n, c === "kube-apiserver" ? this.images.apiserver : undefined)));
  }
}

/**
 * etcd as the day-2 scripts see it (`bootdeck-etcd status|add-learner|promote|remove`): members that
 * answer healthy with one leader, learners added and promoted at once, members removed. `version` is
 * what each member reports (an upgrade test sets the new one).
 */
export class FakeEtcd {
  private readonly members: { id: number; name: string; peerUrl: string; clientUrl: string; learner: boolean }[];
  private nextId = 100;
  version = "3.6.8";

  constructor(members: { name: string; peerUrl: string; clientUrl: string }[]) {
    this.members = members.map((m, i) => ({ ...m, id: 11 + i, learner: false }));
  }

  /** The answer to a `bootdeck-etcd` call, or undefined for any other command. */
  reply(argv: readonly string[]): Reply {
    if (scriptName(argv) !== "bootdeck-etcd") return undefined;
    const [act, a1] = argv.slice(4);
    if (act === "status") {
      const leader = this.members.find((m) => !m.learner)?.id ?? 0;
      const members = { members: this.members.map((m) => ({ ID: m.id, name: m.name, peerURLs: [m.peerUrl], clientURLs: [m.clientUrl], ...(m.learner ? { isLearner: true } : {}) })) };
      const status = this.members.map((m) => ({ Endpoint: m.clientUrl, Status: { header: { member_id: m.id }, version: this.version, leader, raftIndex: 500, raftAppliedIndex: 500, ...(m.learner ? { isLearner: true } : {}) } }));
      const health = this.members.filter((m) => !m.learner).map((m) => ({ endpoint: m.clientUrl, health: true }));
      return { stdout: `--- members\n${JSON.stringify(members)}\n--- status\n${JSON.stringify(status)}\n--- health\n${JSON.stringify(health)}\n` };
    }
    if (act === "add-learner") {
      const name = a1 ?? "";
      const peerUrl = argv[6] ?? "";
      if (this.members.some((m) => m.peerUrl === peerUrl)) return { stdout: `bootdeck-etcd present ${name}\n` };
      this.members.push({ id: this.nextId++, name, peerUrl, clientUrl: peerUrl.replace(/:2380$/, ":2379"), learner: true });
      return { stdout: `bootdeck-etcd added ${name} as a learner\n` };
    }
    if (act === "promote") {
      const m = this.members.find((x) => x.peerUrl === a1);
      if (!m) return { exitCode: 1, stderr: [`no etcd member has the peer URL ${a1}`] };
      m.learner = false;
      return { stdout: `bootdeck-etcd promoted ${a1}\n` };
    }
    if (act === "remove") {
      const i = this.members.findIndex((x) => x.peerUrl === a1);
      if (i < 0) return { stdout: `bootdeck-etcd absent ${a1}\n` };
      this.members.splice(i, 1);
      return { stdout: `bootdeck-etcd removed ${a1}\n` };
    }
    return { exitCode: 2, stderr: [`unknown etcd action ${act}`] };
  }
}

/**
 * Hosts that also serve TLS where a run reads certificates through the tunnel (`forward`): for each
 * address and port, the certificate and key `serve` names (a rotation test: the renewed set's).
 */
export class TlsRecordingExecutor extends RecordingExecutor {
  private readonly servers = new Map<string, Promise<number>>();
  private readonly listening: tls.Server[] = [];

  constructor(
    reply: (call: RecordedRun) => Reply,
    private readonly serve: (address: string, port: number) => { cert: string; key: string },
  ) {
    super(reply);
  }

  override async forward(_host: HostTarget, address: string, port: number): Promise<Duplex> {
    const key = `${address}:${port}`;
    let listening = this.servers.get(key);
    if (!listening) {
      listening = new Promise<number>((resolve) => {
        const server = tls.createServer(this.serve(address, port), (socket) => socket.end());
        server.on("tlsClientError", () => undefined);
        this.listening.push(server);
        server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port));
      });
      this.servers.set(key, listening);
    }
    return net.connect(await listening, "127.0.0.1");
  }

  override async close(): Promise<void> {
    await Promise.all(this.listening.map((s) => new Promise((r) => s.close(() => r(undefined)))));
  }
}
