// The lab's API server stand-in. It takes kube-apiserver's flags, serves HTTPS with the rendered serving
// certificate, authenticates like the real one (client certificates against --client-ca-file,
// bootstrap tokens, service-account JWTs, a static token file for 1.5) and keeps every object in the
// real etcd at /registry/… with etcd revisions as resourceVersions, so two of them (the bootstrap
// and the self-hosted API server) share state across the pivot. Authorization is not enforced beyond
// what bootstrap-token users may touch (see docs/lab-cluster.md).
import { randomBytes, randomUUID, X509Certificate } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { TLSSocket } from "node:tls";
import { parse as parseYaml } from "yaml";
import { EtcdClient, type Kv } from "./etcd";
import { flagBool, parseFlags, type FlagSpec } from "./flags";
import { signJwt, verifyJwt } from "./jwt";
import { jsonPatch, mergePatch, PatchError, strategicMergePatch } from "./patch";
import { BUILTIN_RESOURCES, groupVersion, HAS_STATUS_SUBRESOURCE, type Resource } from "./resources";
import { matchFields, matchLabels, parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors";
import { toTable } from "./tables";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
export type User = { name: string; groups: string[]; uid?: string };
type Log = (line: string) => void;

const APISERVER_FLAGS: FlagSpec = {
  "etcd-servers": "string",
  "etcd-cafile": "string",
  "etcd-certfile": "string",
  "etcd-keyfile": "string",
  "client-ca-file": "string",
  "tls-cert-file": "string",
  "tls-private-key-file": "string",
  "service-account-key-file": "list",
  "service-account-signing-key-file": "string",
  "service-account-issuer": "string",
  "secure-port": "string",
  "bind-address": "string",
  "advertise-address": "string",
  "service-cluster-ip-range": "string",
  "enable-bootstrap-token-auth": "bool",
  "token-auth-file": "string",
  "kubelet-client-certificate": "string",
  "kubelet-client-key": "string",
  "anonymous-auth": "bool",
};

export type ApiServerOptions = {
  etcdServers: string;
  etcdCaFile?: string;
  etcdCertFile?: string;
  etcdKeyFile?: string;
  clientCaFile?: string;
  tlsCertFile: string;
  tlsKeyFile: string;
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile?: string;
  serviceAccountIssuer: string;
  securePort: number;
  bindAddress: string;
  advertiseAddress?: string;
  serviceClusterIpRange: string;
  enableBootstrapTokenAuth: boolean;
  tokenAuthFile?: string;
  kubeletClientCertFile?: string;
  kubeletClientKeyFile?: string;
  /** The version /version reports (the image tag the kubelet stand-in ran us from). */
  version: string;
};

export function apiServerOptionsFromFlags(argv: readonly string[], log: Log, version = process.env.BOOTDECK_LAB_K8S_VERSION ?? "v1.34.4"): ApiServerOptions {
  const f = parseFlags(argv, APISERVER_FLAGS, false);
  for (const u of f.unknown) if (u.startsWith("-")) log(`flag ${u.split("=")[0]} is accepted and ignored by the lab API server`);
  const need = (n: string) => {
    const v = f.values.get(n);
    if (!v) throw new Error(`--${n} must be specified`);
    return v;
  };
  return {
    etcdServers: need("etcd-servers"),
    etcdCaFile: f.values.get("etcd-cafile"),
    etcdCertFile: f.values.get("etcd-certfile"),
    etcdKeyFile: f.values.get("etcd-keyfile"),
    clientCaFile: f.values.get("client-ca-file"),
    tlsCertFile: need("tls-cert-file"),
    tlsKeyFile: need("tls-private-key-file"),
    serviceAccountKeyFiles: f.lists.get("service-account-key-file") ?? [],
    serviceAccountSigningKeyFile: f.values.get("service-account-signing-key-file"),
    serviceAccountIssuer: f.values.get("service-account-issuer") ?? "kubernetes/serviceaccount",
    securePort: Number(f.values.get("secure-port") ?? 6443),
    bindAddress: f.values.get("bind-address") ?? "0.0.0.0",
    advertiseAddress: f.values.get("advertise-address"),
    serviceClusterIpRange: f.values.get("service-cluster-ip-range") ?? "10.0.0.0/24",
    enableBootstrapTokenAuth: flagBool(f, "enable-bootstrap-token-auth"),
    tokenAuthFile: f.values.get("token-auth-file"),
    kubeletClientCertFile: f.values.get("kubelet-client-certificate"),
    kubeletClientKeyFile: f.values.get("kubelet-client-key"),
    version,
  };
}

export class HttpError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: Obj,
  ) {
    super(message);
  }
}

const statusBody = (code: number, reason: string, message: string, details?: Obj) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: code < 400 ? "Success" : "Failure",
  message,
  reason,
  details,
  code,
});

const notFound = (res: Resource, name: string) =>
  new HttpError(404, "NotFound", `${res.plural}${res.group ? `.${res.group}` : ""} "${name}" not found`, { name, group: res.group, kind: res.plural });

function ipToNum(ip: string): number {
  return ip.split(".").reduce((n, o) => n * 256 + Number(o), 0);
}
const numToIp = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");

/** The subresources a path names, e.g. pods/x/status; `log` and `binding` are handled apart. */
type Route = { res: Resource; served: { group: string; version: string }; namespace?: string; name?: string; sub?: string; watchPath: boolean };

export class ApiServer {
  readonly etcd: EtcdClient;
  private server?: https.Server;
  private resources: Resource[] = [...BUILTIN_RESOURCES];
  private crdTimer?: NodeJS.Timeout;
  private readonly saPublicKeys: string[];
  private readonly tokenFile = new Map<string, User>();
  private readonly openWatches = new Set<() => void>();
  private readonly startedAt = new Date();

