// The lab's kube-scheduler stand-in: binds Pending pods (schedulerName default-scheduler, no node) to a
// node through pods/binding, honouring nodeSelector, required node affinity, taints/tolerations and
// cordoned nodes; spreads by pod count. Unschedulable pods get PodScheduled=False and a
// FailedScheduling event with the real message shape ("0/3 nodes are available: …").
import { parseFlags, flagBool } from "./flags";
import { fitsNode, LeaderElector } from "./controller-manager";
import { ApiError, Informer, KubeClient } from "./kube-client";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Log = (l: string) => void;
const nowTs = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");

export class Scheduler {
  private pods?: Informer;
  private nodes?: Informer;
  private timer?: NodeJS.Timeout;
  private dirty = true;
  private busy = false;
  private elector?: LeaderElector;
  private readonly reported = new Map<string, string>();

  constructor(
    readonly client: KubeClient,
    private readonly leaderElect: boolean,
    private readonly log: Log = (l) => process.stderr.write(`${l}\n`),
  ) {}

  start(): void {
    const run = () => {
      const mark = () => (this.dirty = true);
      this.pods = new Informer(this.client, "/api/v1/pods", mark, this.log).run();
      this.nodes = new Informer(this.client, "/api/v1/nodes", mark, this.log).run();
      this.timer = setInterval(() => void this.tick(), 300);
    };
    if (!this.leaderElect) return run();
    this.elector = new LeaderElector(this.client, "kube-scheduler", this.log);
    this.elector.start((leading) => {
      if (leading && !this.timer) run();
      if (!leading) this.pause();
    });
  }

  private pause(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.pods?.stop();
    this.nodes?.stop();
  }

  stop(): void {
    this.elector?.stop();
    this.pause();
  }

  private lastRetry = 0;

  private async tick(): Promise<void> {
    if (this.busy || !this.pods?.synced || !this.nodes?.synced) return;
    // Unschedulable pods are retried every few seconds even without a change (node taints may lapse).
    if (!this.dirty && Date.now() - this.lastRetry < 3_000) return;
    this.busy = true;
    this.dirty = false;
    this.lastRetry = Date.now();
    try {
      const pods = this.pods.list();
      const nodes = this.nodes.list();
      const count = new Map<string, number>();
      for (const p of pods) if (p.spec?.nodeName) count.set(p.spec.nodeName, (count.get(p.spec.nodeName) ?? 0) + 1);
      for (const pod of pods) {
        if (pod.spec?.nodeName || pod.metadata?.deletionTimestamp || (pod.spec?.schedulerName ?? "default-scheduler") !== "default-scheduler") continue;
        const reasons = new Map<string, number>();
        const fits = nodes.filter((n) => {
          const r = fitsNode(pod.spec ?? {}, n);
          if (!r.ok) reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
          return r.ok;
        });
        const ns = pod.metadata.namespace;
        if (fits.length === 0) {
          const detail = [...reasons].sort().map(([r, n]) => `${n} node(s) ${r}`).join(", ");
          const message = `0/${nodes.length} nodes are available${detail ? `: ${detail}` : ""}. preemption: 0/${nodes.length} nodes are available: ${nodes.length} Preemption is not helpful for scheduling.`;
          const key = `${ns}/${pod.metadata.name}`;
          if (this.reported.get(key) !== message) {
            this.reported.set(key, message);
            await this.client.patch(`/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/status`, {
              status: { conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message, lastTransitionTime: nowTs() }] },
            }).catch(() => undefined);
            await this.event(pod, "FailedScheduling", message, "Warning");
          }
          continue;
        }
        fits.sort((a, b) => (count.get(a.metadata.name) ?? 0) - (count.get(b.metadata.name) ?? 0) || a.metadata.name.localeCompare(b.metadata.name));
        const node = fits[0]?.metadata.name as string;
        if (process.env.LAB_DEBUG) this.log(`binding ${ns}/${pod.metadata.name} to ${node}`);
        try {
          await this.client.create(`/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/binding`, { apiVersion: "v1", kind: "Binding", metadata: { name: pod.metadata.name, namespace: ns }, target: { apiVersion: "v1", kind: "Node", name: node } });
          count.set(node, (count.get(node) ?? 0) + 1);
          this.reported.delete(`${ns}/${pod.metadata.name}`);
          await this.event(pod, "Scheduled", `Successfully assigned ${ns}/${pod.metadata.name} to ${node}`, "Normal");
        } catch (e) {
          if (!(e instanceof ApiError && (e.code === 409 || e.code === 404))) this.log(`binding ${ns}/${pod.metadata.name}: ${(e as Error).message}`);
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private async event(pod: Obj, reason: string, message: string, type: string): Promise<void> {
    const ns = pod.metadata.namespace;
    await this.client
      .create(`/api/v1/namespaces/${ns}/events`, {
        metadata: { name: `${pod.metadata.name}.${Date.now().toString(16)}`, namespace: ns },
        involvedObject: { kind: "Pod", namespace: ns, name: pod.metadata.name, uid: pod.metadata.uid, apiVersion: "v1" },
        reason,
        message,
        type,
        source: { component: "default-scheduler" },
        reportingComponent: "default-scheduler",
        firstTimestamp: nowTs(),
        lastTimestamp: nowTs(),
        count: 1,
      })
      .catch(() => undefined);
  }
}

export async function runScheduler(argv: readonly string[]): Promise<Scheduler> {
  const log: Log = (l) => process.stderr.write(`I${new Date().toISOString()} scheduler] ${l}\n`);
  const f = parseFlags(argv, { kubeconfig: "string", "leader-elect": "bool", master: "string" }, false);
  for (const u of f.unknown) if (u.startsWith("-")) log(`flag ${u.split("=")[0]} is accepted and ignored by the lab scheduler`);
  const kubeconfig = f.values.get("kubeconfig");
  if (!kubeconfig) throw new Error("--kubeconfig is required by the lab scheduler");
  const s = new Scheduler(KubeClient.fromKubeconfig(kubeconfig), flagBool(f, "leader-elect", true), log);
  s.start();
  return s;
}
