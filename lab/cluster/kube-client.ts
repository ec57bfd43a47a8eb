// A small Kubernetes API client for the lab's stand-ins (controller-manager, scheduler, kubelet): reads
// a kubeconfig (client certificate or token, inline or from files), speaks JSON over HTTPS, and watches.
// Paths in a kubeconfig are resolved through the pod's volume map when it runs "in a container".
import fs from "node:fs";
import https from "node:https";
import { parse as parseYaml } from "yaml";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Container path → host path, set by the kubelet stand-in for the processes it runs as pods. */
export function containerPath(p: string): string {
  const raw = process.env.BOOTDECK_LAB_MOUNTS;
  if (!raw) return p;
  const mounts = JSON.parse(raw) as Record<string, string>;
  let best = "";
  for (const m of Object.keys(mounts)) if ((p === m || p.startsWith(`${m.replace(/\/$/, "")}/`)) && m.length > best.length) best = m;
  return best ? `${mounts[best]}${p.slice(best.replace(/\/$/, "").length)}` : p;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly body?: Obj,
  ) {
    super(message);
  }
}

export type ClientCreds = { server: string; ca?: Buffer; cert?: Buffer; key?: Buffer; token?: string; tokenFile?: string };

export function loadKubeconfig(file: string): ClientCreds {
  const text = fs.readFileSync(containerPath(file), "utf8");
  const kc = parseYaml(text) as Obj;
  const ctxName = kc["current-context"] ?? kc.contexts?.[0]?.name;
  const ctx = (kc.contexts ?? []).find((c: Obj) => c.name === ctxName)?.context ?? kc.contexts?.[0]?.context ?? {};
  const cluster = ((kc.clusters ?? []).find((c: Obj) => c.name === ctx.cluster) ?? kc.clusters?.[0])?.cluster ?? {};
  const user = ((kc.users ?? []).find((u: Obj) => u.name === ctx.user) ?? kc.users?.[0])?.user ?? {};
  const data = (inline: string | undefined, file: string | undefined) =>
    inline ? Buffer.from(inline, "base64") : file ? fs.readFileSync(containerPath(file)) : undefined;
  if (!cluster.server) throw new Error(`invalid configuration: no server found for cluster in ${file}`);
  return {
    server: cluster.server,
    ca: data(cluster["certificate-authority-data"], cluster["certificate-authority"]),
    cert: data(user["client-certificate-data"], user["client-certificate"]),
    key: data(user["client-key-data"], user["client-key"]),
    token: user.token,
    tokenFile: user.tokenFile ? containerPath(user.tokenFile) : undefined,
  };
}

export class KubeClient {
  private readonly agent: https.Agent;
  constructor(readonly creds: ClientCreds) {
    this.agent = new https.Agent({ ca: creds.ca, cert: creds.cert, key: creds.key, keepAlive: true, maxSockets: 16 });
  }

  static fromKubeconfig(file: string): KubeClient {
    return new KubeClient(loadKubeconfig(file));
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { accept: "application/json", ...extra };
    const token = this.creds.tokenFile ? fs.readFileSync(this.creds.tokenFile, "utf8").trim() : this.creds.token;
    if (token) h.authorization = `Bearer ${token}`;
    return h;
  }