  constructor(
    readonly opts: ApiServerOptions,
    private readonly log: Log = (l) => process.stderr.write(`${l}\n`),
  ) {
    this.etcd = new EtcdClient(opts.etcdServers, { caFile: opts.etcdCaFile, certFile: opts.etcdCertFile, keyFile: opts.etcdKeyFile });
    this.saPublicKeys = opts.serviceAccountKeyFiles.map((f) => fs.readFileSync(f, "utf8"));
    if (opts.tokenAuthFile) {
      for (const line of fs.readFileSync(opts.tokenAuthFile, "utf8").split("\n")) {
        const m = /^([^,]+),([^,]+),([^,]*)(?:,"?([^"]*)"?)?/.exec(line.trim());
        if (m) this.tokenFile.set(m[1] ?? "", { name: m[2] ?? "", uid: m[3], groups: (m[4] ?? "").split(",").filter(Boolean) });
      }
    }
  }

  /** Listens; rejects with EADDRINUSE like the real one when the port is taken (the pivot's crash loop). */
  async start(): Promise<void> {
    const o = this.opts;
    this.server = https.createServer(
      {
        cert: fs.readFileSync(o.tlsCertFile),
        key: fs.readFileSync(o.tlsKeyFile),
        ca: o.clientCaFile ? fs.readFileSync(o.clientCaFile) : undefined,
        requestCert: !!o.clientCaFile,
        rejectUnauthorized: false,
      },
      (req, res) => {
        this.handle(req, res).catch((err: unknown) => this.sendError(res, err));
      },
    );
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      this.server?.once("error", reject);
      this.server?.listen(o.securePort, o.bindAddress, () => resolve());
    });
    this.log(`Serving securely on ${o.bindAddress}:${o.securePort} (lab API server ${o.version}, etcd ${o.etcdServers})`);
    await this.refreshCrds().catch((e: Error) => this.log(`loading CRDs: ${e.message}`));
    this.crdTimer = setInterval(() => void this.refreshCrds().catch(() => undefined), 2_000);
    void this.bootstrapObjects().catch((e: Error) => this.log(`creating the default objects: ${e.message}`));
  }

  async stop(): Promise<void> {
    if (this.crdTimer) clearInterval(this.crdTimer);
    for (const close of this.openWatches) close();
    // Kept-alive client connections would hold close() open forever: cut them once it stops listening.
    await new Promise<void>((r) => {
      if (!this.server) return r();
      this.server.close(() => r());
      this.server.closeAllConnections();
    });
  }

  get port(): number {
    const a = this.server?.address();
    return a && typeof a === "object" ? a.port : this.opts.securePort;
  }

  // ---------------------------------------------------------------- objects the API server owns
  private async bootstrapObjects(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        for (const ns of ["default", "kube-system", "kube-public", "kube-node-lease"]) {
          await this.createObject(this.resource("", "v1", "namespaces"), undefined, { metadata: { name: ns } }).catch(ignoreExists);
        }
        const [base] = this.serviceRange();
        await this.createObject(this.resource("", "v1", "services"), "default", {
          metadata: { name: "kubernetes", labels: { component: "apiserver", provider: "kubernetes" } },
          spec: { clusterIP: numToIp(base + 1), ports: [{ name: "https", port: 443, protocol: "TCP", targetPort: this.opts.securePort }], type: "ClusterIP" },
        }).catch(ignoreExists);
        if (this.opts.advertiseAddress && /^[0-9.]+$/.test(this.opts.advertiseAddress)) await this.reconcileKubernetesEndpoints(this.opts.advertiseAddress);
        return;
      } catch (err) {
        if (attempt % 10 === 0) this.log(`waiting for etcd: ${(err as Error).message}`);
        await sleep(1_000);
      }
    }
  }

  private async reconcileKubernetesEndpoints(address: string): Promise<void> {
    const res = this.resource("", "v1", "endpoints");
    await this.mutate(res, "default", "kubernetes", (cur) => {
      const addrs: Obj[] = cur?.subsets?.[0]?.addresses ?? [];
      if (addrs.some((a) => a.ip === address)) return cur ?? null;
      return {
        ...(cur ?? { metadata: { name: "kubernetes", namespace: "default" } }),
        subsets: [{ addresses: [...addrs, { ip: address }], ports: [{ name: "https", port: this.opts.securePort, protocol: "TCP" }] }],
      };
    }, true);
  }

  private serviceRange(): [number, number] {
    const [ip, bits] = this.opts.serviceClusterIpRange.split(",")[0]?.split("/") ?? [];
    const size = 2 ** (32 - Number(bits ?? 24));
    return [ipToNum(ip ?? "10.0.0.0"), size];
  }

  private async allocateClusterIp(svc: Obj): Promise<void> {
    if (svc.spec?.clusterIP === "None" || svc.spec?.type === "ExternalName") return;
    const [base, size] = this.serviceRange();
    const { kvs } = await this.etcd.list("/registry/services/specs/");
    const used = new Set(kvs.map((kv) => (JSON.parse(kv.value.toString()) as Obj).spec?.clusterIP));
    const wanted: string | undefined = svc.spec?.clusterIP;
    if (wanted) {
      const n = ipToNum(wanted);
      if (n <= base || n >= base + size - 1)
        throw new HttpError(422, "Invalid", `Service "${svc.metadata.name}" is invalid: spec.clusterIPs: Invalid value: []string{"${wanted}"}: failed to allocate IP ${wanted}: provided IP is not in the valid range. The range of valid IPs is ${this.opts.serviceClusterIpRange}`);
      if (used.has(wanted))
        throw new HttpError(422, "Invalid", `Service "${svc.metadata.name}" is invalid: spec.clusterIPs: Invalid value: []string{"${wanted}"}: failed to allocate IP ${wanted}: provided IP is already allocated`);
    } else {
      let ip: string | undefined;
      for (let n = base + 2; n < base + size - 1; n++) if (!used.has(numToIp(n))) {
        ip = numToIp(n);
        break;
      }
      if (!ip) throw new HttpError(500, "InternalError", "Internal error occurred: failed to allocate a serviceIP: range is full");
      svc.spec = { ...svc.spec, clusterIP: ip };
    }
    svc.spec.clusterIPs = [svc.spec.clusterIP];
  }

  // ---------------------------------------------------------------- resources and CRDs
  private resource(group: string, version: string, plural: string): Resource {
    const r = this.resources.find((x) => x.group === group && x.version === version && x.plural === plural);
    if (!r) throw new Error(`no resource ${group}/${version}/${plural}`);
    return r;
  }

  private findResource(group: string, version: string, plural: string): { res: Resource; served: { group: string; version: string } } | undefined {
    for (const r of this.resources) {
      if (r.plural !== plural) continue;
      if (r.group === group && r.version === version) return { res: r, served: { group, version } };
      if (r.aliases?.some((a) => a.group === group && a.version === version)) return { res: r, served: { group, version } };
    }
    return undefined;
  }

  private servedGroupVersions(): Map<string, { group: string; version: string; resources: Resource[] }> {
    const out = new Map<string, { group: string; version: string; resources: Resource[] }>();
    for (const r of this.resources) {
      for (const gv of [{ group: r.group, version: r.version }, ...(r.aliases ?? [])]) {
        const k = groupVersion(gv);
        const e = out.get(k) ?? { ...gv, resources: [] };
        e.resources.push(r);
        out.set(k, e);
      }
    }
    return out;
  }

  async refreshCrds(): Promise<void> {
    const { kvs } = await this.etcd.list("/registry/apiextensions.k8s.io/customresourcedefinitions/");
    const custom: Resource[] = [];
    for (const kv of kvs) {
      const crd = JSON.parse(kv.value.toString()) as Obj;
      const s = crd.spec ?? {};
      for (const v of s.versions ?? (s.version ? [{ name: s.version, served: true }] : [])) {
        if (v.served === false) continue;
        custom.push({
          group: s.group,
          version: v.name,
          kind: s.names?.kind,
          plural: s.names?.plural,
          singular: s.names?.singular ?? String(s.names?.kind ?? "").toLowerCase(),
          namespaced: s.scope !== "Cluster",
          shortNames: s.names?.shortNames,
          subresources: v.subresources?.status || s.subresources?.status ? ["status"] : [],
          storage: `${s.group}/${s.names?.plural}`,
        });
      }
    }
    this.resources = [...BUILTIN_RESOURCES, ...custom];
  }

  // ---------------------------------------------------------------- authentication
  async authenticate(req: http.IncomingMessage): Promise<User | undefined> {
    const sock = req.socket as TLSSocket;
    if (sock.authorized) {
      const cert = sock.getPeerCertificate();
      const subj = cert.subject as unknown as Record<string, string | string[]> | undefined;
      const cn = subj?.CN;
      if (cn) {
        const o = subj?.O;
        return { name: Array.isArray(cn) ? (cn[0] ?? "") : cn, groups: [...(Array.isArray(o) ? o : o ? [o] : []), "system:authenticated"] };
      }
    }
    const auth = req.headers.authorization;
    if (!auth?.startsWith("Bearer ")) return undefined;
    const token = auth.slice(7).trim();
    const fromFile = this.tokenFile.get(token);
    if (fromFile) return { ...fromFile, groups: [...fromFile.groups, "system:authenticated"] };
    const bt = /^([a-z0-9]{6})\.([a-z0-9]{16})$/.exec(token);
    if (bt) return this.opts.enableBootstrapTokenAuth ? this.bootstrapTokenUser(bt[1] ?? "", bt[2] ?? "") : undefined;
    const claims = verifyJwt(token, this.saPublicKeys);
    if (!claims) return undefined;
    const k8s = claims["kubernetes.io"] as Obj | undefined;
    const ns = k8s?.namespace ?? claims["kubernetes.io/serviceaccount/namespace"];
    const sa = k8s?.serviceaccount?.name ?? claims["kubernetes.io/serviceaccount/service-account.name"];
    if (!ns || !sa) return undefined;
    return { name: `system:serviceaccount:${ns}:${sa}`, groups: ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"] };
  }

  private async bootstrapTokenUser(id: string, secret: string): Promise<User | undefined> {
    const { kv } = await this.etcd.get(`/registry/secrets/kube-system/bootstrap-token-${id}`);
    if (!kv) return undefined;
    const s = JSON.parse(kv.value.toString()) as Obj;
    const d = (k: string): string | undefined => (s.stringData?.[k] as string | undefined) ?? (s.data?.[k] ? Buffer.from(s.data[k], "base64").toString() : undefined);
    if (s.type !== "bootstrap.kubernetes.io/token" || d("token-secret") !== secret || d("usage-bootstrap-authentication") !== "true") return undefined;
    const exp = d("expiration");
    if (exp && Date.parse(exp) < Date.now()) return undefined;
    const extra = (d("auth-extra-groups") ?? "").split(",").filter(Boolean);
    return { name: `system:bootstrap:${id}`, groups: ["system:bootstrappers", ...extra, "system:authenticated"] };
  }

  /** Bootstrap-token users may only ask for their certificate (and read discovery), as with the real RBAC defaults. */
  private authorize(user: User, route: Route | undefined, method: string): void {
    if (!user.groups.includes("system:bootstrappers") || user.groups.includes("system:masters")) return;
    if (!route) return;
    if (route.res.plural === "certificatesigningrequests" && ["GET", "POST"].includes(method)) return;
    throw new HttpError(
      403,
      "Forbidden",
      `${route.res.plural}${route.res.group ? `.${route.res.group}` : ""} is forbidden: User "${user.name}" cannot ${method.toLowerCase()} resource "${route.res.plural}" in API group "${route.res.group}"${route.namespace ? ` in the namespace "${route.namespace}"` : " at the cluster scope"}`,
    );
  }

  // ---------------------------------------------------------------- HTTP
  private send(res: http.ServerResponse, code: number, body: unknown): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(code, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "cache-control": "no-cache, private" });
    res.end(text);
  }

  private sendError(res: http.ServerResponse, err: unknown): void {
    if (err instanceof HttpError) return this.send(res, err.code, statusBody(err.code, err.reason, err.message, err.details));
    if (err instanceof SelectorError || err instanceof PatchError) return this.send(res, 400, statusBody(400, "BadRequest", err.message));
    const msg = err instanceof Error ? err.message : String(err);
    this.log(`internal error: ${msg}`);
    if (/ECONNREFUSED|timed out|EHOSTUNREACH|etcd/.test(msg)) return this.send(res, 503, statusBody(503, "ServiceUnavailable", `etcdserver: ${msg}`));
    this.send(res, 500, statusBody(500, "InternalError", `Internal error occurred: ${msg}`));
  }

  private async readBody(req: http.IncomingMessage): Promise<Obj | undefined> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    if (raw.subarray(0, 4).toString("latin1") === "k8s\0")
      throw new HttpError(415, "UnsupportedMediaType", "the lab API server reads JSON and YAML bodies only, not application/vnd.kubernetes.protobuf");
    const text = raw.toString();
    if (!text.trim()) return undefined;
    try {
      return /yaml/.test(req.headers["content-type"] ?? "") ? (parseYaml(text) as Obj) : (JSON.parse(text) as Obj);
    } catch (e) {
      throw new HttpError(400, "BadRequest", `the body of the request was in an unknown format: ${(e as Error).message}`);
    }
  }

  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "https://lab");
    const path = url.pathname.replace(/\/+$/, "") || "/";
    const method = req.method ?? "GET";
    if (["/healthz", "/livez", "/readyz", "/version"].includes(path) || /^\/(healthz|livez|readyz)\//.test(path)) return this.serveHealth(path, res);
    const user = await this.authenticate(req);
    if (!user) {
      if (req.headers.authorization) this.log(`Unable to authenticate the request: invalid bearer token (${req.socket.remoteAddress} ${method} ${path})`);
      return this.send(res, 401, statusBody(401, "Unauthorized", "Unauthorized"));
    }
    if (path === "/api") return this.send(res, 200, { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: `${this.opts.advertiseAddress ?? "127.0.0.1"}:${this.opts.securePort}` }] });
    if (path === "/apis") return this.send(res, 200, this.groupList());
    if (path.startsWith("/openapi")) return this.serveOpenApi(path, res);

    const route = this.route(path);
    if (route === "group") {
      const g = this.groupList().groups.find((x: Obj) => `/apis/${x.name}` === path);
      if (!g) throw new HttpError(404, "NotFound", "the server could not find the requested resource");
      return this.send(res, 200, { kind: "APIGroup", apiVersion: "v1", ...g });
    }
    if (route === "resources") return this.send(res, 200, this.resourceList(path));
    if (!route) throw new HttpError(404, "NotFound", "the server could not find the requested resource");
    this.authorize(user, route, method);
    const q = url.searchParams;
    const { res: r, namespace, name, sub } = route;
    const dryRun = q.getAll("dryRun").includes("All");

    if (method === "GET" && (q.get("watch") === "true" || q.get("watch") === "1" || route.watchPath))
      return this.serveWatch(req, res, route, q);
    if (method === "GET" && !name) return this.serveList(req, res, route, q);
    if (method === "GET" && r.plural === "pods" && sub === "log") return this.servePodLog(res, namespace ?? "default", name ?? "", q);
    if (method === "GET" && sub === "scale") return this.send(res, 200, this.scaleOf(await this.getObject(r, namespace, name ?? ""), route));
    if (method === "GET") return this.send(res, 200, this.present(await this.getObject(r, namespace, name ?? ""), route, req));

    if (method === "POST" && r.plural === "serviceaccounts" && sub === "token") return this.send(res, 201, await this.tokenRequest(namespace ?? "", name ?? "", (await this.readBody(req)) ?? {}));
    if (method === "POST" && ((r.plural === "pods" && sub === "binding") || r.plural === "bindings")) {
      const body = (await this.readBody(req)) ?? {};
      await this.bind(namespace ?? "default", sub ? (name ?? "") : body.metadata?.name, body.target?.name);
      return this.send(res, 201, statusBody(201, "", "", undefined));
    }
    if (method === "POST" && r.plural === "pods" && sub === "eviction") {
      const pod = await this.deleteObject(r, namespace, name ?? "", {});
      return this.send(res, 201, pod ? statusBody(201, "", "") : statusBody(201, "", ""));
    }
    if (method === "POST" && !name) {
      const body = await this.readBody(req);
      if (!body) throw new HttpError(400, "BadRequest", "the body of the request was empty");
      // The requester is recorded in a CSR's spec, as the real API server does (approvers read it).
      if (r.plural === "certificatesigningrequests") body.spec = { ...body.spec, username: user.name, uid: user.uid, groups: user.groups };
      const created = await this.createObject(r, namespace, body, dryRun);
      return this.send(res, 201, this.present(created, route, req));
    }
    if (method === "PUT" && name) {
      const body = await this.readBody(req);
      if (!body) throw new HttpError(400, "BadRequest", "the body of the request was empty");
      if (sub === "scale") {
        const updated = await this.mutate(r, namespace, name, (cur) => (cur ? { ...cur, spec: { ...cur.spec, replicas: body.spec?.replicas } } : null));
        return this.send(res, 200, this.scaleOf(updated, route));
      }
      const updated = await this.updateObject(r, namespace, name, body, sub, dryRun);
      return this.send(res, 200, this.present(updated, route, req));
    }
    if (method === "PATCH" && name) {
      const body = await this.readBody(req);
      const ct = (req.headers["content-type"] ?? "").split(";")[0] ?? "";
      const updated = await this.patchObject(r, namespace, name, ct, body, sub, dryRun, q.get("force") === "true");
      if (sub === "scale") return this.send(res, 200, this.scaleOf(updated, route));
      return this.send(res, 200, this.present(updated, route, req));
    }
    if (method === "DELETE" && name) {
      const opts = (await this.readBody(req)) ?? {};
      if (q.get("gracePeriodSeconds") !== null) opts.gracePeriodSeconds = Number(q.get("gracePeriodSeconds"));
      const out = await this.deleteObject(r, namespace, name, opts, dryRun);
      return this.send(res, 200, out ? this.present(out, route, req) : statusBody(200, "", "", { name, group: r.group, kind: r.plural }));
    }
    if (method === "DELETE" && !name) {
      const { items } = await this.listObjects(r, namespace, q);
      for (const o of items) await this.deleteObject(r, o.metadata.namespace, o.metadata.name, {}, dryRun).catch(() => undefined);
      return this.send(res, 200, { kind: `${r.kind}List`, apiVersion: groupVersion(route.served), metadata: {}, items: items.map((o) => this.present(o, route)) });
    }
    throw new HttpError(405, "MethodNotAllowed", `the server does not allow this method on the requested resource`);
  }

  private async serveHealth(path: string, res: http.ServerResponse): Promise<void> {
    if (path === "/version") {
      const m = /^v(\d+)\.(\d+)/.exec(this.opts.version);
      return this.send(res, 200, {
        major: m?.[1] ?? "1",
        minor: m?.[2] ?? "32",
        gitVersion: this.opts.version,
        gitCommit: "bootdeck-lab",
        gitTreeState: "clean",
        buildDate: this.startedAt.toISOString(),
        goVersion: "lab",
        compiler: "node",
        platform: "linux/amd64",
      });
    }
    try {
      await this.etcd.status();
    } catch (err) {
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end(`[-]etcd failed: ${(err as Error).message}\n${path.slice(1)} check failed\n`);
      return;
    }
    res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
    res.end("ok");
  }

  /**
   * Just enough OpenAPI for kubectl: an empty v2 document (no schemas: kubectl then skips client-side
   * validation and builds strategic merge patches from its compiled-in types) and v3 documents that
   * declare the fieldValidation parameter, so `kubectl apply` leaves validation to the server.
   */
  private serveOpenApi(path: string, res: http.ServerResponse): void {
    if (path === "/openapi/v2") {
      res.writeHead(200, { "content-type": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "content-length": 0 });
      res.end();
      return;
    }
    const gvs = this.servedGroupVersions();
    if (path === "/openapi/v3") {
      const paths: Obj = {};
      for (const [k, gv] of gvs) {
        const p = gv.group ? `apis/${k}` : "api/v1";
        paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${this.resources.length}` };
      }
      return this.send(res, 200, { paths });
    }
    const rel = path.replace(/^\/openapi\/v3\//, "");
    const gv = gvs.get(rel === "api/v1" ? "v1" : rel.replace(/^apis\//, ""));
    if (!gv) return this.send(res, 404, statusBody(404, "NotFound", "the server could not find the requested resource"));
    const paths: Obj = {};
    for (const r of gv.resources) {
      const base = `/${gv.group ? `apis/${gv.group}` : "api"}/${gv.version}${r.namespaced ? "/namespaces/{namespace}" : ""}/${r.plural}/{name}`;
      paths[base] = {
        patch: {
          "x-kubernetes-group-version-kind": { group: gv.group, version: gv.version, kind: r.kind },
          parameters: [{ name: "fieldValidation", in: "query", schema: { type: "string", uniqueItems: true } }],
        },
      };
    }
    this.send(res, 200, { openapi: "3.0.0", info: { title: "Kubernetes (bootdeck lab)", version: this.opts.version }, paths, components: {} });
  }

  private groupList(): Obj {
    const groups = new Map<string, string[]>();
    for (const [, gv] of this.servedGroupVersions()) {
      if (!gv.group) continue;
      groups.set(gv.group, [...(groups.get(gv.group) ?? []), gv.version]);
    }
    const preferredOf = (g: string, versions: string[]) => this.resources.find((r) => r.group === g)?.version ?? versions[0] ?? "v1";
    return {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: [...groups].map(([name, versions]) => {
        const pref = preferredOf(name, versions);
        const ordered = [pref, ...versions.filter((v) => v !== pref)];
        return { name, versions: ordered.map((v) => ({ groupVersion: `${name}/${v}`, version: v })), preferredVersion: { groupVersion: `${name}/${pref}`, version: pref } };
      }),
    };
  }

  private resourceList(path: string): Obj {
    const gvKey = path === "/api/v1" ? "v1" : path.replace(/^\/apis\//, "");
    const gv = this.servedGroupVersions().get(gvKey);
    if (!gv) throw new HttpError(404, "NotFound", "the server could not find the requested resource");
    const verbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
    const resources: Obj[] = [];
    for (const r of gv.resources) {
      const isBinding = r.plural === "bindings";
      const primary = r.group === gv.group && r.version === gv.version;
      resources.push({ name: r.plural, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: isBinding ? ["create"] : verbs, shortNames: primary ? r.shortNames : undefined, categories: primary && ["pods", "services", "daemonsets", "deployments", "replicasets"].includes(r.plural) ? ["all"] : undefined });
      for (const s of r.subresources ?? []) {
        const kind = s === "binding" ? "Binding" : s === "eviction" ? "Eviction" : s === "token" ? "TokenRequest" : s === "scale" ? "Scale" : r.kind;
        const sv = s === "log" || s === "proxy" ? ["get"] : s === "binding" || s === "eviction" || s === "token" ? ["create"] : ["get", "patch", "update"];
        resources.push({ name: `${r.plural}/${s}`, singularName: "", namespaced: r.namespaced, kind, verbs: sv });
      }
    }
    return { kind: "APIResourceList", apiVersion: "v1", groupVersion: gvKey, resources };
  }

  private route(path: string): Route | "group" | "resources" | undefined {
    const parts = path.split("/").filter(Boolean);
    let group: string;
    let version: string;
    let rest: string[];
    if (parts[0] === "api") {
      if (parts[1] !== "v1") return undefined;
      group = "";
      version = "v1";
      rest = parts.slice(2);
    } else if (parts[0] === "apis") {
      if (parts.length === 2) return "group";
      group = parts[1] ?? "";
      version = parts[2] ?? "";
      rest = parts.slice(3);
    } else return undefined;
    if (rest.length === 0) return "resources";
    let watchPath = false;
    if (rest[0] === "watch") {
      watchPath = true;
      rest = rest.slice(1);
    }
    let namespace: string | undefined;
    if (rest[0] === "namespaces" && rest.length >= 3) {
      const candidate = this.findResource(group, version, rest[2] ?? "");
      if (candidate?.res.namespaced) {
        namespace = rest[1];
        rest = rest.slice(2);
      }
    }
    const found = this.findResource(group, version, rest[0] ?? "");
    if (!found) return undefined;
    return { ...found, namespace, name: rest[1], sub: rest[2], watchPath };
  }

  // ---------------------------------------------------------------- storage
  private key(res: Resource, namespace: string | undefined, name: string): string {
    return res.namespaced ? `/registry/${res.storage}/${namespace}/${name}` : `/registry/${res.storage}/${name}`;
  }

  private prefix(res: Resource, namespace?: string): string {
    return res.namespaced && namespace ? `/registry/${res.storage}/${namespace}/` : `/registry/${res.storage}/`;
  }

  private decode(res: Resource, kv: Kv): Obj {
    const o = JSON.parse(kv.value.toString()) as Obj;
    o.apiVersion = groupVersion(res);
    o.kind = res.kind;
    o.metadata = { ...o.metadata, resourceVersion: String(kv.modRevision) };
    return o;
  }

  /** The object as the client asked for it: its group/version, or a Table. */
  private present(o: Obj, route: Route, req?: http.IncomingMessage): Obj {
    const accept = req?.headers.accept ?? "";
    if (/as=Table/.test(accept)) return toTable(route.res.plural, [this.present(o, route)], o.metadata.resourceVersion, "Object");
    return { ...o, apiVersion: groupVersion(route.served) };
  }

  async getObject(res: Resource, namespace: string | undefined, name: string): Promise<Obj> {
    const { kv } = await this.etcd.get(this.key(res, namespace, name));
    if (!kv) throw notFound(res, name);
    return this.decode(res, kv);
  }

  async listObjects(res: Resource, namespace: string | undefined, q: URLSearchParams): Promise<{ items: Obj[]; revision: number }> {
    const labels = parseLabelSelector(q.get("labelSelector"));
    const fields = parseFieldSelector(q.get("fieldSelector"));
    const { kvs, revision } = await this.etcd.list(this.prefix(res, namespace));
    const items = kvs
      .map((kv) => this.decode(res, kv))
      .filter((o) => matchLabels(labels, o.metadata?.labels) && matchFields(fields, o));
    return { items, revision };
  }

  private async serveList(req: http.IncomingMessage, res: http.ServerResponse, route: Route, q: URLSearchParams): Promise<void> {
    const { items, revision } = await this.listObjects(route.res, route.namespace, q);
    if (/as=Table/.test(req.headers.accept ?? "")) return this.send(res, 200, toTable(route.res.plural, items, String(revision), q.get("includeObject")));
    this.send(res, 200, { kind: `${route.res.kind}List`, apiVersion: groupVersion(route.served), metadata: { resourceVersion: String(revision) }, items: items.map((o) => this.present(o, route)) });
  }

  private async serveWatch(req: http.IncomingMessage, res: http.ServerResponse, route: Route, q: URLSearchParams): Promise<void> {
    const labels = parseLabelSelector(q.get("labelSelector"));
    const fieldSel = q.get("fieldSelector") ?? "";
    const fields = parseFieldSelector(route.name ? [`metadata.name=${route.name}`, fieldSel].filter(Boolean).join(",") : fieldSel);
    const matches = (o: Obj | undefined) => !!o && matchLabels(labels, o.metadata?.labels) && matchFields(fields, o);
    const asTable = /as=Table/.test(req.headers.accept ?? "");
    const rv = q.get("resourceVersion");
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-cache, private", "transfer-encoding": "chunked" });
    // Send the headers now: clients (client-node's informer) wait for them before they count the watch as started.
    res.flushHeaders();
    let headers = true;
    const write = (type: string, o: Obj) => {
      const object = asTable ? toTable(route.res.plural, [this.present(o, route)], o.metadata?.resourceVersion ?? "", q.get("includeObject"), headers) : this.present(o, route);
      headers = false;
      res.write(`${JSON.stringify({ type, object })}\n`);
    };
    let from: number;
    if (!rv || rv === "0") {
      const { items, revision } = await this.listObjects(route.res, route.namespace, q);
      for (const o of items) if (matches(o)) write("ADDED", o);
      from = revision + 1;
    } else from = Number(rv) + 1;
    let cancelWatch: () => void = () => undefined;
    const close = () => {
      cancelWatch();
      this.openWatches.delete(close);
      if (!res.writableEnded) res.end();
    };
    this.openWatches.add(close);
    const timeout = Number(q.get("timeoutSeconds") ?? 0);
    const timer = setTimeout(close, (timeout > 0 ? timeout : 1800 + Math.random() * 1800) * 1000);
    res.on("close", () => {
      clearTimeout(timer);
      close();
    });
    cancelWatch = this.etcd.watch(
      this.prefix(route.res, route.namespace),
      from,
      (events) => {
        for (const e of events) {
          if (res.writableEnded) return;
          const cur = e.type === "PUT" ? this.decode(route.res, e.kv) : undefined;
          const prev = e.prevKv ? this.decode(route.res, e.prevKv) : undefined;
          if (prev) prev.metadata.resourceVersion = String(e.kv.modRevision);
          const was = matches(prev);
          const is = matches(cur);
          if (e.type === "DELETE") {
            if (was && prev) write("DELETED", prev);
          } else if (cur) {
            if (is && was) write("MODIFIED", cur);
            else if (is) write("ADDED", cur);
            else if (was && prev) write("DELETED", { ...cur });
          }
        }
      },
      (err) => {
        if (err?.compacted && !res.writableEnded)
          res.write(`${JSON.stringify({ type: "ERROR", object: statusBody(410, "Expired", `too old resource version: ${rv}`) })}\n`);
        close();
      },
    );
  }

  private prepareNew(res: Resource, namespace: string | undefined, body: Obj): Obj {
    const o: Obj = structuredClone(body);
    o.metadata = { ...(o.metadata ?? {}) };
    if (!o.metadata.name && o.metadata.generateName) o.metadata.name = `${o.metadata.generateName}${randomBytes(4).toString("hex").slice(0, 5)}`;
    const name: string | undefined = o.metadata.name;
    if (!name) throw new HttpError(422, "Invalid", `${res.kind} "" is invalid: metadata.name: Required value: name or generateName is required`);
    if (res.namespaced) {
      if (o.metadata.namespace && namespace && o.metadata.namespace !== namespace)
        throw new HttpError(400, "BadRequest", "the namespace of the provided object does not match the namespace sent on the request");
      o.metadata.namespace = namespace ?? o.metadata.namespace ?? "default";
    } else delete o.metadata.namespace;
    o.metadata.uid = randomUUID();
    o.metadata.creationTimestamp = new Date().toISOString().replace(/\.\d+Z$/, "Z");
    delete o.metadata.resourceVersion;
    delete o.metadata.deletionTimestamp;
    if (o.spec !== undefined || ["DaemonSet", "Deployment", "ReplicaSet"].includes(res.kind)) o.metadata.generation = 1;
    applyDefaults(res, o);
    return o;
  }

  async createObject(res: Resource, namespace: string | undefined, body: Obj, dryRun = false): Promise<Obj> {
    const o = this.prepareNew(res, namespace, body);
    if (res.namespaced) {
      const { kv } = await this.etcd.get(`/registry/namespaces/${o.metadata.namespace}`);
      if (!kv) throw new HttpError(404, "NotFound", `namespaces "${o.metadata.namespace}" not found`, { name: o.metadata.namespace, kind: "namespaces" });
      const ns = JSON.parse(kv.value.toString()) as Obj;
      if (ns.status?.phase === "Terminating")
        throw new HttpError(403, "Forbidden", `${res.plural} "${o.metadata.name}" is forbidden: unable to create new content in namespace ${o.metadata.namespace} because it is being terminated`);
    }
    if (res.plural === "services") await this.allocateClusterIp(o);
    if (res.plural === "customresourcedefinitions") {
      o.status = {
        conditions: [
          { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found", lastTransitionTime: o.metadata.creationTimestamp },
          { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted", lastTransitionTime: o.metadata.creationTimestamp },
        ],
        acceptedNames: o.spec?.names ?? {},
        storedVersions: (o.spec?.versions ?? []).filter((v: Obj) => v.storage).map((v: Obj) => v.name),
      };
    }
    if (dryRun) return { ...o, apiVersion: groupVersion(res), kind: res.kind };
    const key = this.key(res, o.metadata.namespace, o.metadata.name);
    const stored: Obj = { ...o, apiVersion: groupVersion(res), kind: res.kind };
    const r = await this.etcd.put(key, JSON.stringify(stored), 0);
    if (!r.ok)
      throw new HttpError(409, "AlreadyExists", `${res.plural}${res.group ? `.${res.group}` : ""} "${o.metadata.name}" already exists`, { name: o.metadata.name, group: res.group, kind: res.plural });
    if (res.plural === "customresourcedefinitions") await this.refreshCrds();
    return { ...stored, metadata: { ...stored.metadata, resourceVersion: String(r.revision) } };
  }

  /**
   * Read-modify-write with optimistic concurrency. `fn` gets the current object (undefined when
   * absent) and returns the new one, or null to leave it. Retries on a lost race unless the caller
   * pinned a resourceVersion (then: 409 Conflict, as the real one answers).
   */
  async mutate(res: Resource, namespace: string | undefined, name: string, fn: (cur: Obj | undefined) => Obj | null, allowCreate = false, pinnedRv?: string, dryRun = false): Promise<Obj> {
    const key = this.key(res, namespace, name);
    for (let attempt = 0; attempt < 20; attempt++) {
      const { kv } = await this.etcd.get(key);
      const cur = kv ? this.decode(res, kv) : undefined;
      if (!cur && !allowCreate) throw notFound(res, name);
      if (cur && pinnedRv && pinnedRv !== cur.metadata.resourceVersion)
        throw new HttpError(409, "Conflict", `Operation cannot be fulfilled on ${res.plural}${res.group ? `.${res.group}` : ""} "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, group: res.group, kind: res.plural });
      const next = fn(cur ? structuredClone(cur) : undefined);
      if (next === null) {
        if (!cur) throw notFound(res, name);
        return cur;
      }
      if (!cur) {
        return this.createObject(res, namespace, { ...next, metadata: { ...next.metadata, name, namespace } }, dryRun);
      }
      next.apiVersion = groupVersion(res);
      next.kind = res.kind;
      next.metadata = { ...next.metadata, name, uid: cur.metadata.uid, creationTimestamp: cur.metadata.creationTimestamp };
      if (res.namespaced) next.metadata.namespace = namespace;
      delete next.metadata.resourceVersion;
      if (JSON.stringify(next.spec) !== JSON.stringify(cur.spec) && cur.metadata.generation !== undefined) next.metadata.generation = (cur.metadata.generation ?? 0) + 1;
      // An object marked for deletion goes once its last finalizer is gone.
      if (cur.metadata.deletionTimestamp && !(next.metadata.finalizers?.length) && res.plural !== "pods") {
        if (!dryRun) await this.etcd.delete(key, Number(cur.metadata.resourceVersion));
        return next;
      }
      if (dryRun) return { ...next, metadata: { ...next.metadata, resourceVersion: cur.metadata.resourceVersion } };
      const r = await this.etcd.put(key, JSON.stringify(next), Number(cur.metadata.resourceVersion));
      if (r.ok) {
        if (res.plural === "customresourcedefinitions") await this.refreshCrds();
        return { ...next, metadata: { ...next.metadata, resourceVersion: String(r.revision) } };
      }
      if (pinnedRv) throw new HttpError(409, "Conflict", `Operation cannot be fulfilled on ${res.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`);
    }
    throw new HttpError(409, "Conflict", `Operation cannot be fulfilled on ${res.plural} "${name}": too many concurrent updates`);
  }

  /** Merges an update into the current object, honouring the status subresource split. */
  private splice(res: Resource, cur: Obj, next: Obj, sub: string | undefined): Obj {
    if (sub === "status") return { ...cur, status: next.status, metadata: { ...cur.metadata } };
    if (sub === "approval") return { ...cur, status: { ...cur.status, conditions: next.status?.conditions } };
    if (HAS_STATUS_SUBRESOURCE.has(res.plural) || res.subresources?.includes("status")) return { ...next, status: cur.status };
    return next;
  }

  async updateObject(res: Resource, namespace: string | undefined, name: string, body: Obj, sub?: string, dryRun = false): Promise<Obj> {
    if (body.metadata?.name && body.metadata.name !== name) throw new HttpError(400, "BadRequest", `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    const allowCreate = !sub && ["endpoints", "leases", "events", "configmaps", "secrets"].includes(res.plural) === true && !body.metadata?.resourceVersion;
    return this.mutate(res, namespace, name, (cur) => (cur ? this.splice(res, cur, body, sub) : body), allowCreate, body.metadata?.resourceVersion || undefined, dryRun);
  }

  async patchObject(res: Resource, namespace: string | undefined, name: string, contentType: string, patch: Obj | undefined, sub?: string, dryRun = false, _force = false): Promise<Obj> {
    if (patch === undefined) throw new HttpError(400, "BadRequest", "the body of the request was empty");
    const apply = (cur: Obj | undefined): Obj => {
      const base = sub === "scale" ? { spec: { replicas: cur?.spec?.replicas } } : (cur ?? {});
      let out: Obj;
      if (contentType === "application/json-patch+json") out = jsonPatch(base, patch) as Obj;
      else if (contentType === "application/merge-patch+json") out = mergePatch(base, patch) as Obj;
      else if (contentType === "application/strategic-merge-patch+json") out = strategicMergePatch(base, patch) as Obj;
      else if (contentType === "application/apply-patch+yaml" || contentType === "application/apply-patch+cbor") out = strategicMergePatch(base, patch) as Obj;
      else throw new HttpError(415, "UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`);
      if (sub === "scale") return { ...cur, spec: { ...cur?.spec, replicas: out.spec?.replicas } };
      return out;
    };
    const pinned = typeof patch === "object" && !Array.isArray(patch) ? (patch.metadata?.resourceVersion as string | undefined) : undefined;
    const isApply = contentType.startsWith("application/apply-patch");
    return this.mutate(res, namespace, name, (cur) => (cur ? this.splice(res, cur, apply(cur), sub === "scale" ? undefined : sub) : apply(undefined)), isApply, pinned, dryRun);
  }

  async deleteObject(res: Resource, namespace: string | undefined, name: string, opts: Obj, dryRun = false): Promise<Obj | undefined> {
    const key = this.key(res, namespace, name);
    const { kv } = await this.etcd.get(key);
    if (!kv) throw notFound(res, name);
    const cur = this.decode(res, kv);
    if (opts.preconditions?.uid && opts.preconditions.uid !== cur.metadata.uid)
      throw new HttpError(409, "Conflict", `Precondition failed: UID in precondition: ${opts.preconditions.uid}, UID in object meta: ${cur.metadata.uid}`);
    if (dryRun) return cur;
    const grace = opts.gracePeriodSeconds as number | undefined;
    // A pod on a node is deleted gracefully: marked, stopped by its kubelet, then removed by it.
    const graceful = res.plural === "pods" && cur.spec?.nodeName && grace !== 0 && !isMirrorPod(cur) && cur.status?.phase !== "Succeeded" && cur.status?.phase !== "Failed";
    const finalizers = (cur.metadata.finalizers ?? []).length > 0;
    if (res.plural === "namespaces") {
      if (["default", "kube-system", "kube-public"].includes(name)) throw new HttpError(403, "Forbidden", `namespaces "${name}" is forbidden: this namespace may not be deleted`);
      const marked = await this.mutate(res, undefined, name, (c) => (c ? { ...c, metadata: { ...c.metadata, deletionTimestamp: c.metadata.deletionTimestamp ?? nowTs() }, status: { phase: "Terminating" } } : null));
      void this.finalizeNamespace(name);
      return marked;
    }
    if (graceful || finalizers) {
      if (cur.metadata.deletionTimestamp) return cur;
      return this.mutate(res, namespace, name, (c) =>
        c ? { ...c, metadata: { ...c.metadata, deletionTimestamp: nowTs(), deletionGracePeriodSeconds: graceful ? (grace ?? c.spec?.terminationGracePeriodSeconds ?? 30) : 0 } } : null,
      );
    }
    const r = await this.etcd.delete(key);
    if (!r.prev) throw notFound(res, name);
    return { ...this.decode(res, r.prev), metadata: { ...cur.metadata, resourceVersion: String(r.revision) } };
  }

  /** The namespace controller's work, done here: delete the namespace's content, then the namespace. */
  private async finalizeNamespace(name: string): Promise<void> {
    for (const r of this.resources) {
      if (!r.namespaced) continue;
      const { kvs } = await this.etcd.list(this.prefix(r, name)).catch(() => ({ kvs: [] as Kv[] }));
      for (const kv of kvs) await this.etcd.delete(kv.key).catch(() => undefined);
    }
    await this.etcd.delete(`/registry/namespaces/${name}`).catch(() => undefined);
  }

  private async bind(namespace: string, pod: string, node: string | undefined): Promise<void> {
    if (!node) throw new HttpError(422, "Invalid", "Binding is invalid: target.name: Required value");
    await this.mutate(this.resource("", "v1", "pods"), namespace, pod, (cur) => {
      if (!cur) return null;
      if (cur.spec?.nodeName) throw new HttpError(409, "Conflict", `Operation cannot be fulfilled on pods/binding "${pod}": pod ${pod} is already assigned to node "${cur.spec.nodeName}"`);
      const conditions = [...(cur.status?.conditions ?? []).filter((c: Obj) => c.type !== "PodScheduled"), { type: "PodScheduled", status: "True", lastTransitionTime: nowTs() }];
      return { ...cur, spec: { ...cur.spec, nodeName: node }, status: { ...cur.status, conditions } };
    });
  }

  private scaleOf(o: Obj, _route: Route): Obj {
    return {
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: { name: o.metadata.name, namespace: o.metadata.namespace, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion, creationTimestamp: o.metadata.creationTimestamp },
      spec: { replicas: o.spec?.replicas ?? 1 },
      status: { replicas: o.status?.replicas ?? 0, selector: Object.entries(o.spec?.selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(",") },
    };
  }

  private async tokenRequest(namespace: string, name: string, body: Obj): Promise<Obj> {
    const sa = await this.getObject(this.resource("", "v1", "serviceaccounts"), namespace, name);
    const keyFile = this.opts.serviceAccountSigningKeyFile;
    if (!keyFile) throw new HttpError(404, "NotFound", "the server could not find the requested resource (post serviceaccounts token): token requests need --service-account-signing-key-file");
    const exp = Number(body.spec?.expirationSeconds ?? 3600);
    const now = Math.floor(Date.now() / 1000);
    const bound = body.spec?.boundObjectRef as Obj | undefined;
    const token = signJwt(
      {
        aud: body.spec?.audiences ?? [this.opts.serviceAccountIssuer],
        exp: now + exp,
        iat: now,
        nbf: now,
        iss: this.opts.serviceAccountIssuer,
        sub: `system:serviceaccount:${namespace}:${name}`,
        "kubernetes.io": { namespace, serviceaccount: { name, uid: sa.metadata.uid }, ...(bound?.kind === "Pod" ? { pod: { name: bound.name, uid: bound.uid } } : {}) },
      },
      fs.readFileSync(keyFile, "utf8"),
    );
    return { kind: "TokenRequest", apiVersion: "authentication.k8s.io/v1", metadata: { name, namespace, creationTimestamp: null }, spec: body.spec ?? {}, status: { token, expirationTimestamp: new Date((now + exp) * 1000).toISOString().replace(/\.\d+Z$/, "Z") } };
  }

  /** GET pods/x/log: proxied to the kubelet's /containerLogs, as the real API server does. */
  private async servePodLog(res: http.ServerResponse, namespace: string, name: string, q: URLSearchParams): Promise<void> {
    const pod = await this.getObject(this.resource("", "v1", "pods"), namespace, name);
    const containers: Obj[] = pod.spec?.containers ?? [];
    const container = q.get("container") ?? (containers.length === 1 ? containers[0]?.name : undefined);
    if (!container)
      throw new HttpError(400, "BadRequest", `a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(" ")}]`);
    if (!pod.spec?.nodeName) throw new HttpError(400, "BadRequest", `pod ${name} does not have a host assigned`);
    const node = await this.getObject(this.resource("", "v1", "nodes"), undefined, pod.spec.nodeName);
    const ip = (node.status?.addresses ?? []).find((a: Obj) => a.type === "InternalIP")?.address ?? pod.spec.nodeName;
    const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 10250;
    const params = new URLSearchParams();
    for (const k of ["follow", "tailLines", "previous", "timestamps", "sinceSeconds", "limitBytes"]) {
      const v = q.get(k);
      if (v !== null) params.set(k, v);
    }
    await new Promise<void>((resolve, reject) => {
      const kreq = https.request(
        {
          host: ip,
          port,
          path: `/containerLogs/${namespace}/${name}/${container}?${params}`,
          method: "GET",
          rejectUnauthorized: false,
          cert: this.opts.kubeletClientCertFile ? fs.readFileSync(this.opts.kubeletClientCertFile) : undefined,
          key: this.opts.kubeletClientKeyFile ? fs.readFileSync(this.opts.kubeletClientKeyFile) : undefined,
          timeout: 10_000,
        },
        (kres) => {
          if (kres.statusCode !== 200) {
            const chunks: Buffer[] = [];
            kres.on("data", (c: Buffer) => chunks.push(c));
            kres.on("end", () => reject(new HttpError(kres.statusCode ?? 500, "BadRequest", Buffer.concat(chunks).toString().trim() || `kubelet answered ${kres.statusCode}`)));
            return;
          }
          res.writeHead(200, { "content-type": "text/plain", "transfer-encoding": "chunked" });
          kres.pipe(res);
          kres.on("end", () => resolve());
          res.on("close", () => kres.destroy());
        },
      );
      kreq.on("timeout", () => kreq.destroy(new Error("timeout")));
      kreq.on("error", (e) => reject(new HttpError(500, "InternalError", `Get "https://${ip}:${port}/containerLogs/${namespace}/${name}/${container}": ${e.message}`)));
      kreq.end();
    });
  }
}

