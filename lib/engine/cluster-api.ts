import "server-only";
// The cluster's API as the engine sees it: a local port tunnelled over the engine's own SSH connection
// to a master (like ssh -L), so the dashboard needs no route to the cluster. The rendered admin
// credentials authenticate; the apiserver certificate names 127.0.0.1, so TLS is verified as usual.
import https from "node:https";
import net from "node:net";
import type * as k8s from "@kubernetes/client-node";
import YAML from "yaml";
import type { Executor, HostTarget } from "../ssh";

export type AdminCredentials = { caPem: string; certPem: string; keyPem: string };

/** The admin credentials embedded in a rendered kubeconfig (auth/kubeconfig). */
export function adminCredentialsFrom(kubeconfigYaml: string): AdminCredentials {
  const doc = YAML.parse(kubeconfigYaml) as {
    clusters?: { cluster?: Record<string, string> }[];
    users?: { user?: Record<string, string> }[];
  };
  const cluster = doc.clusters?.[0]?.cluster ?? {};
  const user = doc.users?.[0]?.user ?? {};
  const b64 = (v: string | undefined, what: string) => {
    if (!v) throw new Error(`the admin kubeconfig has no ${what}; re-render the assets`);
    return Buffer.from(v, "base64").toString("utf8");
  };
  return {
    caPem: b64(cluster["certificate-authority-data"], "certificate-authority-data"),
    certPem: b64(user["client-certificate-data"], "client-certificate-data"),
    keyPem: b64(user["client-key-data"], "client-key-data"),
  };
}

export type RawResponse = { status: number; body: string };

/** What the actions use of the cluster's API (tests give them a fake one). */
export type ClusterApiClient = Pick<ClusterApi, "endpoint" | "request" | "getJson" | "kubeConfig" | "lastTunnelError" | "close">;

/** How long a master whose tunnel failed is tried after the others. */
const FAILED_VIA_BACKOFF_MS = 30_000;

/**
 * The order to try the masters in for the next tunnel: the one the last tunnel went through first, a
 * master whose tunnel failed in the last 30 s last. A master that is cut off costs a connection timeout
 * (15 s) per attempt: in the given order, every API request while master-1 was away waited it out first.
 */
export class TunnelRoute {
  private lastGood: string | undefined;
  private readonly failedAt = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  order<H extends { id: string }>(hosts: readonly H[]): H[] {
    const t = this.now();
    const rank = (h: H) => (h.id === this.lastGood ? 0 : (this.failedAt.get(h.id) ?? -Infinity) > t - FAILED_VIA_BACKOFF_MS ? 2 : 1);
    return [...hosts].sort((a, b) => rank(a) - rank(b));
  }

  succeeded(id: string): void {
    this.lastGood = id;
    this.failedAt.delete(id);
  }

  failed(id: string): void {
    this.failedAt.set(id, this.now());
    if (this.lastGood === id) this.lastGood = undefined;
  }
}

export class ClusterApi {
  /** Why the last tunnelled connection could not be opened (shown in wait and failure messages). */
  lastTunnelError: string | undefined;
  private readonly route = new TunnelRoute();
  private readonly sockets = new Set<net.Socket>();
  /** The master each bridged connection goes through, by the local client's port. */
  private readonly viaOf = new Map<number, string>();
  private server: net.Server | undefined;

  constructor(
    private readonly opts: {
      executor: Pick<Executor, "forward">;
      /** Hosts to tunnel through (the masters), in the order TunnelRoute picks. */
      via: () => HostTarget[];
      endpoint: { host: string; port: number };
      credentials: AdminCredentials;
    },
  ) {}

  /** Where the API is, as the hosts see it. */
  get endpoint(): string {
    const h = this.opts.endpoint.host;
    return `${h.includes(":") ? `[${h}]` : h}:${this.opts.endpoint.port}`;
  }

  private listening: Promise<number> | undefined;

