import "server-only";
// Live pods and nodes of a cluster, from list-and-watch informers on its API, reached through the
// same SSH tunnel the engine uses (a master's pinned connection), with the latest asset set's admin
// credentials. One watcher per cluster, shared by every viewer, closed a minute after the last leaves.
// While the API does not answer (the pivot's gap, a master down) viewers get that state, not an empty table.
import * as k8s from "@kubernetes/client-node";
import { SESSION_RECHECK_BATCH_MS, SESSION_RECHECK_IDLE_MS, type SessionRecheck } from "../auth/session-recheck";
import type { ClusterDefinition } from "../cluster/definition";
import { getDb } from "../db/client";
import { notFound } from "../http/errors";
import { viewerOpened } from "./viewers";
import { Executor } from "../ssh";
import { loadRunResources, type RunResources } from "./run-resources";
import { loadEngineHosts } from "./targets";
import { recordNodesSeen } from "../clusters/fleet";
import { nodeRow, podRow, type ApiState, type LiveMessage, type NodeRow, type PodRow } from "../clusters/live-rows";
import { clusterMustExist } from "../clusters/exists";

const IDLE_CLOSE_MS = 60_000;
const RESTART_MS = 3_000;
/** The fleet list's "nodes Ready" is written at most this often, and at least this often while watched. */
const NODES_SEEN_MS = 5_000;
const NODES_SEEN_REFRESH_MS = 60_000;

type Listener = (m: LiveMessage) => void;

class ClusterLive {
  private readonly pods = new Map<string, PodRow>();
  private readonly nodes = new Map<string, NodeRow>();
  private readonly listeners = new Set<Listener>();
  private api: ApiState = { state: "connecting", since: new Date().toISOString() };
  private executor: Executor | undefined;
  private resources: RunResources | undefined;
  private informers: { stop(): Promise<void> }[] = [];
  private idleTimer: NodeJS.Timeout | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** A live session (first viewer to idle close) records each credential's use once, not on every reconnect. */
  private secretUseRecorded = false;
  private nodesSeenTimer: NodeJS.Timeout | undefined;
  private nodesSeenWritten = "";
  private nodesSeenAt = 0;

  constructor(
    readonly clusterId: string,
    private readonly onClosed: () => void,
  ) {}

