// KWOK-style virtual nodes for UI scale tests: Node objects with no host behind them (no SSH, no
// processes). One process registers M nodes, renews their Leases and Ready condition, and reports the
// pods bound to them as Running, so a dashboard sees a 500-node cluster on this machine.
// Run: node --import tsx lab/cluster/main.ts virtual-nodes --kubeconfig=auth/kubeconfig --count=500
import { parseFlags } from "./flags";
import { ApiError, Informer, KubeClient } from "./kube-client";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const nowTs = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
const micro = () => new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (i < items.length) await fn(items[i++] as T).catch(() => undefined);
  }));
}

export function virtualNodeNames(count: number, prefix = "vnode-"): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${String(i + 1).padStart(4, "0")}`);
}

export class VirtualNodes {
  private timers: NodeJS.Timeout[] = [];
  private pods?: Informer;

  constructor(
    private readonly client: KubeClient,
    readonly names: string[],
    private readonly version = process.env.BOOTDECK_LAB_K8S_VERSION ?? "v1.32.9",
    private readonly log: (l: string) => void = (l) => process.stderr.write(`${l}\n`),
  ) {}

  private status(i: number): Obj {
    const now = nowTs();
    return {
      addresses: [{ type: "InternalIP", address: `10.239.${Math.floor(i / 250)}.${(i % 250) + 2}` }, { type: "Hostname", address: this.names[i] }],
      capacity: { cpu: "8", memory: "32Gi", pods: "110" },
      allocatable: { cpu: "8", memory: "32Gi", pods: "110" },
      nodeInfo: { kubeletVersion: this.version, kubeProxyVersion: this.version, osImage: "bootdeck lab virtual node (KWOK-style)", kernelVersion: "virtual", containerRuntimeVersion: "virtual://1.0.0", operatingSystem: "linux", architecture: "amd64" },
      conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "virtual node is posting ready status", lastHeartbeatTime: now, lastTransitionTime: now }],
    };
  }

  async start(): Promise<void> {
    const t0 = Date.now();
    await pool(this.names.map((n, i) => [n, i] as const), 16, async ([name, i]) => {
      await this.client.create("/api/v1/nodes", { metadata: { name, labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", type: "virtual" } } }).catch((e) => {
        if (!(e instanceof ApiError && e.code === 409)) throw e;
      });
      await this.client.patch(`/api/v1/nodes/${name}/status`, { status: this.status(i) });
    });
    this.log(`registered ${this.names.length} virtual nodes in ${Math.round((Date.now() - t0) / 1000)} s`);
    const renew = () =>
      void pool(this.names, 8, async (name) => {
        const p = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`;
        const spec = { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro() };
        await this.client.patch(p, { spec }).catch(() => this.client.create("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", { metadata: { name }, spec }));
      });
    renew();
    this.timers.push(setInterval(renew, 20_000));
    const index = new Map(this.names.map((n, i) => [n, i]));
    this.pods = new Informer(this.client, "/api/v1/pods", (type, pod) => {
      if ((type !== "ADDED" && type !== "MODIFIED") || !index.has(pod.spec?.nodeName ?? "") || pod.status?.phase === "Running") return;
      if (pod.metadata.deletionTimestamp) {
        void this.client.delete(`/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`, { gracePeriodSeconds: 0 }).catch(() => undefined);
        return;
      }
      const i = index.get(pod.spec.nodeName) ?? 0;
      const ip = `10.240.${Math.floor(i / 250)}.${(i % 250) + 2}`;
      const now = nowTs();
      void this.client
        .patch(`/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}/status`, {
          status: {
            phase: "Running",
            podIP: pod.spec.hostNetwork ? this.status(i).addresses[0].address : ip,
            hostIP: this.status(i).addresses[0].address,
            startTime: now,
            conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({ type, status: "True", lastTransitionTime: now })),
            containerStatuses: (pod.spec.containers ?? []).map((c: Obj) => ({ name: c.name, image: c.image, imageID: "", ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } } })),
          },
        })
        .catch(() => undefined);
    }).run();
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.pods?.stop();
  }
}

export async function runVirtualNodes(argv: readonly string[]): Promise<VirtualNodes> {
  const f = parseFlags(argv, { kubeconfig: "string", count: "string", prefix: "string" }, true);
  const kc = f.values.get("kubeconfig");
  if (!kc) throw new Error("--kubeconfig is required");
  const v = new VirtualNodes(KubeClient.fromKubeconfig(kc), virtualNodeNames(Number(f.values.get("count") ?? 100), f.values.get("prefix") ?? "vnode-"));
  await v.start();
  return v;
}
