// Controller-manager and scheduler stand-ins against the API server stand-in (real etcd), through the API.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiServer } from "./apiserver";
import { ControllerManager } from "./controller-manager";
import { KubeClient } from "./kube-client";
import { Scheduler } from "./scheduler";
import { adminKubeconfig, renderLoopbackCluster, startApiServer, startEtcd, waitFor, type Etcd, type RenderedDir } from "./testenv";
import { parseAllDocuments } from "yaml";

let assets: RenderedDir;
let etcd: Etcd;
let api: ApiServer;
let admin: KubeClient;
let cm: ControllerManager;
let sched: Scheduler;
const beating = new Set<string>();
let beat: NodeJS.Timeout | undefined;
const logs: string[] = [];

const readyNode = (name: string, labels: Record<string, string> = {}, taints: object[] = []) => ({
  metadata: { name, labels: { "kubernetes.io/hostname": name, ...labels } },
  spec: { taints },
});
const heartbeat = (name: string, ready = "True") =>
  admin.request("PATCH", `/api/v1/nodes/${name}/status`, { status: { conditions: [{ type: "Ready", status: ready, reason: "KubeletReady", lastHeartbeatTime: new Date().toISOString() }], addresses: [{ type: "InternalIP", address: "127.0.0.1" }] } }, "application/merge-patch+json");

beforeAll(async () => {
  assets = await renderLoopbackCluster();
  etcd = await startEtcd(assets.dir);
  api = await startApiServer(assets.dir, etcd.url);
  admin = KubeClient.fromKubeconfig(adminKubeconfig(assets.dir, api.port));
  const t = (p: string) => path.join(assets.dir, "tls", p);
  cm = new ControllerManager(
    { kubeconfig: adminKubeconfig(assets.dir, api.port, "auth/kubeconfig-controller-manager"), signingCertFile: t("ca.crt"), signingKeyFile: t("ca.key"), rootCaFile: t("ca.crt"), serviceAccountKeyFile: t("service-account.key"), leaderElect: true, nodeMonitorGraceSeconds: 20, version: "v1.34.4" },
    (l) => logs.push(l),
  );
  sched = new Scheduler(KubeClient.fromKubeconfig(adminKubeconfig(assets.dir, api.port, "auth/kubeconfig-scheduler")), true, (l) => logs.push(l));
  // The kubelets' heartbeats, for the nodes the tests create.
  beat = setInterval(() => {
    for (const n of beating) void heartbeat(n).catch(() => undefined);
  }, 1_000);
  await waitFor("kube-system", () => admin.get("/api/v1/namespaces/kube-system"));
  cm.start();
  sched.start();
}, 60_000);

afterAll(async () => {
  if (beat) clearInterval(beat);
  if (logs.some((l) => /controller:|binding/.test(l))) console.log(logs.join("\n"));
  cm?.stop();
  sched?.stop();
  await api?.stop();
  await etcd?.stop();
  if (assets) fs.rmSync(assets.dir, { recursive: true, force: true });
});

