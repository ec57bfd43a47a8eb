// The lab's kubelet stand-in (KWOK-like, but it really runs things). It accepts the real kubelet's
// flags for its version profile (BOOTDECK_LAB_K8S_VERSION, set by the binary the mirror serves) and
// its KubeletConfiguration, fails the way the real one does, registers its Node with the credentials
// it was given (client certificate, or bootstrap token + CSR), and runs static pods and the pods bound
// to it as host processes: etcd images run the real /usr/bin/etcd, control-plane images run the lab
// stand-ins, everything else a placeholder. Containers outlive a kubelet restart (as with containerd):
// their state is in /var/lib/kubelet/lab-containers.json and a restarted kubelet adopts them.
import { execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import https from "node:https";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parse as parseYaml, parseAllDocuments } from "yaml";
import { FlagError, parseFlags, type FlagSpec } from "./flags";
import { ApiError, KubeClient, loadKubeconfig } from "./kube-client";
import { certSignedBy } from "./apiserver";

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Log = (l: string) => void;

const nowTs = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");
const minorOf = (v: string) => Number(/^v1\.(\d+)/.exec(v)?.[1] ?? 32);

/** The kubelet's flags by version: what the real one accepts (removed flags fail with `unknown flag`). */
export function kubeletFlagSpec(version: string): FlagSpec {
  const minor = minorOf(version);
  const spec: FlagSpec = {
    kubeconfig: "string",
    "bootstrap-kubeconfig": "string",
    "lock-file": "string",
    "exit-on-lock-contention": "bool",
    "hostname-override": "string",
    "node-ip": "string",
    "node-labels": "string",
    "register-with-taints": "string",
    "register-node": "bool",
    "pod-manifest-path": "string",
    "cluster-dns": "string",
    "cluster-domain": "string",
    "client-ca-file": "string",
    "container-runtime-endpoint": "string",
    "cgroup-driver": "string",
    "rotate-certificates": "bool",
    "root-dir": "string",
    "cert-dir": "string",
    "fail-swap-on": "bool",
    "anonymous-auth": "bool",
    "authorization-mode": "string",
    "read-only-port": "string",
    "max-pods": "string",
    "feature-gates": "string",
    "node-status-update-frequency": "string",
    "provider-id": "string",
    "runtime-request-timeout": "string",
    port: "string",
    "healthz-port": "string",
    v: "string",
  };
  if (minor >= 10) spec.config = "string";
  if (minor < 10) spec["require-kubeconfig"] = "bool";
  if (minor < 15) spec["allow-privileged"] = "bool";
  if (minor < 24) {
    spec["network-plugin"] = "string";
    spec["cni-conf-dir"] = "string";
    spec["cni-bin-dir"] = "string";
    spec["pod-infra-container-image"] = "string";
  }
  if (minor < 20) spec["minimum-container-ttl-duration"] = "string";
  if (minor < 8) spec.containerized = "bool";
  return spec;
}

export class KubeletFatal extends Error {}

export type KubeletConfig = {
  version: string;
  nodeName: string;
  nodeIp: string;
  kubeconfig?: string;
  bootstrapKubeconfig?: string;
  lockFile?: string;
  exitOnLockContention: boolean;
  staticPodPath?: string;
  clusterDns: string[];
  clusterDomain: string;
  clientCaFile?: string;
  nodeLabels: Record<string, string>;
  registerWithTaints: Obj[];
  cniConfDir: string;
  rootDir: string;
  port: number;
  healthzPort: number;
};

function firstAddress(): string {
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  return "127.0.0.1";
}