  /** The local end of the tunnel; requests that arrive while it opens wait for the same one. */
  private listen(): Promise<number> {
    this.listening ??= new Promise<number>((resolve, reject) => {
      const server = net.createServer((socket) => void this.bridge(socket));
      this.server = server;
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port));
    });
    return this.listening;
  }

  private async bridge(socket: net.Socket): Promise<void> {
    this.sockets.add(socket);
    socket.once("close", () => this.sockets.delete(socket));
    socket.on("error", () => undefined);
    const errors: string[] = [];
    for (const host of this.route.order(this.opts.via())) {
      try {
        const stream = await this.opts.executor.forward(host, this.opts.endpoint.host, this.opts.endpoint.port);
        this.route.succeeded(host.id);
        this.lastTunnelError = undefined;
        const clientPort = socket.remotePort;
        if (clientPort !== undefined) {
          this.viaOf.set(clientPort, host.id);
          socket.once("close", () => this.viaOf.delete(clientPort));
        }
        stream.on("error", () => socket.destroy());
        socket.pipe(stream).pipe(socket);
        socket.once("close", () => stream.destroy());
        return;
      } catch (err) {
        this.route.failed(host.id);
        errors.push(`from ${host.id}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    this.lastTunnelError = `cannot reach the API at ${this.endpoint} (${errors.join("; ") || "no master to tunnel through"})`;
    socket.destroy();
  }

  async kubeConfig(): Promise<k8s.KubeConfig> {
    const port = await this.listen();
    // Loaded on first use: the client library takes seconds to load, and a worker taking a run over
    // should reach its next step first.
    const { KubeConfig } = await import("@kubernetes/client-node");
    const kc = new KubeConfig();
    const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
    kc.loadFromOptions({
      clusters: [{ name: "cluster", server: `https://127.0.0.1:${port}`, caData: b64(this.opts.credentials.caPem), skipTLSVerify: false }],
      users: [{ name: "bootdeck-admin", certData: b64(this.opts.credentials.certPem), keyData: b64(this.opts.credentials.keyPem) }],
      contexts: [{ name: "bootdeck", cluster: "cluster", user: "bootdeck-admin" }],
      currentContext: "bootdeck",
    });
    return kc;
  }

  /** One HTTPS request through the tunnel; resolves with any status, rejects only when nothing answered. */
  async request(path: string, opts: { method?: string; body?: unknown; contentType?: string; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<RawResponse> {
    const port = await this.listen();
    const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: "127.0.0.1",
          port,
          path,
          method: opts.method ?? "GET",
          ca: this.opts.credentials.caPem,
          cert: this.opts.credentials.certPem,
          key: this.opts.credentials.keyPem,
          headers: { accept: "application/json", ...(payload ? { "content-type": opts.contentType ?? "application/json" } : {}) },
          timeout: opts.timeoutMs ?? 10_000,
          signal: opts.signal,
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
        },
      );
      req.on("timeout", () => {
        // The way through that master may be what hangs (its path to the address): the next request
        // goes through another one.
        const via = req.socket?.localPort === undefined ? undefined : this.viaOf.get(req.socket.localPort);
        if (via) this.route.failed(via);
        req.destroy(new Error(`no answer from the API at ${this.endpoint}${via ? ` (through ${via})` : ""} within ${(opts.timeoutMs ?? 10_000) / 1000} s`));
      });
      req.on("error", (err) => reject(this.lastTunnelError && /socket hang up|ECONNRESET/.test(err.message) ? new Error(this.lastTunnelError) : err));
      req.end(payload);
    });
  }

  /** GET a JSON object; undefined on 404; throws with the API's message otherwise. */
  async getJson<T>(path: string, signal?: AbortSignal): Promise<T | undefined> {
    const r = await this.request(path, { signal });
    if (r.status === 404) return undefined;
    if (r.status < 200 || r.status > 299) throw new Error(`GET ${path}: HTTP ${r.status} ${apiMessage(r.body)}`);
    return JSON.parse(r.body) as T;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = undefined;
    this.listening = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export function apiMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: string };
    return parsed.message ?? body.slice(0, 300);
  } catch {
    return body.slice(0, 300);
  }
}
