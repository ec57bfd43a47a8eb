// A small etcd v3 client over the JSON gRPC gateway that etcd 3.4 serves on its client port
// (`/v3/kv/range`, `/v3/kv/txn`, `/v3/kv/deleterange`, streaming `/v3/watch`; 3.4.23 also answers
// `/v3beta/`, we use `/v3/`). Lab stand-in code: it lets the API server stand-in keep its objects in
// the real etcd, exactly where a real kube-apiserver would, so state survives the pivot.
import http from "node:http";
import https from "node:https";
import fs from "node:fs";

export type EtcdTls = { caFile?: string; certFile?: string; keyFile?: string };
export type Kv = { key: string; value: Buffer; createRevision: number; modRevision: number };
export type WatchEvent = { type: "PUT" | "DELETE"; kv: Kv; prevKv?: Kv };

type RawKv = { key: string; value?: string; create_revision?: string; mod_revision?: string };

const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");
/** The end of a prefix range: the prefix with its last byte incremented. */
export function prefixEnd(prefix: string): string {
  const b = Buffer.from(prefix);
  b[b.length - 1] = (b[b.length - 1] ?? 0) + 1;
  return b.toString("base64");
}
const toKv = (r: RawKv): Kv => ({
  key: Buffer.from(r.key, "base64").toString(),
  value: Buffer.from(r.value ?? "", "base64"),
  createRevision: Number(r.create_revision ?? 0),
  modRevision: Number(r.mod_revision ?? 0),
});

export class EtcdError extends Error {
  constructor(message: string, readonly code?: number) {
    super(message);
  }
}

export class EtcdClient {
  private readonly endpoints: URL[];
  private readonly agentOpts: https.AgentOptions;
  /** Keep-alive connections for unary calls (a TLS handshake per request made creates slow); watches get their own. */
  private readonly agent: https.Agent;
  private readonly plainAgent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  private current = 0;

  constructor(servers: string, tls: EtcdTls) {
    this.endpoints = servers.split(",").filter(Boolean).map((s) => new URL(s));
    if (this.endpoints.length === 0) throw new Error("--etcd-servers is empty");
    this.agentOpts = {
      ca: tls.caFile ? fs.readFileSync(tls.caFile) : undefined,
      cert: tls.certFile ? fs.readFileSync(tls.certFile) : undefined,
      key: tls.keyFile ? fs.readFileSync(tls.keyFile) : undefined,
    };
    this.agent = new https.Agent({ ...this.agentOpts, keepAlive: true, maxSockets: 32 });
  }