  request(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<Obj> {
    const url = new URL(path, this.creds.server);
    return new Promise((resolve, reject) => {
      const req = https.request(
        url,
        { method, agent: this.agent, headers: this.headers(body === undefined ? {} : { "content-type": contentType }), timeout: 15_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString();
            let parsed: Obj | undefined;
            try {
              parsed = text ? (JSON.parse(text) as Obj) : {};
            } catch {
              parsed = undefined;
            }
            if ((res.statusCode ?? 500) >= 300) reject(new ApiError(res.statusCode ?? 500, parsed?.message ?? text.slice(0, 300), parsed));
            else resolve(parsed ?? { text });
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`request to ${url.host} timed out`)));
      req.on("error", reject);
      req.end(body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body));
    });
  }

  get = (path: string) => this.request("GET", path);
  create = (path: string, body: Obj) => this.request("POST", path, body);
  update = (path: string, body: Obj) => this.request("PUT", path, body);
  patch = (path: string, body: unknown, type: "merge" | "strategic" | "json" = "merge") =>
    this.request("PATCH", path, body, type === "json" ? "application/json-patch+json" : type === "strategic" ? "application/strategic-merge-patch+json" : "application/merge-patch+json");
  delete = (path: string, body?: Obj) => this.request("DELETE", path, body);

  async getOrUndefined(path: string): Promise<Obj | undefined> {
    try {
      return await this.get(path);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    }
  }

  /** GET as plain text (pod logs). */
  text(path: string): Promise<string> {
    const url = new URL(path, this.creds.server);
    return new Promise((resolve, reject) => {
      https
        .get(url, { agent: this.agent, headers: this.headers() }, (res) => {
          let t = "";
          res.on("data", (c) => (t += c));
          res.on("end", () => ((res.statusCode ?? 500) >= 300 ? reject(new ApiError(res.statusCode ?? 500, t)) : resolve(t)));
        })
        .on("error", reject);
    });
  }

  /** Streams watch events; returns a stop function. onEnd is called once when the stream ends. */
  watch(path: string, onEvent: (type: string, obj: Obj) => void, onEnd: (err?: Error) => void): () => void {
    const url = new URL(path, this.creds.server);
    url.searchParams.set("watch", "true");
    let ended = false;
    const end = (err?: Error) => {
      if (!ended) {
        ended = true;
        onEnd(err);
      }
    };
    const req = https.request(url, { method: "GET", agent: this.agent, headers: this.headers() }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return end(new ApiError(res.statusCode ?? 500, `watch ${path}: HTTP ${res.statusCode}`));
      }
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        buf += c;
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (!line.trim()) continue;
          try {
            const e = JSON.parse(line) as { type: string; object: Obj };
            onEvent(e.type, e.object);
          } catch {
            /* partial garbage: ignore */
          }
        }
      });
      res.on("end", () => end());
      res.on("error", (e) => end(e));
    });
    req.on("error", (e) => end(e));
    req.end();
    return () => {
      ended = true;
      req.destroy();
    };
  }
}

/**
 * List-then-watch cache of one resource (an informer): keeps `items` current and calls onChange after
 * every change, re-listing when the watch ends. Stops with stop().
 */
export class Informer {
  readonly items = new Map<string, Obj>();
  private stopWatch?: () => void;
  private stopped = false;
  synced = false;

  constructor(
    private readonly client: KubeClient,
    private readonly path: string,
    private readonly onChange: (type: string, obj: Obj) => void = () => undefined,
    private readonly log: (l: string) => void = () => undefined,
  ) {}

  static key(o: Obj): string {
    return o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata?.name;
  }

  async start(): Promise<void> {
    while (!this.stopped) {
      try {
        const list = await this.client.get(this.path);
        this.items.clear();
        for (const o of list.items ?? []) this.items.set(Informer.key(o), o);
        this.synced = true;
        this.onChange("SYNC", {});
        const sep = this.path.includes("?") ? "&" : "?";
        await new Promise<void>((resolve) => {
          this.stopWatch = this.client.watch(
            `${this.path}${sep}resourceVersion=${list.metadata?.resourceVersion ?? ""}`,
            (type, obj) => {
              if (type === "ERROR") return;
              if (type === "DELETED") this.items.delete(Informer.key(obj));
              else this.items.set(Informer.key(obj), obj);
              this.onChange(type, obj);
            },
            () => resolve(),
          );
        });
      } catch (e) {
        this.log(`list ${this.path}: ${(e as Error).message}`);
      }
      if (!this.stopped) await new Promise((r) => setTimeout(r, 1000));
    }
  }

  run(): this {
    void this.start();
    return this;
  }

  stop(): void {
    this.stopped = true;
    this.stopWatch?.();
  }

  list(): Obj[] {
    return [...this.items.values()];
  }
}