  subscribe(listener: Listener): () => void {
    clearTimeout(this.idleTimer);
    this.listeners.add(listener);
    listener({ type: "snapshot", pods: [...this.pods.values()], nodes: [...this.nodes.values()], api: this.api });
    if (this.listeners.size === 1 && !this.executor) void this.start();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.idleTimer = setTimeout(() => void this.close(), IDLE_CLOSE_MS);
    };
  }

  private emit(m: LiveMessage): void {
    for (const l of this.listeners) l(m);
    if (m.type === "snapshot" || m.type === "node") this.noteNodes();
  }

  /** Records nodes Ready for the fleet list: on a change (batched) and once a minute while connected. */
  private noteNodes(): void {
    if (this.api.state !== "connected" || this.nodesSeenTimer) return;
    this.nodesSeenTimer = setTimeout(() => {
      this.nodesSeenTimer = undefined;
      if (this.api.state !== "connected" || this.stopped) return;
      const nodes = [...this.nodes.values()];
      const ready = nodes.filter((n) => n.ready).length;
      const key = `${ready}/${nodes.length}`;
      if (key === this.nodesSeenWritten && Date.now() - this.nodesSeenAt < NODES_SEEN_REFRESH_MS) return;
      this.nodesSeenWritten = key;
      this.nodesSeenAt = Date.now();
      void recordNodesSeen({ clusterId: this.clusterId, ready, total: nodes.length }).catch(() => undefined);
    }, NODES_SEEN_MS);
    this.nodesSeenTimer.unref?.();
  }

  private setApi(state: ApiState["state"], message?: string, duringPivot?: boolean): void {
    if (this.api.state === state && this.api.message === message && this.api.duringPivot === duringPivot) return;
    this.api = { state, since: this.api.state === state ? this.api.since : new Date().toISOString(), ...(message ? { message } : {}), ...(duringPivot ? { duringPivot } : {}) };
    this.emit({ type: "api", api: this.api });
  }

  /** The API does not answer; say whether a pivot under way explains it (its short gap is expected). */
  private async unreachable(message: string): Promise<void> {
    const pivoting = await getDb()
      .step.count({ where: { phase: "pivot", status: { in: ["running", "waiting"] }, run: { clusterId: this.clusterId, status: "running" } } })
      .catch(() => 0);
    this.setApi("unreachable", message, pivoting > 0);
  }

  private async start(): Promise<void> {
    if (this.stopped) return;
    try {
      const cluster = await getDb().cluster.findUnique({ where: { id: this.clusterId }, select: { definition: true } });
      if (!cluster) throw notFound("Cluster");
      const definition = JSON.parse(cluster.definition) as ClusterDefinition;
      const set = await getDb().assetSet.findFirst({ where: { clusterId: this.clusterId }, orderBy: { version: "desc" }, select: { id: true } });
      // No API exists before a bootstrap has started its temporary control plane: say so rather than
      // try (and report a gap the pivot would explain). Looked at again every few seconds, so a
      // bootstrap under way is watched as soon as its API is up.
      const hasApi = set && (await getDb().step.count({ where: { phase: "control-plane", status: "done", run: { clusterId: this.clusterId } } })) > 0;
      if (!set || !hasApi) {
        this.setApi("not-bootstrapped", "No API yet: a bootstrap brings it up in its control-plane phase (the temporary control plane on the first master).");
        return this.scheduleRestart();
      }
      this.executor = new Executor({ connectTimeoutMs: 10_000 });
      const hosts = await loadEngineHosts({
        clusterId: this.clusterId,
        definition,
        purpose: "live status",
        auditSecretUse: !this.secretUseRecorded,
        onPinned: async (h) => {
          throw new Error(`the host key of ${h.name} is not pinned yet: check the hosts or bootstrap first`);
        },
      });
      this.secretUseRecorded = true;
      this.resources = await loadRunResources({ assetSetId: set.id, definition, executor: this.executor, hosts });
      await this.watch();
    } catch (err) {
      await this.unreachable(err instanceof Error ? err.message : String(err));
      this.scheduleRestart();
    }
  }

  private async watch(): Promise<void> {
    if (!this.resources || this.stopped) return;
    const kc = await this.resources.api().kubeConfig();
    const core = kc.makeApiClient(k8s.CoreV1Api);
    // A list of our own first: it proves the API answers (the informers swallow a failed list) and,
    // after a gap, replaces every row at once with what the API has now.
    const [podList, nodeList] = await Promise.all([core.listPodForAllNamespaces(), core.listNode()]);
    this.pods.clear();
    this.nodes.clear();
    for (const p of podList.items) {
      const row = podRow(p as never);
      this.pods.set(row.uid, row);
    }
    for (const n of nodeList.items) {
      const row = nodeRow(n as never);
      this.nodes.set(row.name, row);
    }
    this.api = { state: "connected", since: new Date().toISOString() };
    this.emit({ type: "snapshot", pods: [...this.pods.values()], nodes: [...this.nodes.values()], api: this.api });

    const pods = k8s.makeInformer(kc, "/api/v1/pods", () => core.listPodForAllNamespaces());
    const nodes = k8s.makeInformer(kc, "/api/v1/nodes", () => core.listNode());
    const failed = (err: unknown) => {
      const why = this.resources?.api().lastTunnelError ?? (err instanceof Error ? err.message : String(err ?? "watch ended"));
      void this.unreachable(why)
        .then(() => this.stopInformers())
        .then(() => this.scheduleRestart());
    };
    pods.on("add", (p) => this.upsertPod(p));
    pods.on("update", (p) => this.upsertPod(p));
    pods.on("delete", (p) => {
      const row = podRow(p as never);
      if (this.pods.delete(row.uid)) this.emit({ type: "pod", op: "delete", uid: row.uid });
    });
    nodes.on("add", (n) => this.upsertNode(n));
    nodes.on("update", (n) => this.upsertNode(n));
    nodes.on("delete", (n) => {
      const name = n.metadata?.name ?? "";
      if (this.nodes.delete(name)) this.emit({ type: "node", op: "delete", name });
    });
    pods.on("error", failed);
    nodes.on("error", failed);
    this.informers = [pods, nodes];
    // Not awaited: start() resolves only once a watch is established, which can wait for a first change.
    void Promise.all([pods.start(), nodes.start()]).catch(failed);
  }

  private upsertPod(p: k8s.V1Pod): void {
    const row = podRow(p as never);
    this.pods.set(row.uid, row);
    this.emit({ type: "pod", op: "upsert", row });
  }

  private upsertNode(n: k8s.V1Node): void {
    const row = nodeRow(n as never);
    this.nodes.set(row.name, row);
    this.emit({ type: "node", op: "upsert", row });
  }

  private scheduleRestart(): void {
    if (this.stopped || this.restartTimer) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      // From scratch: the hosts' keys may have been pinned (or credentials changed) since the last try.
      void this.release().then(() => this.start());
    }, RESTART_MS);
    this.restartTimer.unref?.();
  }

  private async stopInformers(): Promise<void> {
    const informers = this.informers;
    this.informers = [];
    await Promise.all(informers.map((i) => i.stop().catch(() => undefined)));
  }

  private async release(): Promise<void> {
    await this.stopInformers();
    await this.resources?.close();
    await this.executor?.close();
    this.resources = undefined;
    this.executor = undefined;
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    clearTimeout(this.nodesSeenTimer);
    await this.release();
    this.onClosed();
  }
}

