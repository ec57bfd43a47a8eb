// Test helper: rendered assets for a one-master cluster on loopback, a real etcd (Debian etcd-server)
// with the rendered etcd certificates, and the API server stand-in in process.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { exampleDefinition } from "../../lib/cluster/example";
import { renderAssets } from "../../lib/assets/render";
import { ApiServer, apiServerOptionsFromFlags } from "./apiserver";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => (a && typeof a === "object" ? resolve(a.port) : reject(new Error("no port"))));
    });
  });
}

export type RenderedDir = { dir: string; files: string[] };

/** Renders a cluster whose one master is 127.0.0.1 (workers get other loopback addresses). */
export async function renderLoopbackCluster(opts: { version?: string; workers?: number; apiPort?: number } = {}): Promise<RenderedDir> {
  const def = exampleDefinition({ name: "labtest", hosts: 1 + (opts.workers ?? 0) });
  const spec = def.spec as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  spec.kubernetes.version = opts.version ?? "v1.34.4";
  spec.apiEndpoint = { type: "first-master", port: opts.apiPort ?? 6443 };
  spec.hosts = [
    { name: "master-1", address: "127.0.0.1", role: "master" },
    ...Array.from({ length: opts.workers ?? 0 }, (_, i) => ({ name: `worker-${i + 1}`, address: `127.0.0.${i + 2}`, role: "worker" })),
  ];
  const assets = await renderAssets(def, { encryptionAlgorithm: "ECDSA-P256" });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bootdeck-labcluster-"));
  for (const a of assets) {
    const p = path.join(dir, a.path);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, a.content, { mode: a.mode });
  }
  return { dir, files: assets.map((a) => a.path) };
}

export type Etcd = { url: string; proc: ChildProcess; dataDir: string; stop: () => Promise<void> };

export async function startEtcd(assets: string, name = "master-1"): Promise<Etcd> {
  const [client, peer] = [await freePort(), await freePort()];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "bootdeck-etcd-"));
  const t = (p: string) => path.join(assets, "tls/etcd", p);
  const url = `https://127.0.0.1:${client}`;
  const proc = spawn(
    "/usr/bin/etcd",
    [
      `--name=${name}`,
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=https://127.0.0.1:${peer}`,
      `--initial-advertise-peer-urls=https://127.0.0.1:${peer}`,
      `--initial-cluster=${name}=https://127.0.0.1:${peer}`,
      `--cert-file=${t(`server-${name}.crt`)}`,
      `--key-file=${t(`server-${name}.key`)}`,
      `--trusted-ca-file=${t("ca.crt")}`,
      "--client-cert-auth=true",
      `--peer-cert-file=${t(`peer-${name}.crt`)}`,
      `--peer-key-file=${t(`peer-${name}.key`)}`,
      `--peer-trusted-ca-file=${t("ca.crt")}`,
      "--peer-client-cert-auth=true",
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ETCD_UNSUPPORTED_ARCH: "" } },
  );
  let log = "";
  proc.stderr?.on("data", (c: Buffer) => (log += c.toString()));
  const deadline = Date.now() + 15_000;
  while (!/ready to serve client requests|serving client requests on/.test(log)) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`etcd did not start: ${log.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    proc,
    dataDir,
    stop: async () => {
      if (proc.exitCode === null) {
        proc.kill("SIGTERM");
        await new Promise((r) => proc.once("exit", r));
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The rendered API server's flags, pointed at `etcdUrl` and listening on `port` on loopback. */
export function apiServerArgs(assets: string, etcdUrl: string, port: number): string[] {
  const t = (p: string) => path.join(assets, "tls", p);
  return [
    "--advertise-address=127.0.0.1",
    "--bind-address=127.0.0.1",
    `--client-ca-file=${t("ca.crt")}`,
    `--etcd-cafile=${t("etcd/ca.crt")}`,
    `--etcd-certfile=${t("etcd-client.crt")}`,
    `--etcd-keyfile=${t("etcd-client.key")}`,
    `--etcd-servers=${etcdUrl}`,
    `--secure-port=${port}`,
    `--service-account-key-file=${t("service-account.pub")}`,
    `--service-account-signing-key-file=${t("service-account.key")}`,
    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
    "--service-cluster-ip-range=10.3.0.0/24",
    "--enable-bootstrap-token-auth=true",
    `--tls-cert-file=${t("apiserver.crt")}`,
    `--tls-private-key-file=${t("apiserver.key")}`,
    `--kubelet-client-certificate=${t("apiserver-kubelet-client.crt")}`,
    `--kubelet-client-key=${t("apiserver-kubelet-client.key")}`,
    "--authorization-mode=Node,RBAC",
  ];
}

export async function startApiServer(assets: string, etcdUrl: string, port?: number): Promise<ApiServer> {
  const p = port ?? (await freePort());
  const s = new ApiServer(apiServerOptionsFromFlags(apiServerArgs(assets, etcdUrl, p), () => undefined), () => undefined);
  await s.start();
  return s;
}

/** The rendered admin kubeconfig with its server rewritten to the stand-in's port. */
export function adminKubeconfig(assets: string, port: number, file = "auth/kubeconfig"): string {
  const src = fs.readFileSync(path.join(assets, file), "utf8");
  const out = path.join(assets, `${file.replace(/\//g, "-")}-${port}`);
  fs.writeFileSync(out, src.replace(/server: https:\/\/[^\s]+/, `server: https://127.0.0.1:${port}`), { mode: 0o600 });
  return out;
}

/** Polls `fn` until it returns something truthy (errors count as not yet), or fails after `ms`. */
export async function waitFor<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, ms = 60_000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}${last ? `: ${last instanceof Error ? last.message : String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