describe("controller-manager and scheduler stand-ins", () => {
  it("run DaemonSets on matching nodes and Deployments through ReplicaSets, bound by the scheduler", async () => {
    await admin.create("/api/v1/nodes", readyNode("m1", { "node-role.kubernetes.io/control-plane": "" }, [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }]));
    await admin.create("/api/v1/nodes", readyNode("w1"));
    beating.add("m1");
    beating.add("w1");
    for (const f of fs.readdirSync(path.join(assets.dir, "manifests")).sort()) {
      for (const d of parseAllDocuments(fs.readFileSync(path.join(assets.dir, "manifests", f), "utf8"))) {
        const o = d.toJS();
        const gv = o.apiVersion.includes("/") ? `/apis/${o.apiVersion}` : "/api/v1";
        const plural = `${o.kind.toLowerCase()}${o.kind.endsWith("s") ? "es" : "s"}`.replace(/ys$/, "ies").replace("policys", "policies");
        const ns = o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : "";
        const p = o.kind === "PodDisruptionBudget" ? `${gv}${ns}/poddisruptionbudgets` : `${gv}${ns}/${plural}`;
        await admin.create(p, o);
      }
    }
    const pods = await waitFor("control-plane pods bound", async () => {
      const list = (await admin.get("/api/v1/namespaces/kube-system/pods")).items as any[];
      const apiPods = list.filter((p) => p.metadata.name.startsWith("kube-apiserver-"));
      const cmPods = list.filter((p) => p.metadata.name.startsWith("kube-controller-manager-") && p.spec.nodeName);
      const proxies = list.filter((p) => p.metadata.name.startsWith("kube-proxy-") && p.spec.nodeName);
      return apiPods.length === 1 && apiPods[0].spec.nodeName === "m1" && cmPods.length === 2 && proxies.length === 2 ? list : undefined;
    });
    expect(pods.filter((p) => p.metadata.name.startsWith("kube-proxy-")).map((p) => p.spec.nodeName).sort()).toEqual(["m1", "w1"]);
    const rs = (await admin.get("/apis/apps/v1/namespaces/kube-system/replicasets")).items as any[];
    expect(rs.map((r) => r.metadata.ownerReferences[0].name).sort()).toContain("kube-scheduler");
    // Both CoreDNS replicas get a node (they tolerate the control-plane taint).
    const dns = await waitFor("coredns bound", async () => {
      const l = ((await admin.get("/api/v1/namespaces/kube-system/pods?labelSelector=k8s-app%3Dkube-dns")).items as any[]).filter((p) => p.spec.nodeName);
      return l.length === 2 ? l : undefined;
    });
    expect(dns.every((p) => ["m1", "w1"].includes(p.spec.nodeName))).toBe(true);
    const sa = await waitFor("default service account", () => admin.getOrUndefined("/api/v1/namespaces/kube-flannel/serviceaccounts/default"));
    expect(sa.metadata.name).toBe("default");
  }, 120_000);

  it("leaves pods Pending with FailedScheduling when no node fits", async () => {
    await admin.create("/api/v1/namespaces/default/pods", { metadata: { name: "nowhere" }, spec: { nodeSelector: { disk: "ssd" }, containers: [{ name: "c", image: "busybox:1" }] } });
    const pod = await waitFor("PodScheduled=False", async () => {
      const p = await admin.get("/api/v1/namespaces/default/pods/nowhere");
      return (p.status.conditions ?? []).some((c: any) => c.type === "PodScheduled" && c.status === "False") ? p : undefined;
    });
    expect(pod.status.conditions.find((c: any) => c.type === "PodScheduled").message).toMatch(/^0\/2 nodes are available: 1 node\(s\) didn't match Pod's node affinity\/selector, 1 node\(s\) had untolerated taint/);
  }, 90_000);

  it("approves and signs a kubelet's bootstrap CSR with the cluster CA", async () => {
    const secret = ((await admin.get("/api/v1/namespaces/kube-system/secrets")).items as any[]).find((s) => s.type === "bootstrap.kubernetes.io/token");
    const tok = `${Buffer.from(secret.data["token-id"], "base64")}.${Buffer.from(secret.data["token-secret"], "base64")}`;
    const boot = new KubeClient({ server: admin.creds.server, ca: admin.creds.ca, token: tok });
    const keyFile = path.join(assets.dir, "w2.key");
    execFileSync("openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", keyFile]);
    const csr = execFileSync("openssl", ["req", "-new", "-key", keyFile, "-subj", "/O=system:nodes/CN=system:node:w2"], { encoding: "utf8" });
    await boot.create("/apis/certificates.k8s.io/v1/certificatesigningrequests", {
      metadata: { name: "node-csr-w2" },
      spec: { request: Buffer.from(csr).toString("base64"), signerName: "kubernetes.io/kube-apiserver-client-kubelet", usages: ["digital signature", "client auth"] },
    });
    const signed = await waitFor("certificate", async () => {
      const c = await boot.get("/apis/certificates.k8s.io/v1/certificatesigningrequests/node-csr-w2");
      return c.status?.certificate ? c : undefined;
    });
    expect(signed.spec.username).toMatch(/^system:bootstrap:/);
    const pem = Buffer.from(signed.status.certificate, "base64").toString();
    const text = execFileSync("openssl", ["x509", "-noout", "-subject", "-issuer", "-ext", "extendedKeyUsage"], { input: pem, encoding: "utf8" });
    expect(text).toContain("CN = system:node:w2");
    expect(text).toContain("CN = kube-ca");
    expect(text).toContain("TLS Web Client Authentication");
  }, 90_000);

  it("marks a node Unknown and taints it unreachable when its kubelet stops reporting", async () => {
    beating.delete("w1");
    const node = await waitFor("w1 Unknown", async () => {
      const n = await admin.get("/api/v1/nodes/w1");
      return n.status.conditions.find((c: any) => c.type === "Ready").status === "Unknown" && (n.spec.taints ?? []).length ? n : undefined;
    }, 60_000); // the grace period is 20 s; the deadline must exceed it by the monitor's period and load
    expect(node.status.conditions.find((c: any) => c.type === "Ready").message).toBe("Kubelet stopped posting node status.");
    expect(node.spec.taints.map((t: any) => t.key)).toContain("node.kubernetes.io/unreachable");
  }, 90_000);
});
