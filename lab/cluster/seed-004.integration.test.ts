// Seed 004's sequence walked by hand on lab hosts with the rendered assets, over SSH like a human
// would: kubelets from the lab mirror under (stand-in) systemd, the bootstrap control plane from the
// static manifests, the self-hosted objects through the API, the pivot, and a worker joining with a
// bootstrap token. Needs root (it brings up its own 2-host lab, "seq").
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleDefinition } from "../../lib/cluster/example";
import { renderAssets } from "../../lib/assets/render";
import { bootstrapSecretFiles, etcdMemberFiles, KUBELET_PATHS } from "../../lib/assets/render";
import { labDown, labUp } from "../lab";
import type { LabState } from "../state";
import { mirrorFiles } from "./mirror";

const LAB = "seq";
const VERSION = "v1.32.9";
let lab: LabState;
let dir: string;
let kubeconfig: string;
const timings: Record<string, number> = {};
const t0 = Date.now();
const mark = (step: string) => {
  timings[step] = Math.round((Date.now() - t0) / 1000);
};

function sh(cmd: string, args: string[], input?: string, timeout = 60_000): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const p = execFile(cmd, args, { encoding: "utf8", timeout, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
    p.stdin?.end(input ?? "");
  });
}
const host = (name: string) => {
  const h = lab.hosts.find((x) => x.name === name);
  if (!h) throw new Error(name);
  return h;
};
const ssh = (name: string, script: string, input?: string) =>
  sh("ssh", ["-i", lab.adminKeyPath, "-o", "UserKnownHostsFile=/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "LogLevel=error", "-o", "BatchMode=yes", `root@${host(name).address}`, script], input);
const put = async (name: string, file: string, content: string, mode = "0600") => {
  const r = await ssh(name, `mkdir -p '${path.dirname(file)}' && cat > '${file}' && chmod ${mode} '${file}'`, content);
  if (r.code !== 0) throw new Error(`put ${file} on ${name}: ${r.out}`);
};
const asset = (p: string) => fs.readFileSync(path.join(dir, p), "utf8");
const kubectl = (...args: string[]) => sh("/usr/bin/kubectl", ["--kubeconfig", kubeconfig, "--request-timeout=10s", ...args]);
async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms / 1000}s waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}
const pods = async () => JSON.parse((await kubectl("get", "pods", "-A", "-o", "json")).out).items as any[];

/** The kubelet as the product installs it: binary from the mirror (sum checked), unit, drop-in, env, config, CA. */
async function installKubelet(name: string, role: "master" | "worker"): Promise<void> {
  const base = lab.mirrorUrl ?? "";
  const sum = (await sh("curl", ["-sf", `${base}/kubelet.sha256`])).out.trim();
  const r = await ssh(name, `curl -sfo /usr/local/bin/kubelet ${base}/kubelet && echo '${sum}  /usr/local/bin/kubelet' | sha256sum -c - && chmod 0755 /usr/local/bin/kubelet`);
  expect(r.out).toContain("OK");
  await put(name, KUBELET_PATHS.unit, asset("kubelet/kubelet.service"), "0644");
  await put(name, KUBELET_PATHS.dropIn, asset("kubelet/10-bootdeck.conf"), "0644");
  // Lab tuning only (not the product's files): a shorter restart back-off cap so the pivot's crash loop is quick.
  await put(name, "/etc/systemd/system/kubelet.service.d/90-lab.conf", "[Service]\nEnvironment=BOOTDECK_LAB_MAX_BACKOFF_MS=20000\n", "0644");
  await put(name, KUBELET_PATHS.env, asset(`kubelet/hosts/${name}.env`), "0644");
  await put(name, KUBELET_PATHS.config, asset(`kubelet/config-${role}.yaml`), "0644");
  await put(name, KUBELET_PATHS.clientCa, asset("tls/ca.crt"), "0644");
}