/** Parses flags and the config file like the real kubelet, throwing KubeletFatal with its messages. */
export function kubeletConfigFrom(argv: readonly string[], version = process.env.BOOTDECK_LAB_K8S_VERSION ?? "v1.34.4"): KubeletConfig {
  let f;
  try {
    f = parseFlags(argv, kubeletFlagSpec(version), true);
  } catch (e) {
    if (e instanceof FlagError) throw new KubeletFatal(`failed to parse kubelet flag: ${e.message}`);
    throw e;
  }
  let file: Obj = {};
  const cfgPath = f.values.get("config");
  if (cfgPath) {
    let text: string;
    try {
      text = fs.readFileSync(cfgPath, "utf8");
    } catch (e) {
      throw new KubeletFatal(`failed to load kubelet config file, path: ${cfgPath}, error: failed to load Kubelet config file ${cfgPath}, error failed to read kubelet config file "${cfgPath}", error: open ${cfgPath}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or directory" : (e as Error).message}`);
    }
    try {
      file = (parseYaml(text) as Obj) ?? {};
    } catch (e) {
      throw new KubeletFatal(`failed to load kubelet config file, path: ${cfgPath}, error: failed to decode: ${(e as Error).message.split("\n")[0]}`);
    }
    if (file.kind !== "KubeletConfiguration" || !/^kubelet\.config\.k8s\.io\/v1(beta1)?$/.test(String(file.apiVersion)))
      throw new KubeletFatal(`failed to load kubelet config file, path: ${cfgPath}, error: failed to decode: no kind "${file.kind ?? ""}" is registered for version "${file.apiVersion ?? ""}" in scheme "pkg/kubelet/apis/config/scheme/scheme.go:33"`);
  }
  const labels: Record<string, string> = {};
  for (const kv of (f.values.get("node-labels") ?? "").split(",").filter(Boolean)) {
    const [k, v = ""] = kv.split("=");
    if (k) labels[k] = v;
  }
  if (minorOf(version) >= 16) {
    const bad = Object.keys(labels).filter((k) => /(^|\.)(kubernetes\.io|k8s\.io)\//.test(k) && !/^(kubelet\.kubernetes\.io|node\.kubernetes\.io)\//.test(k) && !["kubernetes.io/hostname", "kubernetes.io/os", "kubernetes.io/arch", "beta.kubernetes.io/os", "beta.kubernetes.io/arch"].includes(k));
    if (bad.length) throw new KubeletFatal(`unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [${bad.join(" ")}]\n--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (kubelet.kubernetes.io, node.kubernetes.io) or be in the specifically allowed set (beta.kubernetes.io/arch, beta.kubernetes.io/instance-type, beta.kubernetes.io/os, failure-domain.beta.kubernetes.io/region, failure-domain.beta.kubernetes.io/zone, kubernetes.io/arch, kubernetes.io/hostname, kubernetes.io/os, node.kubernetes.io/instance-type, topology.kubernetes.io/region, topology.kubernetes.io/zone)`);
  }
  const taints = (f.values.get("register-with-taints") ?? "").split(",").filter(Boolean).map((t) => {
    const [kv = "", effect] = t.split(":");
    const [key, value] = kv.split("=");
    return { key, value, effect };
  });
  return {
    version,
    nodeName: (f.values.get("hostname-override") ?? os.hostname()).toLowerCase(),
    nodeIp: f.values.get("node-ip") ?? firstAddress(),
    kubeconfig: f.values.get("kubeconfig"),
    bootstrapKubeconfig: f.values.get("bootstrap-kubeconfig"),
    lockFile: f.values.get("lock-file"),
    exitOnLockContention: f.values.get("exit-on-lock-contention") === "true",
    staticPodPath: f.values.get("pod-manifest-path") ?? file.staticPodPath,
    clusterDns: (f.values.get("cluster-dns") ?? "").split(",").filter(Boolean).concat(file.clusterDNS ?? []),
    clusterDomain: f.values.get("cluster-domain") ?? file.clusterDomain ?? "",
    clientCaFile: f.values.get("client-ca-file") ?? file.authentication?.x509?.clientCAFile,
    nodeLabels: labels,
    registerWithTaints: [...taints, ...(file.registerWithTaints ?? [])],
    cniConfDir: f.values.get("cni-conf-dir") ?? "/etc/cni/net.d",
    rootDir: f.values.get("root-dir") ?? "/var/lib/kubelet",
    port: Number(f.values.get("port") ?? file.port ?? 10250),
    healthzPort: Number(f.values.get("healthz-port") ?? file.healthzPort ?? 10248),
  };
}

// ------------------------------------------------------------------ containers
export type ContainerRecord = {
  id: string;
  podUid: string;
  podName: string;
  podNamespace: string;
  name: string;
  image: string;
  init: boolean;
  pid: number;
  startedAt: string;
  finishedAt?: string;
  exitCode?: number;
  attempt: number;
  logPath: string;
};

/** How an image runs in the lab: the real etcd, a stand-in, or a placeholder. */
export function imageKind(image: string, command: string[]): "etcd" | "kube-apiserver" | "kube-controller-manager" | "kube-scheduler" | "flannel" | "placeholder" {
  const all = `${image} ${command.slice(0, 2).join(" ")}`;
  if (/hyperkube/.test(image)) {
    const sub = command.find((c) => /^(apiserver|kube-apiserver|controller-manager|kube-controller-manager|scheduler|kube-scheduler|proxy|kube-proxy|kubelet)$/.test(c)) ?? "";
    if (/apiserver/.test(sub)) return "kube-apiserver";
    if (/controller-manager/.test(sub)) return "kube-controller-manager";
    if (/scheduler/.test(sub)) return "kube-scheduler";
    return "placeholder";
  }
  if (/(^|\/)etcd[:@]/.test(image) || /(^|\/)etcd$/.test(command[0] ?? "")) return "etcd";
  if (/kube-apiserver/.test(all)) return "kube-apiserver";
  if (/kube-controller-manager/.test(all)) return "kube-controller-manager";
  if (/kube-scheduler/.test(all)) return "kube-scheduler";
  if (/flannel/.test(image) && !/cni-plugin/.test(image)) return "flannel";
  return "placeholder";
}

/** The command that runs a lab stand-in component with this same Node and loader. */
export function standInCommand(component: string): string[] {
  const main = path.join(__dirname, "main.ts");
  const tsx = require.resolve("tsx/esm").replace(/esm\/index\.m?js$/, "loader.mjs");
  return [process.execPath, "--import", fs.existsSync(tsx) ? tsx : "tsx", main, component];
}

/** Container path → host path for a pod's volume mounts. */
type Mounts = Record<string, string>;
function translate(arg: string, mounts: Mounts): string {
  const sub = (p: string) => {
    let best = "";
    for (const m of Object.keys(mounts)) {
      const mm = m.replace(/\/$/, "");
      if ((p === mm || p.startsWith(`${mm}/`)) && mm.length > best.length) best = mm;
    }
    return best ? `${mounts[best] ?? mounts[`${best}/`]}${p.slice(best.length)}` : p;
  };
  const eq = arg.indexOf("=");
  if (arg.startsWith("--") && eq > 0) return `${arg.slice(0, eq + 1)}${arg.slice(eq + 1).split(",").map(sub).join(",")}`;
  return arg.startsWith("/") ? sub(arg) : arg;
}

const PLACEHOLDER = `echo "bootdeck lab placeholder for image $LAB_IMAGE: $*"; trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done`;
const FLANNEL = `
if [ -z "$LAB_NODE_CIDR" ]; then
  echo "E$(date -u +%m%d\\ %H:%M:%S) 1 main.go:  Failed to create SubnetManager: error retrieving pod spec: node \"$LAB_NODE_NAME\" pod cidr not assigned"
  exit 1
fi
if [ ! -s "$LAB_SA_TOKEN" ]; then
  echo "E$(date -u +%m%d\\ %H:%M:%S) 1 main.go:127] Failed to create SubnetManager: unable to initialize inclusterconfig: open /var/run/secrets/kubernetes.io/serviceaccount/token: no such file or directory"
  exit 1
fi
mkdir -p /run/flannel "$LAB_CNI_DIR"
printf 'FLANNEL_NETWORK=%s\\nFLANNEL_SUBNET=%s\\nFLANNEL_MTU=1450\\nFLANNEL_IPMASQ=true\\n' "$LAB_POD_CIDR" "$LAB_NODE_CIDR" > /run/flannel/subnet.env
[ -s "$LAB_CNI_DIR/10-flannel.conflist" ] || printf '{"name":"cbr0","cniVersion":"0.3.1","plugins":[{"type":"flannel","delegate":{"hairpinMode":true,"isDefaultGateway":true}},{"type":"portmap","capabilities":{"portMappings":true}}]}\\n' > "$LAB_CNI_DIR/10-flannel.conflist"
echo "I$(date -u +%m%d\\ %H:%M:%S) 1 main.go:  bootdeck lab flannel placeholder: subnet $LAB_NODE_CIDR, CNI config in $LAB_CNI_DIR"
trap 'exit 0' TERM INT
while :; do sleep 3600 & wait $!; done
`;

type PodRun = { pod: Obj; uid: string; static: boolean; mounts: Mounts; podIp?: string; waiting?: { reason: string; message: string }; backoff: Map<string, { until: number; delay: number }>; mirrorCreated?: boolean };

export class Kubelet {
  client?: KubeClient;
  private readonly state: string;
  private containers: ContainerRecord[] = [];
  private readonly pods = new Map<string, PodRun>();
  private apiPods = new Map<string, Obj>();
  private timers: NodeJS.Timeout[] = [];
  private stopWatch?: () => void;
  private registered = false;
  private apiSynced = false;
  private node?: Obj;
  private servers: (http.Server | https.Server)[] = [];
  private stopped = false;
  private readonly children = new Map<number, { code?: number }>();

  constructor(
    readonly cfg: KubeletConfig,
    private readonly log: Log,
  ) {
    this.state = path.join(cfg.rootDir, "lab-containers.json");
  }

  // ---------------------------------------------------------------- start
  async start(): Promise<void> {
    if (this.cfg.clientCaFile && !fs.existsSync(this.cfg.clientCaFile))
      throw new KubeletFatal(`failed to construct kubelet dependencies: unable to load client CA file ${this.cfg.clientCaFile}: open ${this.cfg.clientCaFile}: no such file or directory`);
    if (this.cfg.lockFile) await this.acquireLock(this.cfg.lockFile);
    fs.mkdirSync(this.cfg.rootDir, { recursive: true });
    try {
      this.containers = JSON.parse(fs.readFileSync(this.state, "utf8")) as ContainerRecord[];
      const live = this.containers.filter((c) => c.exitCode === undefined && alive(c.pid));
      if (live.length) this.log(`adopting ${live.length} running containers from a previous kubelet`);
      for (const c of this.containers) if (c.exitCode === undefined && !alive(c.pid)) this.finish(c, 255);
    } catch {
      this.containers = [];
    }
    await this.serve();
    await this.credentials();
    this.log(`Started kubelet ${this.cfg.version} (lab stand-in) node=${this.cfg.nodeName} ip=${this.cfg.nodeIp} staticPodPath=${this.cfg.staticPodPath ?? "<none>"}`);
    const every = (ms: number, fn: () => Promise<void>) => {
      let busy = false;
      const t = setInterval(() => {
        if (busy || this.stopped) return;
        busy = true;
        fn().catch((e: Error) => this.log(`E ${e.message}`)).finally(() => (busy = false));
      }, ms);
      this.timers.push(t);
    };
    every(1000, () => this.syncPods());
    every(2000, () => this.syncNode());
  }

  stop(killContainers = false): void {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.stopWatch?.();
    for (const s of this.servers) s.close();
    if (killContainers) for (const c of this.containers) if (c.exitCode === undefined) killGroup(c.pid, "SIGKILL");
    if (this.cfg.lockFile) fs.rmSync(this.cfg.lockFile, { force: true });
  }

  /** --lock-file / --exit-on-lock-contention: wait for the holder; exit when someone else wants it. */
  private async acquireLock(file: string): Promise<void> {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const holder = () => Number(fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim() : 0);
    let h = holder();
    if (h && h !== process.pid && alive(h)) {
      fs.writeFileSync(`${file}.contend`, String(process.pid));
      this.log(`waiting for the lock on ${file} (held by pid ${h})`);
      while ((h = holder()) && h !== process.pid && alive(h)) await sleep(500);
    }
    fs.writeFileSync(file, String(process.pid));
    fs.rmSync(`${file}.contend`, { force: true });
    if (this.cfg.exitOnLockContention) {
      const t = setInterval(() => {
        const c = Number(fs.existsSync(`${file}.contend`) ? fs.readFileSync(`${file}.contend`, "utf8") : 0);
        if (c && c !== process.pid && alive(c)) {
          this.log(`detected lock contention on ${file} (pid ${c}); exiting as --exit-on-lock-contention asks`);
          this.stop();
          process.exit(0);
        }
      }, 500);
      this.timers.push(t);
    }
  }

  /** Client credentials: --kubeconfig, or bootstrap through a CSR; fails like the real kubelet. */
  private async credentials(): Promise<void> {
    const kc = this.cfg.kubeconfig;
    if (kc && fs.existsSync(kc)) {
      this.client = KubeClient.fromKubeconfig(kc);
      return;
    }
    if (this.cfg.bootstrapKubeconfig) {
      if (!fs.existsSync(this.cfg.bootstrapKubeconfig))
        throw new KubeletFatal(`failed to run Kubelet: unable to load bootstrap kubeconfig: stat ${this.cfg.bootstrapKubeconfig}: no such file or directory`);
      if (!kc) throw new KubeletFatal("failed to run Kubelet: --kubeconfig is required with --bootstrap-kubeconfig");
      await this.bootstrap(this.cfg.bootstrapKubeconfig, kc);
      this.client = KubeClient.fromKubeconfig(kc);
      return;
    }
    if (kc) throw new KubeletFatal(`failed to run Kubelet: invalid kubeconfig: stat ${kc}: no such file or directory`);
    this.log("No API server defined - no node status update will be sent (standalone mode)");
    this.apiSynced = true; // no API pods to wait for: containers of unknown pods can go

  }

  /** TLS bootstrapping: a CSR for system:node:<name> with the bootstrap token, blocking until signed. */
  private async bootstrap(bootstrapKc: string, kc: string): Promise<void> {
    const boot = loadKubeconfig(bootstrapKc);
    const client = new KubeClient(boot);
    const pki = path.join(this.cfg.rootDir, "pki");
    fs.mkdirSync(pki, { recursive: true });
    const keyFile = path.join(pki, "kubelet-client.key.tmp");
    if (!fs.existsSync(keyFile)) execFileSync("openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", keyFile]);
    const csr = execFileSync("openssl", ["req", "-new", "-key", keyFile, "-subj", `/O=system:nodes/CN=system:node:${this.cfg.nodeName}`], { encoding: "utf8" });
    const name = `node-csr-${createHash("sha256").update(csr).digest("base64url").slice(0, 20)}`;
    for (;;) {
      try {
        await client
          .create("/apis/certificates.k8s.io/v1/certificatesigningrequests", {
            metadata: { name },
            spec: { request: Buffer.from(csr).toString("base64"), signerName: "kubernetes.io/kube-apiserver-client-kubelet", usages: ["digital signature", "client auth"] },
          })
          .catch((e) => {
            if (!(e instanceof ApiError && e.code === 409)) throw e;
          });
        this.log(`waiting for CSR ${name} to be approved and signed`);
        for (;;) {
          const c = await client.get(`/apis/certificates.k8s.io/v1/certificatesigningrequests/${name}`);
          if ((c.status?.conditions ?? []).some((x: Obj) => x.type === "Denied")) throw new KubeletFatal(`certificate request ${name} was denied`);
          if (c.status?.certificate) {
            const cert = Buffer.from(c.status.certificate, "base64").toString();
            const current = path.join(pki, "kubelet-client-current.pem");
            fs.writeFileSync(current, `${cert}${fs.readFileSync(keyFile, "utf8")}`, { mode: 0o600 });
            fs.rmSync(keyFile, { force: true });
            const caData = boot.ca?.toString("base64");
            fs.mkdirSync(path.dirname(kc), { recursive: true });
            fs.writeFileSync(
              kc,
              `apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    certificate-authority-data: ${caData}\n    server: ${boot.server}\n  name: default-cluster\ncontexts:\n- context:\n    cluster: default-cluster\n    namespace: default\n    user: default-auth\n  name: default-context\ncurrent-context: default-context\nusers:\n- name: default-auth\n  user:\n    client-certificate: ${current}\n    client-key: ${current}\n`,
              { mode: 0o600 },
            );
            this.log(`certificate signed: wrote ${kc}`);
            return;
          }
          await sleep(1000);
        }
      } catch (e) {
        if (e instanceof KubeletFatal) throw e;
        this.log(`E "Failed to request signed certificate from the API server" err="${(e as Error).message}"`);
        await sleep(3000);
      }
    }
  }

  // ---------------------------------------------------------------- node
  private networkReady(): boolean {
    try {
      return fs.readdirSync(this.cfg.cniConfDir).some((f) => /\.(conf|conflist|json)$/.test(f));
    } catch {
      return false;
    }
  }

  private nodeStatus(): Obj {
    const ready = this.networkReady();
    const now = nowTs();
    return {
      addresses: [
        { type: "InternalIP", address: this.cfg.nodeIp },
        { type: "Hostname", address: this.cfg.nodeName },
      ],
      capacity: { cpu: String(os.cpus().length), memory: `${Math.floor(os.totalmem() / 1024)}Ki`, pods: "110", "ephemeral-storage": "20Gi" },
      allocatable: { cpu: String(os.cpus().length), memory: `${Math.floor(os.totalmem() / 1024)}Ki`, pods: "110", "ephemeral-storage": "20Gi" },
      daemonEndpoints: { kubeletEndpoint: { Port: this.cfg.port } },
      nodeInfo: {
        kubeletVersion: this.cfg.version,
        kubeProxyVersion: this.cfg.version,
        osImage: "Debian GNU/Linux 12 (bookworm) (bootdeck lab)",
        kernelVersion: os.release(),
        operatingSystem: "linux",
        architecture: "amd64",
        containerRuntimeVersion: "bootdeck-lab://1.0.0",
        machineID: this.cfg.nodeName,
        systemUUID: this.cfg.nodeName,
        bootID: bootId,
      },
      conditions: [
        { type: "MemoryPressure", status: "False", reason: "KubeletHasSufficientMemory", message: "kubelet has sufficient memory available", lastHeartbeatTime: now, lastTransitionTime: this.since("mem", "False") },
        { type: "DiskPressure", status: "False", reason: "KubeletHasNoDiskPressure", message: "kubelet has no disk pressure", lastHeartbeatTime: now, lastTransitionTime: this.since("disk", "False") },
        { type: "PIDPressure", status: "False", reason: "KubeletHasSufficientPID", message: "kubelet has sufficient PID available", lastHeartbeatTime: now, lastTransitionTime: this.since("pid", "False") },
        ready
          ? { type: "Ready", status: "True", reason: "KubeletReady", message: "kubelet is posting ready status", lastHeartbeatTime: now, lastTransitionTime: this.since("ready", "True") }
          : {
              type: "Ready",
              status: "False",
              reason: "KubeletNotReady",
              message: "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized",
              lastHeartbeatTime: now,
              lastTransitionTime: this.since("ready", "False"),
            },
      ],
    };
  }

  private transitions = new Map<string, { status: string; at: string }>();
  private since(key: string, status: string): string {
    const t = this.transitions.get(key);
    if (t?.status === status) return t.at;
    const at = nowTs();
    this.transitions.set(key, { status, at });
    return at;
  }

  private lastStatus = 0;

  private async syncNode(): Promise<void> {
    if (!this.client) return;
    const name = this.cfg.nodeName;
    try {
      if (!this.registered) {
        const labels = { "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64", ...this.cfg.nodeLabels };
        try {
          await this.client.create("/api/v1/nodes", { metadata: { name, labels }, spec: { taints: this.cfg.registerWithTaints.length ? this.cfg.registerWithTaints : undefined } });
          this.log(`Successfully registered node ${name}`);
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 409)) throw e;
        }
        this.registered = true;
        this.watchPods();
      }
      const ready = this.networkReady();
      if (Date.now() - this.lastStatus > 10_000 || ready !== this.lastReady) {
        this.node = await this.client.patch(`/api/v1/nodes/${name}/status`, { status: this.nodeStatus() }, "strategic");
        this.lastStatus = Date.now();
        this.lastReady = ready;
        await this.renewLease();
      }
    } catch (e) {
      this.log(`E "Unable to register node with API server" err="${(e as Error).message}" node="${name}"`);
      if (e instanceof ApiError && e.code === 404) this.registered = false;
    }
  }

  private lastReady?: boolean;

  private async renewLease(): Promise<void> {
    if (!this.client || minorOf(this.cfg.version) < 14) return;
    const p = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${this.cfg.nodeName}`;
    const spec = { holderIdentity: this.cfg.nodeName, leaseDurationSeconds: 40, renewTime: new Date().toISOString().replace("Z", "000Z").replace(/(\.\d{6})\d*Z$/, "$1Z") };
    await this.client.patch(p, { spec }).catch(() => this.client?.create("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", { metadata: { name: this.cfg.nodeName }, spec }).catch(() => undefined));
  }

  private watchPods(): void {
    if (!this.client) return;
    const client = this.client;
    const sel = `fieldSelector=${encodeURIComponent(`spec.nodeName=${this.cfg.nodeName}`)}`;
    const loop = async () => {
      while (!this.stopped) {
        try {
          const list = await client.get(`/api/v1/pods?${sel}`);
          this.apiPods = new Map((list.items ?? []).map((p: Obj) => [p.metadata.uid, p]));
          this.apiSynced = true;
          await new Promise<void>((resolve) => {
            this.stopWatch = client.watch(`/api/v1/pods?${sel}&resourceVersion=${list.metadata.resourceVersion}`, (type, o) => {
              if (type === "DELETED") this.apiPods.delete(o.metadata.uid);
              else if (type === "ADDED" || type === "MODIFIED") this.apiPods.set(o.metadata.uid, o);
            }, () => resolve());
          });
        } catch (e) {
          this.log(`E "Failed to watch pods" err="${(e as Error).message}"`);
        }
        await sleep(1000);
      }
    };
    void loop();
  }

  // ---------------------------------------------------------------- pods
  private staticPods(): Obj[] {
    const dir = this.cfg.staticPodPath;
    if (!dir || !fs.existsSync(dir)) return [];
    const out: Obj[] = [];
    for (const f of fs.readdirSync(dir).sort()) {
      if (f.startsWith(".") || !/\.(ya?ml|json)$/.test(f)) continue;
      const file = path.join(dir, f);
      let text: string;
      try {
        text = fs.readFileSync(file, "utf8");
      } catch {
        continue;
      }
      for (const doc of parseAllDocuments(text)) {
        const pod = doc.toJS() as Obj;
        if (!pod || pod.kind !== "Pod") continue;
        const hash = createHash("md5").update(`${this.cfg.nodeName}${JSON.stringify(pod)}${file}`).digest("hex");
        pod.metadata = { ...pod.metadata, name: `${pod.metadata?.name}-${this.cfg.nodeName}`, namespace: pod.metadata?.namespace ?? "default", uid: hash };
        pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), "kubernetes.io/config.hash": hash, "kubernetes.io/config.mirror": hash, "kubernetes.io/config.source": "file", "kubernetes.io/config.seen": nowTs() };
        pod.spec = { ...pod.spec, nodeName: this.cfg.nodeName, restartPolicy: pod.spec?.restartPolicy ?? "Always" };
        out.push(pod);
      }
    }
    return out;
  }

  /** Mirror pods of removed static pods; retried until the API answers (it may be the pod that went). */
  private readonly mirrorsToDelete = new Map<string, Obj>();

  private async syncPods(): Promise<void> {
    this.reap();
    for (const [uid, pod] of this.mirrorsToDelete) {
      if (!this.client) break;
      try {
        const cur = await this.client.getOrUndefined(`/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`);
        if (cur && cur.metadata.annotations?.["kubernetes.io/config.mirror"] === uid)
          await this.client.delete(`/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`, { gracePeriodSeconds: 0 });
        this.mirrorsToDelete.delete(uid);
      } catch {
        /* API not reachable yet: next round */
      }
    }
    const wanted = new Map<string, { pod: Obj; static: boolean }>();
    for (const p of this.staticPods()) wanted.set(p.metadata.uid, { pod: p, static: true });
    for (const [uid, p] of this.apiPods) if (!p.metadata.annotations?.["kubernetes.io/config.mirror"]) wanted.set(uid, { pod: p, static: false });

    // Pods no longer wanted, or marked for deletion: stop their containers.
    for (const [uid, run] of this.pods) {
      const w = wanted.get(uid);
      if (!w || w.pod.metadata.deletionTimestamp) {
        await this.killPod(uid, w?.pod.metadata.deletionGracePeriodSeconds ?? 2);
        this.pods.delete(uid);
        if (run.static) this.mirrorsToDelete.set(uid, run.pod);
        if (w?.pod.metadata.deletionTimestamp && this.client)
          await this.client.delete(`/api/v1/namespaces/${w.pod.metadata.namespace}/pods/${w.pod.metadata.name}`, { gracePeriodSeconds: 0, preconditions: { uid } }).catch(() => undefined);
      }
    }
    for (const [uid, w] of wanted) {
      if (w.pod.metadata.deletionTimestamp) {
        if (!this.pods.has(uid) && this.client) await this.client.delete(`/api/v1/namespaces/${w.pod.metadata.namespace}/pods/${w.pod.metadata.name}`, { gracePeriodSeconds: 0, preconditions: { uid } }).catch(() => undefined);
        continue;
      }
      let run = this.pods.get(uid);
      if (!run) {
        run = { pod: w.pod, uid, static: w.static, mounts: {}, backoff: new Map() };
        this.pods.set(uid, run);
      }
      run.pod = w.pod;
      await this.syncPod(run).catch((e: Error) => {
        run.waiting = { reason: "ContainerCreating", message: e.message };
      });
      await this.reportStatus(run).catch(() => undefined);
    }
    // Containers whose pod is gone entirely (e.g. adopted from a previous kubelet) — only once the
    // kubelet has listed its pods, or a restarted kubelet would kill what it is about to adopt.
    for (const c of this.containers) if (this.apiSynced && c.exitCode === undefined && !wanted.has(c.podUid)) {
      killGroup(c.pid, "SIGTERM");
      this.finish(c, 143);
    }
    this.save();
  }

  private async syncPod(run: PodRun): Promise<void> {
    const pod = run.pod;
    // The node's podCIDR (allocated by the controller-manager after registration) feeds pod IPs and flannel.
    if (this.client && this.registered && !this.node?.spec?.podCIDR) this.node = (await this.client.getOrUndefined(`/api/v1/nodes/${this.cfg.nodeName}`).catch(() => undefined)) ?? this.node;
    const hostNetwork = !!pod.spec?.hostNetwork;
    if (!hostNetwork && !this.networkReady()) {
      run.waiting = { reason: "ContainerCreating", message: "network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized" };
      return;
    }
    if (Object.keys(run.mounts).length === 0) run.mounts = await this.prepareVolumes(run);
    run.podIp ??= hostNetwork ? this.cfg.nodeIp : this.allocatePodIp(pod);
    run.waiting = undefined;
    // Init containers, in order, each to completion.
    for (const c of pod.spec?.initContainers ?? []) {
      const recs = this.containers.filter((r) => r.podUid === run.uid && r.name === c.name);
      const last = recs[recs.length - 1];
      if (last?.exitCode === 0) continue;
      if (last && last.exitCode === undefined) return;
      if (!this.backoffOver(run, c.name, last)) return;
      this.startContainer(run, c, true, recs.length);
      return;
    }
    for (const c of pod.spec?.containers ?? []) {
      const recs = this.containers.filter((r) => r.podUid === run.uid && r.name === c.name);
      const last = recs[recs.length - 1];
      if (last && last.exitCode === undefined) continue;
      const policy = pod.spec?.restartPolicy ?? "Always";
      if (last && (policy === "Never" || (policy === "OnFailure" && last.exitCode === 0))) continue;
      if (!this.backoffOver(run, c.name, last)) continue;
      this.startContainer(run, c, false, recs.length);
    }
  }

  /** Restart back-off: 10 s doubling to 5 min, reset after 10 min of running (the real kubelet's). */
  private backoffOver(run: PodRun, name: string, last: ContainerRecord | undefined): boolean {
    if (!last) return true;
    const b = run.backoff.get(name) ?? { until: 0, delay: 0 };
    const ranFor = Date.parse(last.finishedAt ?? nowTs()) - Date.parse(last.startedAt);
    if (b.until === 0) {
      b.delay = ranFor > 600_000 ? 10_000 : Math.min(b.delay ? b.delay * 2 : 10_000, Number(process.env.BOOTDECK_LAB_MAX_BACKOFF_MS ?? 300_000));
      b.until = Date.parse(last.finishedAt ?? nowTs()) + b.delay;
      run.backoff.set(name, b);
    }
    if (Date.now() < b.until) return false;
    b.until = 0;
    return true;
  }

  private allocatePodIp(pod: Obj): string {
    const cidr: string | undefined = this.node?.spec?.podCIDR;
    const base = (cidr ?? "10.244.0.0/24").split("/")[0]?.split(".").map(Number) ?? [10, 244, 0, 0];
    const used = new Set([...this.pods.values()].map((r) => r.podIp));
    for (let i = 2; i < 255; i++) {
      const ip = `${base[0]}.${base[1]}.${base[2]}.${i}`;
      if (!used.has(ip)) return ip;
    }
    return `${base[0]}.${base[1]}.${base[2]}.254${pod ? "" : ""}`;
  }

  private async prepareVolumes(run: PodRun): Promise<Mounts> {
    const pod = run.pod;
    const podDir = path.join(this.cfg.rootDir, "pods", run.uid, "volumes");
    const byName = new Map<string, string>();
    for (const v of pod.spec?.volumes ?? []) {
      const dir = path.join(podDir, v.name);
      if (v.hostPath) {
        const t = v.hostPath.type;
        // An untyped hostPath that does not exist becomes a directory, as the container runtime makes it.
        if (t === "DirectoryOrCreate" || ((t === undefined || t === "") && !fs.existsSync(v.hostPath.path))) fs.mkdirSync(v.hostPath.path, { recursive: true });
        if (t === "FileOrCreate" && !fs.existsSync(v.hostPath.path)) {
          fs.mkdirSync(path.dirname(v.hostPath.path), { recursive: true });
          fs.writeFileSync(v.hostPath.path, "");
        }
        if (t === "Directory" && !fs.existsSync(v.hostPath.path)) throw new Error(`MountVolume.SetUp failed for volume "${v.name}" : hostPath type check failed: ${v.hostPath.path} is not a directory`);
        byName.set(v.name, v.hostPath.path);
      } else if (v.secret || v.configMap) {
        if (run.static || !this.client) throw new Error(`MountVolume.SetUp failed for volume "${v.name}": static pods cannot use API objects`);
        const kind = v.secret ? "secrets" : "configmaps";
        const objName = v.secret?.secretName ?? v.configMap?.name;
        const obj = await this.client.getOrUndefined(`/api/v1/namespaces/${pod.metadata.namespace}/${kind}/${objName}`);
        if (!obj) throw new Error(`MountVolume.SetUp failed for volume "${v.name}" : ${kind.slice(0, -1)} "${objName}" not found`);
        fs.mkdirSync(dir, { recursive: true });
        const data: Record<string, Buffer> = {};
        for (const [k, val] of Object.entries((obj.data ?? {}) as Record<string, string>)) data[k] = v.secret ? Buffer.from(val, "base64") : Buffer.from(val);
        const items: Obj[] | undefined = (v.secret ?? v.configMap).items;
        for (const [k, val] of Object.entries(data)) {
          const item = items ? items.find((i) => i.key === k) : { key: k, path: k };
          if (!item) continue;
          const p = path.join(dir, item.path);
          fs.mkdirSync(path.dirname(p), { recursive: true });
          fs.writeFileSync(p, val, { mode: item.mode ?? (v.secret ?? v.configMap).defaultMode ?? 0o644 });
        }
        byName.set(v.name, dir);
      } else {
        fs.mkdirSync(dir, { recursive: true });
        byName.set(v.name, dir);
      }
    }
    const mounts: Mounts = {};
    for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])])
      for (const m of c.volumeMounts ?? []) {
        const host = byName.get(m.name);
        if (host) mounts[m.mountPath.replace(/\/$/, "")] = m.subPath ? path.join(host, m.subPath) : host;
      }
    // The service-account token (automounted), as the real kubelet projects it.
    if (!run.static && this.client && pod.spec?.automountServiceAccountToken !== false) {
      const dir = path.join(podDir, "kube-api-access");
      fs.mkdirSync(dir, { recursive: true });
      const ns = pod.metadata.namespace;
      const sa = pod.spec?.serviceAccountName ?? "default";
      let token: string | undefined;
      try {
        const tr = await this.client.create(`/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, { spec: { audiences: [], expirationSeconds: 3607, boundObjectRef: { kind: "Pod", apiVersion: "v1", name: pod.metadata.name, uid: pod.metadata.uid } } });
        token = tr.status?.token;
      } catch {
        const secrets = await this.client.get(`/api/v1/namespaces/${ns}/secrets`).catch(() => ({ items: [] }));
        const s = (secrets.items as Obj[]).find((x) => x.type === "kubernetes.io/service-account-token" && x.metadata.annotations?.["kubernetes.io/service-account.name"] === sa);
        if (s?.data?.token) token = Buffer.from(s.data.token, "base64").toString();
      }
      if (token) fs.writeFileSync(path.join(dir, "token"), token, { mode: 0o600 });
      else this.log(`W pod ${ns}/${pod.metadata.name}: no token for service account ${ns}/${sa}; the pod runs without /var/run/secrets/kubernetes.io/serviceaccount/token`);
      const rootCa = await this.client.getOrUndefined(`/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`);
      const ca = rootCa?.data?.["ca.crt"] ?? this.client.creds.ca?.toString();
      if (ca) fs.writeFileSync(path.join(dir, "ca.crt"), ca);
      fs.writeFileSync(path.join(dir, "namespace"), ns);
      mounts["/var/run/secrets/kubernetes.io/serviceaccount"] = dir;
    }
    return mounts;
  }

  private env(run: PodRun, c: Obj): Record<string, string> {
    const pod = run.pod;
    const env: Record<string, string> = {};
    const field = (p: string): string =>
      ({ "status.podIP": run.podIp ?? "", "status.hostIP": this.cfg.nodeIp, "spec.nodeName": this.cfg.nodeName, "metadata.name": pod.metadata.name, "metadata.namespace": pod.metadata.namespace, "metadata.uid": pod.metadata.uid, "spec.serviceAccountName": pod.spec?.serviceAccountName ?? "" })[p] ?? "";
    for (const e of c.env ?? []) env[e.name] = e.value !== undefined ? expand(String(e.value), env) : e.valueFrom?.fieldRef ? field(e.valueFrom.fieldRef.fieldPath) : "";
    return env;
  }

  private startContainer(run: PodRun, c: Obj, init: boolean, attempt: number): void {
    const pod = run.pod;
    const id = randomBytes(32).toString("hex");
    const logDir = path.join("/var/log/pods", `${pod.metadata.namespace}_${pod.metadata.name}_${run.uid}`, c.name);
    fs.mkdirSync(logDir, { recursive: true });
    const logPath = path.join(logDir, `${attempt}.log`);
    const env = this.env(run, c);
    const argv = [...(c.command ?? []), ...(c.args ?? [])].map((a: string) => expand(a, env));
    const kind = init && argv[0] === "cp" ? "placeholder" : imageKind(c.image ?? "", argv);
    const mounts = run.mounts;
    const tr = (a: string) => translate(a, mounts);
    let cmd: string[];
    const flagsOf = (a: string[]) => a.filter((x) => x.startsWith("-"));
    switch (kind) {
      case "etcd":
        cmd = ["/usr/bin/etcd", ...flagsOf(argv).map(tr)];
        break;
      case "kube-apiserver":
      case "kube-controller-manager":
      case "kube-scheduler":
        cmd = [...standInCommand(kind), ...flagsOf(argv).map(tr)];
        break;
      case "flannel":
        cmd = ["/bin/sh", "-c", FLANNEL];
        break;
      default:
        if (init && argv[0] === "cp") {
          // An init container copying files: copy what the volumes hold; a file from the image becomes a stub.
          const files = argv.slice(1).filter((a) => !a.startsWith("-"));
          const [src = "", dst = ""] = files.map(tr);
          const fromVolume = files[0] !== src;
          cmd = fromVolume ? ["/bin/cp", "-f", src, dst] : ["/bin/sh", "-c", `mkdir -p "$(dirname '${dst}')" && echo '# bootdeck lab stand-in for ${files[0]} from ${c.image}' > '${dst}' && echo copied`];
        } else cmd = ["/bin/sh", "-c", PLACEHOLDER, "placeholder", ...argv];
    }
    const sa = mounts["/var/run/secrets/kubernetes.io/serviceaccount"];
    const fd = fs.openSync(logPath, "a");
    const child = spawn(cmd[0] ?? "/bin/false", cmd.slice(1), {
      detached: true,
      stdio: ["ignore", fd, fd],
      cwd: "/",
      env: {
        PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin",
        HOME: "/root",
        ...env,
        KUBERNETES_SERVICE_HOST: process.env.KUBERNETES_SERVICE_HOST ?? "",
        BOOTDECK_LAB_MOUNTS: JSON.stringify(mounts),
        BOOTDECK_LAB_K8S_VERSION: /:(v\d+\.\d+\.\d+)/.exec(c.image ?? "")?.[1] ?? this.cfg.version,
        BOOTDECK_LAB_NODE_GRACE: process.env.BOOTDECK_LAB_NODE_GRACE ?? "",
        LAB_IMAGE: c.image ?? "",
        LAB_SA_TOKEN: sa ? path.join(sa, "token") : "/var/run/secrets/kubernetes.io/serviceaccount/token",
        LAB_CNI_DIR: this.cfg.cniConfDir,
        LAB_POD_CIDR: "10.244.0.0/16",
        LAB_NODE_CIDR: this.node?.spec?.podCIDR ?? "",
        LAB_NODE_NAME: this.cfg.nodeName,
      } as unknown as NodeJS.ProcessEnv,
    });
    fs.closeSync(fd);
    child.unref();
    const pid = child.pid ?? 0;
    const rec: ContainerRecord = { id, podUid: run.uid, podName: pod.metadata.name, podNamespace: pod.metadata.namespace, name: c.name, image: c.image ?? "", init, pid, startedAt: new Date().toISOString(), attempt, logPath };
    this.children.set(pid, {});
    child.on("exit", (code, signal) => {
      const entry = this.children.get(pid);
      if (entry) entry.code = code ?? (signal ? 128 + 9 : 1);
    });
    child.on("error", () => {
      const entry = this.children.get(pid);
      if (entry) entry.code = 127;
    });
    this.containers.push(rec);
    this.log(`started container ${c.name} of pod ${pod.metadata.namespace}/${pod.metadata.name} (${kind}, pid ${pid}, attempt ${attempt})`);
  }

  private finish(c: ContainerRecord, code: number): void {
    c.exitCode = code;
    c.finishedAt = new Date().toISOString();
  }

  /** Reaps exited containers (own children by their exit code, adopted ones by /proc). */
  private reap(): void {
    for (const c of this.containers) {
      if (c.exitCode !== undefined) continue;
      const own = this.children.get(c.pid);
      if (own?.code !== undefined) {
        this.finish(c, own.code);
        this.children.delete(c.pid);
      } else if (!own && !alive(c.pid)) this.finish(c, 1);
    }
  }

  private async killPod(uid: string, graceSeconds: number): Promise<void> {
    const live = this.containers.filter((c) => c.podUid === uid && c.exitCode === undefined);
    for (const c of live) killGroup(c.pid, "SIGTERM");
    const deadline = Date.now() + Math.min(graceSeconds, 10) * 1000;
    while (Date.now() < deadline && live.some((c) => alive(c.pid))) await sleep(100);
    for (const c of live) {
      killGroup(c.pid, "SIGKILL");
      if (c.exitCode === undefined) this.finish(c, 137);
    }
    this.containers = this.containers.filter((c) => c.podUid !== uid);
  }

  private save(): void {
    // Keep the last 5 attempts per container.
    const keep: ContainerRecord[] = [];
    const byKey = new Map<string, ContainerRecord[]>();
    for (const c of this.containers) byKey.set(`${c.podUid}/${c.name}`, [...(byKey.get(`${c.podUid}/${c.name}`) ?? []), c]);
    for (const list of byKey.values()) keep.push(...list.slice(-5));
    this.containers = keep;
    fs.writeFileSync(`${this.state}.tmp`, JSON.stringify(this.containers, null, 1));
    fs.renameSync(`${this.state}.tmp`, this.state);
  }

  // ---------------------------------------------------------------- status
  private podStatus(run: PodRun): Obj {
    this.reap();
    const pod = run.pod;
    const statusOf = (c: Obj, init: boolean) => {
      const recs = this.containers.filter((r) => r.podUid === run.uid && r.name === c.name);
      const last = recs[recs.length - 1];
      const prev = recs[recs.length - 2];
      const restartCount = last ? last.attempt : 0;
      const runningFor = last && last.exitCode === undefined ? Date.now() - Date.parse(last.startedAt) : 0;
      let state: Obj;
      if (!last) state = { waiting: { reason: run.waiting?.reason ?? (init ? "PodInitializing" : "ContainerCreating"), ...(run.waiting?.message ? { message: run.waiting.message } : {}) } };
      else if (last.exitCode === undefined) state = { running: { startedAt: last.startedAt.replace(/\.\d+Z$/, "Z") } };
      else if (init && last.exitCode === 0) state = { terminated: { exitCode: 0, reason: "Completed", startedAt: last.startedAt.replace(/\.\d+Z$/, "Z"), finishedAt: last.finishedAt?.replace(/\.\d+Z$/, "Z"), containerID: `bootdeck-lab://${last.id}` } };
      else if ((pod.spec?.restartPolicy ?? "Always") === "Always" || last.exitCode !== 0)
        state = { waiting: { reason: "CrashLoopBackOff", message: `back-off restarting failed container ${c.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${run.uid})` } };
      else state = { terminated: { exitCode: last.exitCode, reason: last.exitCode === 0 ? "Completed" : "Error" } };
      const term = last && last.exitCode !== undefined ? last : prev;
      return {
        name: c.name,
        image: c.image,
        imageID: `${c.image}@sha256:${createHash("sha256").update(c.image ?? "").digest("hex")}`,
        ...(last ? { containerID: `bootdeck-lab://${last.id}` } : {}),
        ready: !init && !!last && last.exitCode === undefined && runningFor > 2000,
        started: !!last && last.exitCode === undefined,
        restartCount,
        state,
        lastState: term && term.exitCode !== undefined && term !== last ? { terminated: { exitCode: term.exitCode, reason: term.exitCode === 0 ? "Completed" : "Error", startedAt: term.startedAt.replace(/\.\d+Z$/, "Z"), finishedAt: term.finishedAt?.replace(/\.\d+Z$/, "Z") } } : state.waiting && term ? { terminated: { exitCode: term.exitCode, reason: "Error", startedAt: term.startedAt.replace(/\.\d+Z$/, "Z"), finishedAt: term.finishedAt?.replace(/\.\d+Z$/, "Z") } } : {},
      };
    };
    const initStatuses = (pod.spec?.initContainers ?? []).map((c: Obj) => statusOf(c, true));
    const statuses = (pod.spec?.containers ?? []).map((c: Obj) => statusOf(c, false));
    const initialized = initStatuses.every((s: Obj) => s.state.terminated?.exitCode === 0);
    const anyStarted = this.containers.some((r) => r.podUid === run.uid && !r.init);
    const allReady = statuses.length > 0 && statuses.every((s: Obj) => s.ready);
    const policy = pod.spec?.restartPolicy ?? "Always";
    let phase = anyStarted ? "Running" : "Pending";
    if (policy !== "Always" && statuses.every((s: Obj) => s.state.terminated)) phase = statuses.every((s: Obj) => s.state.terminated.exitCode === 0) ? "Succeeded" : "Failed";
    const t = nowTs();
    const cond = (type: string, ok: boolean) => ({ type, status: ok ? "True" : "False", lastProbeTime: null, lastTransitionTime: this.since(`${run.uid}/${type}`, ok ? "True" : "False") });
    return {
      phase,
      conditions: [cond("PodReadyToStartContainers", !run.waiting), cond("Initialized", initialized), cond("Ready", allReady), cond("ContainersReady", allReady), { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: t }],
      hostIP: this.cfg.nodeIp,
      hostIPs: [{ ip: this.cfg.nodeIp }],
      ...(run.podIp ? { podIP: run.podIp, podIPs: [{ ip: run.podIp }] } : {}),
      startTime: this.since(`${run.uid}/start`, "x"),
      ...(initStatuses.length ? { initContainerStatuses: initStatuses } : {}),
      containerStatuses: statuses,
      qosClass: "BestEffort",
    };
  }

  private lastReported = new Map<string, string>();

  private async reportStatus(run: PodRun): Promise<void> {
    if (!this.client || !this.registered) return;
    const status = this.podStatus(run);
    const pod = run.pod;
    const ns = pod.metadata.namespace;
    if (run.static && !run.mirrorCreated) {
      const existing = await this.client.getOrUndefined(`/api/v1/namespaces/${ns}/pods/${pod.metadata.name}`);
      if (existing && existing.metadata.annotations?.["kubernetes.io/config.mirror"] !== run.uid)
        await this.client.delete(`/api/v1/namespaces/${ns}/pods/${pod.metadata.name}`, { gracePeriodSeconds: 0 }).catch(() => undefined);
      if (!existing || existing.metadata.annotations?.["kubernetes.io/config.mirror"] !== run.uid) {
        const node = this.node;
        const mirror = { ...pod, metadata: { ...pod.metadata, uid: undefined, ownerReferences: node ? [{ apiVersion: "v1", kind: "Node", name: node.metadata.name, uid: node.metadata.uid, controller: true }] : undefined }, status: undefined };
        await this.client.create(`/api/v1/namespaces/${ns}/pods`, mirror);
      }
      run.mirrorCreated = true;
    }
    const sig = JSON.stringify({ ...status, conditions: status.conditions.map((c: Obj) => [c.type, c.status]), startTime: undefined });
    const key = run.uid;
    if (this.lastReported.get(key) === sig && Math.random() > 0.05) return;
    try {
      await this.client.patch(`/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/status`, { status }, "merge");
      this.lastReported.set(key, sig);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404 && run.static) run.mirrorCreated = false;
    }
  }

  // ---------------------------------------------------------------- kubelet API (10250) and healthz (10248)
  private async serve(): Promise<void> {
    const health = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("ok");
    });
    await listen(health, this.cfg.healthzPort, "127.0.0.1").catch((e: Error) => this.log(`W healthz server: ${e.message}`));
    this.servers.push(health);
    const pki = path.join(this.cfg.rootDir, "pki");
    fs.mkdirSync(pki, { recursive: true });
    const crt = path.join(pki, "kubelet.crt");
    const key = path.join(pki, "kubelet.key");
    if (!fs.existsSync(crt))
      execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", crt, "-days", "365", "-subj", `/CN=${this.cfg.nodeName}@${Math.floor(Date.now() / 1000)}`, "-addext", `subjectAltName=DNS:${this.cfg.nodeName},IP:${this.cfg.nodeIp}`], { stdio: "ignore" });
    const ca = this.cfg.clientCaFile && fs.existsSync(this.cfg.clientCaFile) ? fs.readFileSync(this.cfg.clientCaFile) : undefined;
    const api = https.createServer({ cert: fs.readFileSync(crt), key: fs.readFileSync(key), ca, requestCert: true, rejectUnauthorized: false }, (req, res) => this.serveApi(req, res, ca));
    await listen(api, this.cfg.port, "0.0.0.0").catch((e: Error) => this.log(`W kubelet server: ${e.message}`));
    this.servers.push(api);
  }

  private serveApi(req: http.IncomingMessage, res: http.ServerResponse, ca: Buffer | undefined): void {
    const sock = req.socket as import("node:tls").TLSSocket;
    const cert = sock.getPeerCertificate?.();
    const ok = ca ? sock.authorized || (cert?.raw ? certSignedBy(`-----BEGIN CERTIFICATE-----\n${cert.raw.toString("base64")}\n-----END CERTIFICATE-----\n`, ca.toString()) : false) : true;
    if (!ok) {
      res.writeHead(401);
      res.end("Unauthorized");
      return;
    }
    const url = new URL(req.url ?? "/", "https://kubelet");
    const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (url.pathname === "/healthz") {
      res.end("ok");
      return;
    }
    if (url.pathname === "/pods") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ kind: "PodList", apiVersion: "v1", items: [...this.pods.values()].map((r) => ({ ...r.pod, status: this.podStatus(r) })) }));
      return;
    }
    if (!m) {
      res.writeHead(404);
      res.end("404 page not found");
      return;
    }
    const [, ns, pod, container] = m;
    const recs = this.containers.filter((c) => c.podNamespace === ns && c.podName === pod && c.name === container);
    const rec = url.searchParams.get("previous") === "true" ? recs[recs.length - 2] : recs[recs.length - 1];
    if (!rec) {
      res.writeHead(400);
      res.end(`container "${container}" in pod "${pod}" is waiting to start: ContainerCreating`);
      return;
    }
    res.writeHead(200, { "content-type": "text/plain" });
    const text = fs.existsSync(rec.logPath) ? fs.readFileSync(rec.logPath, "utf8") : "";
    const tail = Number(url.searchParams.get("tailLines") ?? -1);
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    res.write(`${(tail >= 0 ? lines.slice(-tail) : lines).join("\n")}${lines.length ? "\n" : ""}`);
    if (url.searchParams.get("follow") !== "true") {
      res.end();
      return;
    }
    let size = fs.statSync(rec.logPath).size;
    const t = setInterval(() => {
      try {
        const st = fs.statSync(rec.logPath);
        if (st.size > size) {
          const fd = fs.openSync(rec.logPath, "r");
          const buf = Buffer.alloc(st.size - size);
          fs.readSync(fd, buf, 0, buf.length, size);
          fs.closeSync(fd);
          size = st.size;
          res.write(buf);
        }
      } catch {
        /* rotated */
      }
      if (rec.exitCode !== undefined) {
        clearInterval(t);
        res.end();
      }
    }, 500);
    res.on("close", () => clearInterval(t));
  }
}