const holder = globalThis as unknown as { bootdeckLive?: Map<string, ClusterLive> };

/** Subscribes to a cluster's live pods and nodes; the first message is a snapshot. */
export function subscribeClusterLive(clusterId: string, listener: Listener): () => void {
  const all = (holder.bootdeckLive ??= new Map());
  let live = all.get(clusterId);
  if (!live) {
    live = new ClusterLive(clusterId, () => all.delete(clusterId));
    all.set(clusterId, live);
  }
  return live.subscribe(listener);
}

const KEEPALIVE_MS = 15_000;

/**
 * Server-Sent Events of a cluster's live pods and nodes: a snapshot, then changes, with keep-alives.
 * `session` is asked again before a message leaves when its last answer is over a second old (messages
 * wait for the answer) and every few seconds while idle; the stream ends once it no longer allows reading.
 */
export async function clusterLiveStream({ clusterId, signal, session }: { clusterId: string; signal: AbortSignal; session: SessionRecheck }): Promise<ReadableStream<Uint8Array>> {
  await clusterMustExist(clusterId);
  const encoder = new TextEncoder();
  let unsubscribe: (() => void) | undefined;
  let keepalive: NodeJS.Timeout | undefined;
  let recheck: NodeJS.Timeout | undefined;
  let closed = false;
  let viewerClosed: (() => void) | undefined;
  const end = () => {
    closed = true;
    viewerClosed?.();
    unsubscribe?.();
    unsubscribe = undefined;
    clearInterval(keepalive);
    clearInterval(recheck);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const close = () => {
        end();
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      };
      const write = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          end();
        }
      };
      // Messages leave in order, each after an answer no older than a second.
      let queue: string[] = [];
      let flushing = false;
      const send = (text: string) => {
        if (closed) return;
        queue.push(text);
        if (flushing) return;
        flushing = true;
        void (async () => {
          while (queue.length > 0 && !closed) {
            if (!(await session.ok(SESSION_RECHECK_BATCH_MS))) return close();
            const batch = queue;
            queue = [];
            for (const t of batch) if (!closed) write(t);
          }
          flushing = false;
        })();
      };
      viewerClosed = viewerOpened("cluster");
      write("retry: 3000\n\n");
      unsubscribe = subscribeClusterLive(clusterId, (m) => send(`event: ${m.type}\ndata: ${JSON.stringify(m)}\n\n`));
      keepalive = setInterval(() => send(": keep-alive\n\n"), KEEPALIVE_MS);
      recheck = setInterval(() => void session.ok(SESSION_RECHECK_IDLE_MS).then((ok) => ok || close()), SESSION_RECHECK_IDLE_MS);
      signal.addEventListener("abort", close, { once: true });
    },
    cancel: end,
  });
}