beforeAll(async () => {
  labDown(LAB, () => undefined);
  lab = await labUp({ name: LAB, masters: 1, workers: 1, log: () => undefined });
  const def = exampleDefinition({ name: "seq", hosts: 2 });
  const spec = def.spec as Record<string, any>;
  const files = mirrorFiles(VERSION);
  const sha = (n: string) => files?.get(`${n}.sha256`)?.toString().trim() ?? "";
  spec.apiEndpoint = { type: "first-master", port: 6443 };
  spec.binaries = { baseUrl: lab.mirrorUrl, kubelet: { sha256: sha("kubelet") }, kubectl: { sha256: sha("kubectl") } };
  spec.hosts = [
    { name: "master-1", address: host("master-1").address, role: "master" },
    { name: "worker-1", address: host("worker-1").address, role: "worker" },
  ];
  const assets = await renderAssets(def, { keyType: "ecdsa" });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "seq-assets-"));
  for (const a of assets) {
    fs.mkdirSync(path.dirname(path.join(dir, a.path)), { recursive: true });
    fs.writeFileSync(path.join(dir, a.path), a.content, { mode: 0o600 });
  }
  kubeconfig = path.join(dir, "auth/kubeconfig");
  mark("lab up and render");
}, 180_000);

afterAll(() => {
  console.log(`seed-004 sequence timings (seconds since start): ${JSON.stringify(timings)}`);
  if (!process.env.BOOTDECK_KEEP_LAB) labDown(LAB, () => undefined);
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("seed 004 by hand on lab hosts", () => {
  it("master kubelet + bootstrap manifests → API healthy", async () => {
    await installKubelet("master-1", "master");
    // The first master's kubelet cannot bootstrap its certificate from an API server it has yet to
    // start, so it gets a ready kubeconfig (seed 004 copies auth/kubeconfig).
    await put("master-1", KUBELET_PATHS.kubeconfig, asset("auth/kubeconfig"));
    for (const [from, to] of Object.entries(etcdMemberFiles("master-1"))) await put("master-1", to, asset(from));
    await put("master-1", "/etc/kubernetes/manifests/etcd.yaml", asset("etcd/etcd-master-1.yaml"), "0644");
    for (const [from, to] of Object.entries(bootstrapSecretFiles(fs.readdirSync(path.join(dir, "tls"), { recursive: true }).map((f) => `tls/${f}`).concat(["auth/kubeconfig-controller-manager", "auth/kubeconfig-scheduler"]))))
      if (fs.statSync(path.join(dir, from)).isFile()) await put("master-1", `/etc/kubernetes/bootstrap-secrets/${to}`, asset(from));
    for (const f of fs.readdirSync(path.join(dir, "bootstrap-manifests"))) await put("master-1", `/etc/kubernetes/manifests/${f}`, asset(`bootstrap-manifests/${f}`), "0644");
    const up = await ssh("master-1", "systemctl daemon-reload && systemctl enable --now kubelet && systemctl is-active kubelet");
    expect(up.out).toContain("active");
    await waitFor("GET /healthz 200 and kube-system readable", async () => (await kubectl("get", "ns", "kube-system")).code === 0, 240_000);
    mark("bootstrap API healthy");
    const crictl = await ssh("master-1", "crictl ps -a");
    expect(crictl.out).toMatch(/kube-apiserver\s+0\s+\S+\s+bootstrap-kube-apiserver-master-1/);
    expect(crictl.out).toMatch(/etcd/);
  }, 300_000);

  it("self-hosted objects through the temporary API → self-hosted pods Running", async () => {
    const applied = await kubectl("apply", "-f", path.join(dir, "manifests"));
    expect(applied.code, applied.out).toBe(0);
    expect((await kubectl("label", "node", "master-1", "node-role.kubernetes.io/control-plane=", "--overwrite")).code).toBe(0);
    await kubectl("create", "configmap", "-n", "default", "--dry-run=client", "-o", "yaml", "pivot-marker").then(async (r) => sh("/usr/bin/kubectl", ["--kubeconfig", kubeconfig, "apply", "-f", "-"], r.out));
    const required = ["kube-apiserver", "kube-scheduler", "kube-controller-manager", "pod-checkpointer"];
    await waitFor(
      "self-hosted control-plane pods Running",
      async () => {
        const list = await pods();
        return required.every((r) => list.some((p) => p.metadata.name.startsWith(`${r}-`) && p.metadata.ownerReferences?.[0]?.kind !== "Node" && p.status?.phase === "Running"));
      },
      300_000,
    );
    mark("self-hosted pods Running");
    const node = JSON.parse((await kubectl("get", "node", "master-1", "-o", "json")).out);
    expect(node.status.conditions.find((c: any) => c.type === "Ready").status).toBe("True");
  }, 320_000);

  it("remove the bootstrap manifests → the self-hosted API server takes over with the same objects", async () => {
    const rm = await ssh("master-1", "rm -f /etc/kubernetes/manifests/bootstrap-*.yaml && rm -rf /etc/kubernetes/bootstrap-secrets");
    expect(rm.code).toBe(0);
    await waitFor("bootstrap API server gone", async () => !(await ssh("master-1", "crictl ps")).out.includes("bootstrap-kube-apiserver"), 60_000);
    await waitFor(
      "self-hosted API server answering with the pre-pivot objects",
      async () => (await kubectl("get", "configmap", "-n", "default", "pivot-marker")).code === 0 && (await ssh("master-1", "crictl ps")).out.match(/kube-apiserver\s+\d+\s+\S+\s+kube-apiserver-/),
      240_000,
    );
    mark("self-hosted API took over");
    const list = await pods();
    expect(list.some((p) => p.metadata.name.startsWith("bootstrap-kube-apiserver"))).toBe(false);
  }, 320_000);

  it("a worker joins with the bootstrap token and goes Ready", async () => {
    await installKubelet("worker-1", "worker");
    await put("worker-1", KUBELET_PATHS.bootstrapKubeconfig, asset("auth/kubeconfig-kubelet"));
    const up = await ssh("worker-1", "systemctl daemon-reload && systemctl enable --now kubelet && systemctl is-active kubelet");
    expect(up.out).toContain("active");
    await waitFor(
      "worker-1 Ready",
      async () => {
        const n = JSON.parse((await kubectl("get", "node", "worker-1", "-o", "json")).out || "{}");
        return n.status?.conditions?.find((c: any) => c.type === "Ready")?.status === "True";
      },
      300_000,
    );
    mark("worker Ready");
    const csrs = JSON.parse((await kubectl("get", "csr", "-o", "json")).out).items as any[];
    expect(csrs.some((c) => /^system:bootstrap:/.test(c.spec.username) && c.status.certificate)).toBe(true);
    const wide = await kubectl("get", "nodes", "-o", "wide");
    expect(wide.out).toMatch(/master-1\s+Ready\s+control-plane/);
    expect(wide.out).toMatch(/worker-1\s+Ready/);
    const journal = await ssh("worker-1", "journalctl -u kubelet -n 200 --no-pager");
    expect(journal.out).toContain("certificate signed");
    // kubectl's everyday commands against the self-hosted control plane.
    const all = await kubectl("get", "pods", "-A", "-o", "wide");
    expect(all.out).toMatch(/kube-system\s+kube-apiserver-\S+\s+1\/1\s+Running\s+\d+\s+\S+\s+\S+\s+master-1/);
    const flannel = (await pods()).find((p) => p.metadata.namespace === "kube-flannel" && p.spec.nodeName === "worker-1");
    const logs = await waitFor("flannel logs on worker-1", async () => {
      const r = await kubectl("logs", "-n", "kube-flannel", flannel.metadata.name);
      return r.out.includes("flannel placeholder") ? r.out : undefined;
    }, 60_000);
    expect(logs).toContain("subnet 10.2.");
    const describe = await kubectl("describe", "pod", "-n", "kube-flannel", flannel.metadata.name);
    expect(describe.code, describe.out).toBe(0);
    expect(describe.out).toMatch(/Node:\s+worker-1\//);
    expect(describe.out).toContain("Successfully assigned");
  }, 320_000);
});
