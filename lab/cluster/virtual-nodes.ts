// KWOK-style virtual nodes for UI scale tests: Node objects with no host behind them (no SSH, no
// processes). One process registers M nodes, renews their Leases (as a kubelet heartbeats), and reports the
// pods bound to them as Running, so a dashboard sees a 500-node cluster on this machine.
// Run: node --import tsx lab/cluster/main.ts virtual-nodes --kubeconfig=auth/kubeconfig --count=500
// With --wait the kubeconfig may not exist yet (`lab up --virtual-nodes M` starts before any cluster
// does): the nodes register once a kubeconfig appears and its API lists nodes.
import fs from "node:fs";
import { flagBool, parseFlags } from "./flags";
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The first of `kubeconfigs` that exists and whose API answers a node list, polled until one does.
 * Several paths because the kubelet's kubeconfig moved between versions.
 */
export async function waitForCluster(kubeconfigs: readonly string[], log: (l: string) => void, pollMs = 2_000): Promise<KubeClient> {
  let last = "";
  for (;;) {
    for (const file of kubeconfigs) {
      if (!fs.existsSync(file)) continue;
      try {
        const client = KubeClient.fromKubeconfig(file);
        await client.request("GET", "/api/v1/nodes?limit=1");
        log(`cluster API answers (credentials from ${file})`);
        return client;
      } catch (e) {
        const why = `${file}: ${e instanceof Error ? e.message : String(e)}`;
        if (why !== last) log(`waiting for the cluster API: ${why}`);
        last = why;
      }
    }
    await sleep(pollMs);
  }
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
    private readonly version = process.env.BOOTDECK_LAB_K8S_VERSION ?? "v1.34.4",
    private readonly log: (l: string) => void = (l) => process.stderr.write(`${l}\n`),
    private readonly renewMs = 20_000,
  ) {
    this.index = new Map(names.map((n, i) => [n, i]));
  }

  private readonly index: Map<string, number>;

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

  /** Creates the Node (a 409 means it is there) and reports it Ready. */
  private async register(name: string, i: number): Promise<void> {
    await this.client.create("/api/v1/nodes", { metadata: { name, labels: { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64", type: "virtual" } } }).catch((e) => {
      if (!(e instanceof ApiError && e.code === 409)) throw e;
    });
    await this.client.patch(`/api/v1/nodes/${name}/status`, { status: this.status(i) });
  }

  /** Registers every node, retrying the ones that fail (the API has gaps, e.g. the pivot) until all are in. */
  async start(): Promise<void> {
    const t0 = Date.now();
    let left = this.names.map((n, i) => [n, i] as const);
    for (let round = 1; left.length > 0; round++) {
      const failed: (typeof left)[number][] = [];
      let error = "";
      await pool(left, 16, async (item) => {
        await this.register(...item).catch((e: unknown) => {
          failed.push(item);
          error = e instanceof Error ? e.message : String(e);
        });
      });
      if (failed.length > 0) {
        this.log(`${failed.length} of ${this.names.length} virtual nodes not registered yet (${error}); retrying`);
        await sleep(Math.min(1_000 * round, 5_000));
      }
      left = failed;
    }
    this.log(`registered ${this.names.length} virtual nodes in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // Heartbeats as a kubelet posts them: the Lease every 20 s; a node deleted meanwhile registers again.
    const renew = () =>
      void pool(this.names.map((n, i) => [n, i] as const), 8, async ([name, i]) => {
        const p = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${name}`;
        const spec = { holderIdentity: name, leaseDurationSeconds: 40, renewTime: micro() };
        await this.client.patch(p, { spec }).catch(async (e) => {
          if (!(e instanceof ApiError && e.code === 404)) throw e;
          await this.client.create("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", { metadata: { name }, spec });
        });
        await this.client.get(`/api/v1/nodes/${name}`).catch(async (e) => {
          if (e instanceof ApiError && e.code === 404) await this.register(name, i);
        });
      });
    renew();
    this.timers.push(setInterval(renew, this.renewMs));
    // Pods bound to a virtual node are reported Running at once; after a relist (the API came back)
    // every pod is looked at again, since changes during the gap sent no watch event.
    this.pods = new Informer(this.client, "/api/v1/pods", (type, pod) => {
      if (type === "SYNC") for (const p of this.pods?.items.values() ?? []) this.runPod(p);
      else if (type === "ADDED" || type === "MODIFIED") this.runPod(pod);
    });
    this.pods.run();
  }

  private runPod(pod: Obj): void {
    const i = this.index.get(pod.spec?.nodeName ?? "");
    if (i === undefined || pod.status?.phase === "Running") return;
    const path = `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`;
    if (pod.metadata.deletionTimestamp) {
      void this.client.delete(path, { gracePeriodSeconds: 0 }).catch(() => undefined);
      return;
    }
    const hostIP = this.status(i).addresses[0].address;
    const now = nowTs();
    void this.client
      .patch(`${path}/status`, {
        status: {
          phase: "Running",
          podIP: pod.spec.hostNetwork ? hostIP : `10.240.${Math.floor(i / 250)}.${(i % 250) + 2}`,
          hostIP,
          startTime: now,
          conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({ type, status: "True", lastTransitionTime: now })),
          containerStatuses: (pod.spec.containers ?? []).map((c: Obj) => ({ name: c.name, image: c.image, imageID: "", ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } } })),
        },
      })
      .catch(() => undefined);
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.pods?.stop();
  }
}

export async function runVirtualNodes(argv: readonly string[]): Promise<VirtualNodes> {
  const f = parseFlags(argv, { kubeconfig: "list", count: "string", prefix: "string", wait: "bool" }, true);
  const kubeconfigs = f.lists.get("kubeconfig") ?? [];
  if (kubeconfigs.length === 0) throw new Error("--kubeconfig is required");
  const log = (l: string) => process.stderr.write(`${new Date().toISOString()} ${l}\n`);
  const client = flagBool(f, "wait") ? await waitForCluster(kubeconfigs, log) : KubeClient.fromKubeconfig(kubeconfigs[0] ?? "");
  const v = new VirtualNodes(client, virtualNodeNames(Number(f.values.get("count") ?? 100), f.values.get("prefix") ?? "vnode-"), undefined, log);
  await v.start();
  return v;
}