function ignoreExists(err: unknown): void {
  if (err instanceof HttpError && err.code === 409) return;
  throw err;
}

const nowTs = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const isMirrorPod = (p: Obj) => !!p.metadata?.annotations?.["kubernetes.io/config.mirror"];

/** The defaults the real API server fills in that clients read back (phase, policies, replicas). */
function applyDefaults(res: Resource, o: Obj): void {
  const podSpec = (s: Obj | undefined) => {
    if (!s) return;
    s.restartPolicy ??= "Always";
    s.dnsPolicy ??= "ClusterFirst";
    s.schedulerName ??= "default-scheduler";
    s.terminationGracePeriodSeconds ??= 30;
    s.serviceAccountName ??= s.serviceAccount ?? "default";
    s.serviceAccount ??= s.serviceAccountName;
    s.securityContext ??= {};
    for (const c of [...(s.containers ?? []), ...(s.initContainers ?? [])]) {
      c.terminationMessagePath ??= "/dev/termination-log";
      c.terminationMessagePolicy ??= "File";
      c.imagePullPolicy ??= /:latest$|^[^:]+$/.test(String(c.image ?? "")) ? "Always" : "IfNotPresent";
      c.resources ??= {};
    }
  };
  switch (res.kind) {
    case "Pod":
      podSpec(o.spec);
      o.status = { phase: "Pending", qosClass: "BestEffort", ...(o.status ?? {}) };
      break;
    case "Namespace":
      o.spec = { finalizers: ["kubernetes"], ...(o.spec ?? {}) };
      o.status = { phase: "Active" };
      break;
    case "Deployment":
      o.spec ??= {};
      o.spec.replicas ??= 1;
      o.spec.strategy ??= { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } };
      o.spec.revisionHistoryLimit ??= 10;
      o.spec.progressDeadlineSeconds ??= 600;
      podSpec(o.spec.template?.spec);
      o.status ??= {};
      break;
    case "ReplicaSet":
      o.spec ??= {};
      o.spec.replicas ??= 1;
      podSpec(o.spec.template?.spec);
      o.status ??= { replicas: 0 };
      break;
    case "DaemonSet":
      o.spec ??= {};
      o.spec.updateStrategy ??= { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } };
      o.spec.revisionHistoryLimit ??= 10;
      podSpec(o.spec.template?.spec);
      o.status ??= { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 };
      break;
    case "Service":
      o.spec ??= {};
      o.spec.type ??= "ClusterIP";
      o.spec.sessionAffinity ??= "None";
      for (const p of o.spec.ports ?? []) {
        p.protocol ??= "TCP";
        p.targetPort ??= p.port;
      }
      o.status ??= { loadBalancer: {} };
      break;
    case "Secret":
      o.type ??= "Opaque";
      if (o.stringData) {
        o.data = { ...(o.data ?? {}) };
        for (const [k, v] of Object.entries(o.stringData as Record<string, string>)) o.data[k] = Buffer.from(v).toString("base64");
        delete o.stringData;
      }
      break;
    case "CertificateSigningRequest":
      o.status ??= {};
      break;
    case "Node":
      o.spec ??= {};
      o.status ??= {};
      break;
    default:
      break;
  }
}

/** Checks a PEM certificate was signed by the CA (used by tests and the kubelet's CSR flow). */
export function certSignedBy(certPem: string, caPem: string): boolean {
  try {
    return new X509Certificate(certPem).checkIssued(new X509Certificate(caPem));
  } catch {
    return false;
  }
}

/** Entry point: `kube-apiserver --flags…` (through lab/cluster/main.ts). */
export async function runApiServer(argv: readonly string[]): Promise<ApiServer> {
  const log: Log = (l) => process.stderr.write(`I${new Date().toISOString()} apiserver] ${l}\n`);
  const opts = apiServerOptionsFromFlags(argv, log);
  const s = new ApiServer(opts, log);
  try {
    await s.start();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "EADDRINUSE") {
      process.stderr.write(`E${new Date().toISOString()} run.go:72] "command failed" err="failed to create listener: failed to listen on ${opts.bindAddress}:${opts.securePort}: listen tcp ${opts.bindAddress}:${opts.securePort}: bind: address already in use"\n`);
      process.exit(1);
    }
    throw err;
  }
  return s;
}

export type { Obj as ApiObject };
// Keep http referenced for the types above.
export type IncomingMessage = http.IncomingMessage;
