// The API server stand-in against the real etcd, the real kubectl and @kubernetes/client-node.
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import path from "node:path";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiServer } from "./apiserver";
import { BUILTIN_RESOURCES } from "./resources";
import { adminKubeconfig, renderLoopbackCluster, startApiServer, startEtcd, type Etcd, type RenderedDir } from "./testenv";

let assets: RenderedDir;
let etcd: Etcd;
let api: ApiServer;
let kubeconfig: string;

// Asynchronous on purpose: the API server runs in this process and must keep answering.
function sh(cmd: string, args: string[], input?: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const p = execFile(cmd, args, { encoding: "utf8", timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
    p.stdin?.end(input ?? "");
  });
}
const kubectl = (...args: string[]) => sh("/usr/bin/kubectl", ["--kubeconfig", kubeconfig, ...args]);

/** A raw HTTPS request with an optional bearer token (no client certificate). */
function raw(method: string, p: string, token?: string, body?: unknown): Promise<{ code: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: "127.0.0.1", port: api.port, path: p, method, rejectUnauthorized: false, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" } },
      (res) => {
        let t = "";
        res.on("data", (c) => (t += c));
        res.on("end", () => resolve({ code: res.statusCode ?? 0, body: t.startsWith("{") ? JSON.parse(t) : t }));
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

beforeAll(async () => {
  assets = await renderLoopbackCluster();
  etcd = await startEtcd(assets.dir);
  api = await startApiServer(assets.dir, etcd.url);
  kubeconfig = adminKubeconfig(assets.dir, api.port);
  for (let i = 0; i < 50 && (await kubectl("get", "ns", "kube-system")).code !== 0; i++) await new Promise((r) => setTimeout(r, 100));
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await etcd?.stop();
  if (assets) fs.rmSync(assets.dir, { recursive: true, force: true });
});

describe("the API server stand-in", () => {
  it("answers health and version without credentials, and 401 for anything else", async () => {
    expect((await raw("GET", "/healthz")).body).toBe("ok");
    expect((await raw("GET", "/version")).body.gitVersion).toBe("v1.34.4");
    const r = await raw("GET", "/api/v1/namespaces");
    expect(r.code).toBe(401);
    expect((await raw("GET", "/api/v1/namespaces", "abcdef.0123456789abcdef")).code).toBe(401);
  });

  it("stores objects in etcd under /registry with etcd revisions as resourceVersions", async () => {
    const ns = await api.getObject(BUILTIN("namespaces"), undefined, "kube-system");
    const { kv } = await api.etcd.get("/registry/namespaces/kube-system");
    expect(kv?.modRevision).toBe(Number(ns.metadata.resourceVersion));
  });

  it("serves kubectl: apply of the rendered manifests, re-apply unchanged, get with server-side columns", async () => {
    const first = await kubectl("apply", "-f", path.join(assets.dir, "manifests"));
    expect(first.code, first.out).toBe(0);
    expect(first.out).toContain("daemonset.apps/kube-apiserver created");
    const again = await kubectl("apply", "-f", path.join(assets.dir, "manifests"));
    expect(again.code, again.out).toBe(0);
    expect(again.out).not.toContain("created");
    expect(again.out).toContain("deployment.apps/coredns unchanged");
    const svc = await kubectl("get", "svc", "-n", "kube-system", "kube-dns", "-o", "wide");
    expect(svc.out).toMatch(/kube-dns\s+ClusterIP\s+10\.3\.0\.10/);
    const edited = fs.readFileSync(path.join(assets.dir, "manifests/coredns.yaml"), "utf8").replace(/replicas: 2/, "replicas: 3");
    const f = path.join(assets.dir, "coredns-3.yaml");
    fs.writeFileSync(f, edited);
    expect((await kubectl("apply", "-f", f)).out).toContain("deployment.apps/coredns configured");
    const d = JSON.parse((await kubectl("get", "deploy", "-n", "kube-system", "coredns", "-o", "json")).out);
    expect(d.spec.replicas).toBe(3);
    expect(d.metadata.generation).toBe(2);
    expect(d.spec.template.spec.containers[0].name).toBe("coredns");
  });

  it("rejects a stale resourceVersion with 409 Conflict and a duplicate create with AlreadyExists", async () => {
    const cm = JSON.parse((await kubectl("get", "cm", "-n", "kube-system", "coredns", "-o", "json")).out);
    expect((await kubectl("label", "cm", "-n", "kube-system", "coredns", "x=y")).code).toBe(0);
    const stale = path.join(assets.dir, "stale.json");
    fs.writeFileSync(stale, JSON.stringify(cm));
    const r = await kubectl("replace", "-f", stale);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("the object has been modified");
    const dup = await kubectl("create", "-f", path.join(assets.dir, "manifests/coredns-config.yaml"));
    expect(dup.out).toContain("AlreadyExists");
  });

  it("lets @kubernetes/client-node list and watch (informer sees add, update, delete)", async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const informer = k8s.makeInformer(kc, "/api/v1/namespaces/default/configmaps", () => core.listNamespacedConfigMap({ namespace: "default" }));
    const seen: string[] = [];
    informer.on("add", (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on("update", (o) => seen.push(`update ${o.metadata?.name} ${o.data?.k}`));
    informer.on("delete", (o) => seen.push(`delete ${o.metadata?.name}`));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "watched" }, data: { k: "1" } } });
    await core.patchNamespacedConfigMap({ namespace: "default", name: "watched", body: { data: { k: "2" } } }, k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch));
    await core.deleteNamespacedConfigMap({ namespace: "default", name: "watched" });
    for (let i = 0; i < 50 && seen.length < 3; i++) await new Promise((r) => setTimeout(r, 100));
    await informer.stop();
    expect(seen).toEqual(["add watched", "update watched 2", "delete watched"]);
  });

  it("watches from a resourceVersion through kubectl get -w", async () => {
    // kubectl lists, then watches from the list's resourceVersion; the object created afterwards arrives as ADDED.
    const w = spawn("/usr/bin/kubectl", ["--kubeconfig", kubeconfig, "get", "cm", "-n", "default", "-w", "--output-watch-events"]);
    let out = "";
    w.stdout.on("data", (c) => (out += c));
    try {
      for (let i = 0; i < 50 && !/kube-root-ca|seen|NAME|No resources/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 500));
      await sh("/usr/bin/kubectl", ["--kubeconfig", kubeconfig, "apply", "-f", "-"], "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: seen-by-watch}\n");
      for (let i = 0; i < 300 && !/ADDED\s+seen-by-watch/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
    } finally {
      w.kill();
    }
    expect(out).toMatch(/ADDED\s+seen-by-watch/);
  }, 60_000);

  it("authenticates bootstrap tokens (CSRs only) and service-account tokens from TokenRequest", async () => {
    const secret = JSON.parse((await kubectl("get", "secret", "-n", "kube-system", "-o", "json")).out).items.find((s: any) => s.type === "bootstrap.kubernetes.io/token");
    const id = Buffer.from(secret.data["token-id"], "base64").toString();
    const token = `${id}.${Buffer.from(secret.data["token-secret"], "base64").toString()}`;
    expect((await raw("GET", "/apis/certificates.k8s.io/v1/certificatesigningrequests", token)).code).toBe(200);
    const forbidden = await raw("GET", "/api/v1/secrets", token);
    expect(forbidden.code).toBe(403);
    expect(forbidden.body.message).toContain(`User "system:bootstrap:${id}"`);

    const sa = await kubectl("apply", "-f", path.join(assets.dir, "manifests/flannel-rbac.yaml"));
    expect(sa.code).toBe(0);
    // (kubectl create token sends a protobuf body, which the stand-in does not read; the kubelet sends JSON.)
    const admin = new k8s.KubeConfig();
    admin.loadFromFile(kubeconfig);
    const tr = await admin.makeApiClient(k8s.CoreV1Api).createNamespacedServiceAccountToken({ namespace: "kube-flannel", name: "flannel", body: { spec: { audiences: [] } } });
    const saToken = tr.status?.token ?? "";
    expect(saToken).toBeTruthy();
    const ok = await raw("GET", "/api/v1/namespaces/kube-flannel/configmaps", saToken);
    expect(ok.code).toBe(200);
    expect((await raw("GET", "/api/v1/nodes", `${saToken.slice(0, -4)}AAAA`)).code).toBe(401);
  });
});

function BUILTIN(plural: string) {
  const r = BUILTIN_RESOURCES.find((x) => x.plural === plural);
  if (!r) throw new Error(plural);
  return r;
}