  private request(path: string, body: unknown, onStream?: (res: http.IncomingMessage) => void, signal?: AbortSignal): Promise<unknown> {
    const tryOne = (attempt: number): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const url = new URL(path, this.endpoints[this.current % this.endpoints.length]);
        const mod = url.protocol === "https:" ? https : http;
        const req = mod.request(
          url,
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            ...(url.protocol === "https:" ? this.agentOpts : {}),
            agent: onStream ? false : url.protocol === "https:" ? this.agent : this.plainAgent,
            signal,
            timeout: onStream ? 0 : 10_000,
          },
          (res) => {
            if (onStream && res.statusCode === 200) {
              onStream(res);
              resolve(undefined);
              return;
            }
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => {
              const text = Buffer.concat(chunks).toString();
              if (res.statusCode !== 200) return reject(new EtcdError(`etcd ${path}: HTTP ${res.statusCode}: ${text}`, res.statusCode));
              try {
                resolve(JSON.parse(text));
              } catch {
                reject(new EtcdError(`etcd ${path}: bad JSON`));
              }
            });
          },
        );
        req.on("timeout", () => req.destroy(new Error("etcd request timed out")));
        req.on("error", reject);
        req.end(JSON.stringify(body));
      }).catch((err: unknown) => {
        if (err instanceof EtcdError || signal?.aborted || attempt + 1 >= this.endpoints.length) throw err;
        this.current++;
        return tryOne(attempt + 1);
      });
    return tryOne(0);
  }

  async status(): Promise<{ revision: number }> {
    const r = (await this.request("/v3/maintenance/status", {})) as { header?: { revision?: string } };
    return { revision: Number(r.header?.revision ?? 0) };
  }

  async get(key: string): Promise<{ kv?: Kv; revision: number }> {
    const r = (await this.request("/v3/kv/range", { key: b64(key) })) as { header: { revision: string }; kvs?: RawKv[] };
    return { kv: r.kvs?.[0] ? toKv(r.kvs[0]) : undefined, revision: Number(r.header.revision) };
  }

  async list(prefix: string, revision?: number): Promise<{ kvs: Kv[]; revision: number }> {
    const body: Record<string, unknown> = { key: b64(prefix), range_end: prefixEnd(prefix) };
    if (revision) body.revision = String(revision);
    const r = (await this.request("/v3/kv/range", body)) as { header: { revision: string }; kvs?: RawKv[] };
    return { kvs: (r.kvs ?? []).map(toKv), revision: Number(r.header.revision) };
  }

  /**
   * Puts when the key's mod revision equals `expectMod` (0: the key must not exist; undefined: any).
   * Returns the new revision, or the current kv when the comparison failed.
   */
  async put(key: string, value: string, expectMod?: number): Promise<{ ok: true; revision: number } | { ok: false; current?: Kv }> {
    const compare =
      expectMod === undefined
        ? []
        : expectMod === 0
          ? [{ key: b64(key), target: "CREATE", create_revision: "0", result: "EQUAL" }]
          : [{ key: b64(key), target: "MOD", mod_revision: String(expectMod), result: "EQUAL" }];
    const r = (await this.request("/v3/kv/txn", {
      compare,
      success: [{ request_put: { key: b64(key), value: b64(value) } }],
      failure: [{ request_range: { key: b64(key) } }],
    })) as { header: { revision: string }; succeeded?: boolean; responses?: { response_range?: { kvs?: RawKv[] } }[] };
    if (r.succeeded) return { ok: true, revision: Number(r.header.revision) };
    const kv = r.responses?.[0]?.response_range?.kvs?.[0];
    return { ok: false, current: kv ? toKv(kv) : undefined };
  }

  /** Deletes when the mod revision matches (undefined: any); returns the deleted kv and the new revision. */
  async delete(key: string, expectMod?: number): Promise<{ ok: boolean; prev?: Kv; revision: number }> {
    const compare = expectMod === undefined ? [] : [{ key: b64(key), target: "MOD", mod_revision: String(expectMod), result: "EQUAL" }];
    const r = (await this.request("/v3/kv/txn", {
      compare,
      success: [{ request_delete_range: { key: b64(key), prev_kv: true } }],
      failure: [],
    })) as { header: { revision: string }; succeeded?: boolean; responses?: { response_delete_range?: { prev_kvs?: RawKv[] } }[] };
    const prev = r.responses?.[0]?.response_delete_range?.prev_kvs?.[0];
    return { ok: !!r.succeeded && !!prev, prev: prev ? toKv(prev) : undefined, revision: Number(r.header.revision) };
  }

  /**
   * Watches a prefix from `fromRevision` (inclusive). Calls onEvents for each batch; onEnd once when
   * the stream ends, with an error when it failed or the revision was compacted (`compacted: true`).
   */
  watch(
    prefix: string,
    fromRevision: number,
    onEvents: (events: WatchEvent[], revision: number) => void,
    onEnd: (err?: Error & { compacted?: boolean }) => void,
  ): () => void {
    const ac = new AbortController();
    let ended = false;
    const end = (err?: Error & { compacted?: boolean }) => {
      if (ended) return;
      ended = true;
      onEnd(err);
    };
    this.request(
      "/v3/watch",
      { create_request: { key: b64(prefix), range_end: prefixEnd(prefix), start_revision: String(fromRevision), prev_kv: true } },
      (res) => {
        let buf = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          buf += chunk;
          let i: number;
          while ((i = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, i).trim();
            buf = buf.slice(i + 1);
            if (!line) continue;
            let msg: { result?: { header?: { revision?: string }; events?: { type?: string; kv: RawKv; prev_kv?: RawKv }[]; compact_revision?: string; canceled?: boolean }; error?: { message?: string } };
            try {
              msg = JSON.parse(line);
            } catch {
              continue;
            }
            if (msg.error) return end(new Error(msg.error.message ?? "etcd watch error"));
            const r = msg.result;
            if (!r) continue;
            if (r.compact_revision && Number(r.compact_revision) > 0) {
              const e = new Error(`required revision has been compacted`) as Error & { compacted?: boolean };
              e.compacted = true;
              ac.abort();
              return end(e);
            }
            if (r.canceled) return end(new Error("etcd watch canceled"));
            if (r.events?.length) {
              onEvents(
                r.events.map((e) => ({ type: e.type === "DELETE" ? "DELETE" : "PUT", kv: toKv(e.kv), prevKv: e.prev_kv ? toKv(e.prev_kv) : undefined })),
                Number(r.header?.revision ?? 0),
              );
            }
          }
        });
        res.on("end", () => end(new Error("etcd watch stream ended")));
        res.on("error", (e) => end(e));
      },
      ac.signal,
    ).catch((e: Error) => end(e));
    return () => {
      ended = true;
      ac.abort();
    };
  }
}
