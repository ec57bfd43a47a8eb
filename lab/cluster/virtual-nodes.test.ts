// KWOK-style virtual nodes against the API server stand-in (real etcd): they wait for a cluster that
// does not exist yet, register through API gaps, keep themselves registered, and run bound pods.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApiServer } from "./apiserver";
import { KubeClient } from "./kube-client";
import { adminKubeconfig, freePort, renderLoopbackCluster, startApiServer, startEtcd, waitFor, type Etcd, type RenderedDir } from "./testenv";
import { VirtualNodes, virtualNodeNames, waitForCluster } from "./virtual-nodes";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let assets: RenderedDir;
let etcd: Etcd;
let api: ApiServer | undefined;
let port: number;
const running: VirtualNodes[] = [];
const quiet = () => undefined;

beforeAll(async () => {
  assets = await renderLoopbackCluster();
  etcd = await startEtcd(assets.dir);
  port = await freePort();
}, 60_000);

afterAll(async () => {
  for (const v of running) v.stop();
  await api?.stop();
  await etcd?.stop();
  if (assets) fs.rmSync(assets.dir, { recursive: true, force: true });
});

describe("virtual nodes", () => {
  it("wait until a kubeconfig appears and its API answers, then register Ready nodes", async () => {
    const later = path.join(assets.dir, "later", "kubelet.conf");
    let client: KubeClient | undefined;
    const waiting = waitForCluster([path.join(assets.dir, "never"), later], quiet, 100).then((c) => (client = c));
    await new Promise((r) => setTimeout(r, 400));
    expect(client).toBeUndefined(); // no kubeconfig yet

    fs.mkdirSync(path.dirname(later), { recursive: true });
    fs.copyFileSync(adminKubeconfig(assets.dir, port), later);
    await new Promise((r) => setTimeout(r, 400));
    expect(client).toBeUndefined(); // a kubeconfig, but nothing answers on its server yet

    api = await startApiServer(assets.dir, etcd.url, port);
    await waiting;
    const v = new VirtualNodes(client!, virtualNodeNames(30), "v1.34.4", quiet, 300);
    running.push(v);
    await v.start();
    const nodes = (await client!.get("/api/v1/nodes?labelSelector=type%3Dvirtual")).items as Obj[];
    expect(nodes.map((n) => n.metadata.name)).toEqual(virtualNodeNames(30));
    for (const n of nodes) expect(n.status.conditions.find((c: Obj) => c.type === "Ready")?.status).toBe("True");
    expect(nodes[29]?.status.nodeInfo.kubeletVersion).toBe("v1.34.4");
  });

  it("report pods bound to them Running and Ready, and register again a node that was deleted", async () => {
    const admin = KubeClient.fromKubeconfig(adminKubeconfig(assets.dir, port));
    await admin.create("/api/v1/namespaces/default/pods", { metadata: { name: "on-vnode" }, spec: { nodeName: "vnode-0003", containers: [{ name: "app", image: "nginx" }] } });
    const pod = await waitFor("pod Running", async () => {
      const p = await admin.get("/api/v1/namespaces/default/pods/on-vnode");
      return p.status?.phase === "Running" && p;
    });
    expect(pod.status.conditions.find((c: Obj) => c.type === "Ready")?.status).toBe("True");
    expect(pod.status.podIP).toBe("10.240.0.4");
    expect(pod.status.containerStatuses[0].ready).toBe(true);

    await admin.delete("/api/v1/nodes/vnode-0001");
    await waitFor("vnode-0001 back", () => admin.get("/api/v1/nodes/vnode-0001"));
    const lease = await admin.get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/vnode-0001");
    expect(lease.spec.holderIdentity).toBe("vnode-0001");
  });

  it("keep registering through a gap in the API (as during the pivot) until every node is in", async () => {
    const kubeconfig = adminKubeconfig(assets.dir, port);
    await api!.stop();
    api = undefined;
    const v = new VirtualNodes(KubeClient.fromKubeconfig(kubeconfig), virtualNodeNames(10, "gap-"), "v1.34.4", quiet, 300);
    running.push(v);
    let done = false;
    const starting = v.start().then(() => (done = true));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(done).toBe(false);
    api = await startApiServer(assets.dir, etcd.url, port);
    await starting;
    const names = ((await KubeClient.fromKubeconfig(kubeconfig).get("/api/v1/nodes")).items as Obj[]).map((n) => n.metadata.name).filter((n: string) => n.startsWith("gap-"));
    expect(names).toEqual(virtualNodeNames(10, "gap-"));
  });
});