const bootId = randomBytes(16).toString("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function alive(pid: number): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}
function killGroup(pid: number, sig: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* gone */
    }
  }
}
/** Kubernetes' $(VAR) expansion in commands and env values. */
export function expand(s: string, env: Record<string, string>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, v: string | undefined) => (m === "$$" ? "$" : v !== undefined && v in env ? (env[v] ?? "") : m));
}
function listen(s: http.Server | https.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    s.once("error", reject);
    s.listen(port, host, () => resolve());
  });
}

export async function runKubelet(argv: readonly string[]): Promise<Kubelet> {
  const log: Log = (l) => process.stderr.write(`${l.startsWith("E ") ? "E" : l.startsWith("W ") ? "W" : "I"}${new Date().toISOString()} kubelet] ${l.replace(/^[EW] /, "")}\n`);
  try {
    const k = new Kubelet(kubeletConfigFrom(argv), log);
    await k.start();
    const bye = () => {
      k.stop();
      process.exit(0);
    };
    process.on("SIGTERM", bye);
    process.on("SIGINT", bye);
    return k;
  } catch (e) {
    if (e instanceof KubeletFatal) {
      process.stderr.write(`E${new Date().toISOString()} run.go:72] "command failed" err="${e.message}"\n`);
      process.exit(1);
    }
    throw e;
  }
}
