// npm run bench:vs-kubeadm -- [--masters 3] [--workers 5] [--version v1.36.3] [--only kubeadm,self-hosted,static]
//                              [--upgrade-to v1.37.2|none] [--upgrade kubeadm,self-hosted] [--keep]
// Bootdeck side by side with kubeadm, in one run, on identical lab hosts (root). Each contender gets a
// lab built afresh from the same image and the same sizes, and the same install: Bootdeck's own phases
// up to the container runtime and the API address (facts, preflight, packages, kubelet and kubectl from
// the mirror, containerd, runc, crictl, the CNI plugins, keepalived holding the VIP), run by its engine.
// From "runtime installed" to "every node Ready and CoreDNS answering" it measures the wall time, the
// machine's busy CPU-seconds (/proc/stat, every process), the CPU-seconds by command (processes alive
// at the end) and the peak of the machine's memory in use. kubeadm (built for the same version from the
// Go module proxy, its images from the lab registry) bootstraps with stacked etcd: `kubeadm init`,
// flannel from the same rendered manifests, `kubeadm join --control-plane` one master at a time, then the
// workers at once, all through the VIP.
// Then, for the contenders in --upgrade, a minor upgrade of that cluster to --upgrade-to (by default the
// next profile's version): kubeadm's as its documentation goes (the new kubeadm on every host; `kubeadm
// upgrade apply` on the first master, `kubeadm upgrade node` on the others; each node drained, its
// kubelet replaced and restarted, uncordoned; the workers one at a time, as Bootdeck's default batch of
// 10 % of 5), against Bootdeck's upgrade run (planned before the clock starts, as kubeadm's `upgrade
// plan` would be). Each is measured from its start to every node Ready at the new version, with the
// same CPU and memory figures and an API probe every 100 ms through the VIP (as bench:upgrade's).
// docs/benchmarks.md.
import { execFileSync } from "node:child_process";
import { createHash, randomBytes, X509Certificate } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { writeAdminKubeconfig } from "../lab/admin-kubeconfig";
import { labClusterDefinition, labClusterSecrets } from "../lab/cluster-yaml";
import { labDir } from "../lab/config";
import { labDown, labUp } from "../lab/lab";
import { machineMemoryUsed } from "../lab/memory";
import type { LabState } from "../lab/state";
import { ensureComponent } from "../lab/upstream/build";
import { kubeadmComponent, kubernetesComponent } from "../lab/upstream/components";
import { provisionsVip } from "../lib/assets/endpoint";
import { assetOfSet } from "../lib/assets/store";
import { deriveCluster } from "../lib/cluster/derive";
import { validateClusterDefinition, type ClusterDefinition } from "../lib/cluster/definition";
import { defaultKubernetesVersion, findVersionProfile, versionProfiles } from "../lib/cluster/versions";
import { createCluster } from "../lib/clusters/repository";
import { disconnectDb, getDb } from "../lib/db/client";
import { adminCredentialsFrom } from "../lib/engine/cluster-api";
import { listRunEvents } from "../lib/engine/events";
import { planRun } from "../lib/engine/plan-run";
import { executeRun } from "../lib/engine/runner";
import { loadAssetIndex } from "../lib/engine/asset-index";
import { buildBootstrapPlan } from "../lib/engine/plans";
import { acceptRunWarnings, createRun, startRun } from "../lib/engine/runs";
import { newId } from "../lib/ids";
import { probeFromHost } from "../test/lab-api";
import { createTempDb } from "../test/temp-db";
import { ADMIN_KUBECTL, labKube, type LabKube } from "../test/lab-kube";
import { waitFor } from "../test/wait";
import { labVip } from "../lab/cluster-yaml";
import { availability, type Availability } from "./availability";
import { cpuByProcess, cpuTicks, TICKS_PER_S, topCpu, type ProcessCpu } from "./cpu";

const CONTENDERS = ["kubeadm", "self-hosted", "static"] as const;
type Contender = (typeof CONTENDERS)[number];
const LAB = "kubeadm";
/** The last of the install phases both contenders share: after it the runtime is installed and, where Bootdeck provisions it, keepalived holds the API address. */
const installedAfter = (def: ClusterDefinition) => (provisionsVip(def) ? "endpoint" : "runtime");

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

type Sample = { at: number; busy: number; total: number; memory: number; processes: Map<number, ProcessCpu> };
type Result = { contender: Contender; wallS: number; cpuS: number; peakMemoryBytes: number; byCommand: string };

/** The machine every second: CPU ticks, memory in use (less this process) and every process's CPU time. */
function startSampling(): { samples: Sample[]; stop(): void } {
  const samples: Sample[] = [];
  const take = () => samples.push({ at: Date.now(), ...cpuTicks(), memory: machineMemoryUsed() - process.memoryUsage().rss, processes: cpuByProcess() });
  take();
  const timer = setInterval(take, 1_000);
  let stopped = false;
  // Once: the last sample is taken when the measured span ends, not again on the way out.
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    take();
  };
  return { samples, stop };
}

const nearest = (samples: Sample[], at: number): Sample => samples.reduce((best, x) => (Math.abs(x.at - at) < Math.abs(best.at - at) ? x : best));

function measure(contender: Contender, samples: Sample[], from: number, to: number, memoryBefore: number): Result {
  const a = nearest(samples, from);
  const b = nearest(samples, to);
  const within = samples.filter((s) => s.at >= a.at && s.at <= b.at);
  return {
    contender,
    wallS: (to - from) / 1000,
    cpuS: (b.busy - a.busy) / TICKS_PER_S,
    peakMemoryBytes: Math.max(...within.map((s) => s.memory)) - memoryBefore,
    byCommand: topCpu(a.processes, b.processes, 12),
  };
}

/**
 * Every one of `count` nodes Ready (from this machine, with the admin kubeconfig), its kubelet at
 * `version` when one is given, and CoreDNS answering inside master-1's network namespace.
 */
async function readyAndAnswering(lab: LabState, kubectl: string, kubeconfig: string, count: number, dnsIp: string, domain: string, version?: string): Promise<void> {
  const netns = lab.hosts.find((h) => h.role === "master")!.netns;
  const resolve = `const r=new (require("node:dns").promises.Resolver)({timeout:2000,tries:1});r.setServers([${JSON.stringify(dnsIp)}]);r.resolve4(${JSON.stringify(`kubernetes.default.svc.${domain}`)}).then(a=>console.log(a.join(",")),e=>{console.error(e.code);process.exit(1)})`;
  await waitFor(
    `${count} nodes Ready${version ? ` at ${version}` : ""} and CoreDNS answering`,
    () => {
      type Node = { status?: { conditions?: { type: string; status: string }[]; nodeInfo?: { kubeletVersion?: string } } };
      const nodes = JSON.parse(execFileSync(kubectl, ["--kubeconfig", kubeconfig, "--request-timeout=10s", "get", "nodes", "-o", "json"], { encoding: "utf8", maxBuffer: 64 << 20 })) as { items: Node[] };
      const ready = nodes.items.filter((n) => n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") && (!version || n.status?.nodeInfo?.kubeletVersion === version)).length;
      if (ready < count) throw new Error(`${ready} of ${count} nodes Ready${version ? ` at ${version}` : ""}`);
      return execFileSync("ip", ["netns", "exec", netns, process.execPath, "-e", resolve], { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "pipe", "pipe"] }).trim();
    },
    15 * 60_000,
    1_000,
  );
}

const KUBEADM_KUBELET_UNIT = `[Unit]
Description=kubelet (kubeadm)
Wants=network-online.target
After=network-online.target

[Service]
ExecStart=/usr/local/bin/kubelet
Restart=always
RestartSec=10

[Install]
WantedBy=multi-user.target
`;
// What kubeadm's packages install beside the unit: kubeadm writes the two files it names.
const KUBEADM_KUBELET_DROP_IN = `[Service]
Environment="KUBELET_KUBECONFIG_ARGS=--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf --kubeconfig=/etc/kubernetes/kubelet.conf"
Environment="KUBELET_CONFIG_ARGS=--config=/var/lib/kubelet/config.yaml"
EnvironmentFile=-/var/lib/kubelet/kubeadm-flags.env
ExecStart=
ExecStart=/usr/local/bin/kubelet $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS
`;

/** A binary replaced under a running process: written beside it, then renamed over it. */
const replaceBinary = (dest: string) => `install -m 0755 /dev/stdin ${dest}.new && mv -f ${dest}.new ${dest}`;

/** What installing kubeadm's package does: the binary and the kubelet's unit for kubeadm, enabled (before "runtime installed", as a package would be). */
async function installKubeadm(lab: LabState, kube: LabKube, binary: Buffer): Promise<void> {
  await Promise.all(
    lab.hosts.map(async (h) => {
      await kube.sshAsync(h.name, replaceBinary("/usr/local/bin/kubeadm"), binary);
      await kube.sshAsync(h.name, "mkdir -p /etc/systemd/system/kubelet.service.d && cat > /etc/systemd/system/kubelet.service", KUBEADM_KUBELET_UNIT);
      await kube.sshAsync(h.name, "cat > /etc/systemd/system/kubelet.service.d/10-kubeadm.conf && systemctl daemon-reload && systemctl enable kubelet", KUBEADM_KUBELET_DROP_IN);
    }),
  );
}

const cgroupV1 = () => !execFileSync("stat", ["-fc", "%T", "/sys/fs/cgroup"], { encoding: "utf8" }).includes("cgroup2");
/** The lab's one difference from a real host, as Bootdeck's definition allows it too (allowCgroupV1): kubeadm's system check refuses cgroup v1. */
const preflightIgnores = () => (cgroupV1() ? ["--ignore-preflight-errors=SystemVerification"] : []);

/** Logs each part of kubeadm's work with the seconds since the last. */
function stopwatch(log: (l: string) => void): (what: string) => void {
  let t = Date.now();
  return (what) => {
    log(`  kubeadm: ${what} ${((Date.now() - t) / 1000).toFixed(1)} s`);
    t = Date.now();
  };
}

const yamlDocs = (docs: object[]) => docs.map((d) => stringify(d, { lineWidth: 0 })).join("---\n");

/** kubeadm init on the first master, flannel, the other masters one at a time, then the workers at once. */
async function kubeadmBootstrap(lab: LabState, kube: LabKube, def: ClusterDefinition, flannel: string, log: (l: string) => void): Promise<void> {
  const masters = lab.hosts.filter((h) => h.role === "master");
  const workers = lab.hosts.filter((h) => h.role === "worker");
  const first = masters[0]!;
  // The address Bootdeck's clusters use too: the VIP keepalived holds (installed with the runtime).
  const endpoint = `${def.spec.apiEndpoint.host}:${def.spec.apiEndpoint.port}`;
  const alnum = (n: number) => [...randomBytes(n)].map((b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
  const token = `${alnum(6)}.${alnum(16)}`;
  const certificateKey = randomBytes(32).toString("hex");
  const registry = def.spec.images.registry!;
  const ignore = preflightIgnores();
  const node = (h: LabState["hosts"][number]) => ({ name: h.name, criSocket: "unix:///run/containerd/containerd.sock", kubeletExtraArgs: [{ name: "node-ip", value: h.address }] });
  const apiVersion = "kubeadm.k8s.io/v1beta4";
  const init = yamlDocs([
    { apiVersion, kind: "InitConfiguration", bootstrapTokens: [{ token, ttl: "2h0m0s" }], certificateKey, localAPIEndpoint: { advertiseAddress: first.address, bindPort: 6443 }, nodeRegistration: node(first) },
    {
      apiVersion,
      kind: "ClusterConfiguration",
      kubernetesVersion: def.spec.kubernetes.version,
      controlPlaneEndpoint: endpoint,
      imageRepository: registry,
      // kubeadm drops CoreDNS's second path element under a repository of one's own.
      dns: { imageRepository: `${registry}/coredns` },
      networking: { podSubnet: def.spec.network.podCidr, serviceSubnet: def.spec.network.serviceCidr, dnsDomain: def.spec.network.clusterDomain },
    },
    { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration", cgroupDriver: def.spec.runtime.cgroupDriver, ...(cgroupV1() ? { failCgroupV1: false } : {}) },
    // As Bootdeck's kube-proxy: nf_conntrack_max is the host's.
    { apiVersion: "kubeproxy.config.k8s.io/v1alpha1", kind: "KubeProxyConfiguration", mode: "iptables", conntrack: { maxPerCore: 0 } },
  ]);
  const step = stopwatch(log);
  await kube.sshAsync(first.name, `cat > /root/kubeadm-init.yaml && kubeadm init --config /root/kubeadm-init.yaml --upload-certs ${ignore.join(" ")}`, init);
  step(`init on ${first.name}`);
  await kube.sshAsync(first.name, `${ADMIN_KUBECTL} apply -f -`, flannel);
  step("flannel applied");
  const ca = new X509Certificate(await kube.sshAsync(first.name, "cat /etc/kubernetes/pki/ca.crt"));
  const caHash = `sha256:${createHash("sha256").update(ca.publicKey.export({ type: "spki", format: "der" })).digest("hex")}`;
  const join = (h: LabState["hosts"][number], controlPlane: boolean) =>
    yamlDocs([
      {
        apiVersion,
        kind: "JoinConfiguration",
        discovery: { bootstrapToken: { apiServerEndpoint: endpoint, token, caCertHashes: [caHash] } },
        nodeRegistration: node(h),
        ...(controlPlane ? { controlPlane: { certificateKey, localAPIEndpoint: { advertiseAddress: h.address, bindPort: 6443 } } } : {}),
      },
    ]);
  const joinOn = (h: LabState["hosts"][number], controlPlane: boolean) =>
    kube.sshAsync(h.name, `cat > /root/kubeadm-join.yaml && kubeadm join --config /root/kubeadm-join.yaml ${ignore.join(" ")}`, join(h, controlPlane));
  for (const m of masters.slice(1)) {
    await joinOn(m, true);
    step(`control plane joined on ${m.name}`);
  }
  await Promise.all(workers.map((w) => joinOn(w, false)));
  step(`${workers.length} workers joined`);
}

/**
 * kubeadm's minor upgrade as its documentation lays it out: the new kubeadm on every host (what the
 * package manager would do), `kubeadm upgrade apply` on the first master and `kubeadm upgrade node` on
 * the others, then each node drained, its kubelet replaced and restarted, and uncordoned; workers one
 * at a time, `kubeadm upgrade node` after the drain.
 */
async function kubeadmUpgrade(lab: LabState, kube: LabKube, to: string, binaries: { kubeadm: Buffer; kubelet: Buffer }, log: (l: string) => void): Promise<void> {
  const masters = lab.hosts.filter((h) => h.role === "master");
  const workers = lab.hosts.filter((h) => h.role === "worker");
  const first = masters[0]!;
  const ignore = preflightIgnores().join(" ");
  const step = stopwatch(log);
  await Promise.all(lab.hosts.map((h) => kube.sshAsync(h.name, replaceBinary("/usr/local/bin/kubeadm"), binaries.kubeadm)));
  step(`kubeadm ${to} on ${lab.hosts.length} hosts`);
  const kubectl = (args: string) => kube.sshAsync(first.name, `${ADMIN_KUBECTL} ${args}`);
  const roll = async (h: LabState["hosts"][number], upgradeNode: string | null) => {
    await kubectl(`drain ${h.name} --ignore-daemonsets --delete-emptydir-data --timeout=10m`);
    if (upgradeNode) await kube.sshAsync(h.name, upgradeNode);
    await kube.sshAsync(h.name, `${replaceBinary("/usr/local/bin/kubelet")} && systemctl restart kubelet`, binaries.kubelet);
    await kubectl(`uncordon ${h.name}`);
  };
  for (const [i, m] of masters.entries()) {
    await kube.sshAsync(m.name, i === 0 ? `kubeadm upgrade apply ${to} --yes ${ignore}` : `kubeadm upgrade node ${ignore}`);
    step(`${i === 0 ? "upgrade apply" : "upgrade node"} on ${m.name}`);
    await roll(m, null);
    step(`${m.name} drained, kubelet ${to}, uncordoned`);
  }
  for (const w of workers) {
    await roll(w, `kubeadm upgrade node ${ignore}`);
    step(`${w.name} drained, upgrade node, kubelet ${to}, uncordoned`);
  }
}

type UpgradeResult = Result & { availability: Availability };

/** The phases of an engine run after `from`, each from the end of the one before it. */
async function phaseTimes(runId: string, from: number): Promise<string> {
  const events = await listRunEvents({ runId, limit: 1_000_000 });
  let prev = from;
  return events
    .filter((e) => e.type === "phase.finished" && Date.parse(e.at) > from)
    .map((e) => {
      const at = Date.parse(e.at);
      const part = `${String(e.data.phase)} ${((at - prev) / 1000).toFixed(1)} s`;
      prev = at;
      return part;
    })
    .join(", ");
}

type ContendOpts = { masters: number; workers: number; version: string; upgradeTo: string | null; upgrade: boolean };
type Binaries = { kubeadm: Buffer; kubectl: string; upgrade: { kubeadm: Buffer; kubelet: Buffer } | null };

async function contend(contender: Contender, opts: ContendOpts, bin: Binaries): Promise<{ bootstrap: Result; upgrade?: UpgradeResult }> {
  const log = (l: string) => console.log(l);
  console.log(`\n== ${contender}: lab of ${opts.masters} masters + ${opts.workers} workers…`);
  labDown(LAB, () => undefined);
  const memoryBefore = machineMemoryUsed() - process.memoryUsage().rss;
  const versions = opts.upgradeTo && opts.upgrade ? [opts.version, opts.upgradeTo] : [opts.version];
  const lab = await labUp({ name: LAB, masters: opts.masters, workers: opts.workers, kubernetesVersions: versions, log: (l) => console.log(`  [lab] ${l}`) });
  const kube = labKube(lab);
  const input = labClusterDefinition(lab, `vs-${contender}`, opts.version).definition;
  if (contender === "static") input.spec.kubernetes.controlPlane = "static";
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const def = v.definition;
  const { id: clusterId } = await createCluster({ definition: def, secrets: labClusterSecrets(lab) });
  const planned = await planRun({ clusterId, body: { type: "bootstrap", acceptWarnings: true }, by: "bench" });
  const kubeconfig = path.join(labDir(LAB), `${contender}.kubeconfig`);
  const derived = deriveCluster(def);
  const installed = installedAfter(def);
  const ready = (version?: string) => readyAndAnswering(lab, bin.kubectl, kubeconfig, lab.hosts.length, derived.dnsServiceIp, def.spec.network.clusterDomain, version);
  let sampling = startSampling();
  try {
    let from: number;
    if (contender === "kubeadm") {
      // The same install as Bootdeck's bootstrap: its plan's phases up to the runtime and the API
      // address (made for a run of their own: every locked script names its run), run by the engine.
      const assetSetId = (await getDb().run.findUniqueOrThrow({ where: { id: planned }, select: { assetSetId: true } })).assetSetId!;
      const installRun = newId("run");
      const plan = buildBootstrapPlan(def, installRun, await loadAssetIndex(assetSetId));
      const upTo = plan.phases.findIndex((p) => p.id === installed);
      await createRun({ id: installRun, clusterId, type: "bootstrap", plan: { ...plan, phases: plan.phases.slice(0, upTo + 1) }, assetSetId });
      // As the bootstrap's plan above: the lab's preflight warnings (cgroup v1, say) are accepted.
      await acceptRunWarnings({ runId: installRun, by: "bench" });
      await startRun({ runId: installRun });
      const status = await executeRun(installRun, { workerId: "bench" });
      if (status !== "succeeded") throw new Error(`the install phases ended ${status} (run ${installRun})`);
      await installKubeadm(lab, kube, bin.kubeadm);
      const flannel = [];
      for (const p of ["manifests/00-namespace-kube-flannel.yaml", "manifests/flannel-rbac.yaml", "manifests/flannel-config.yaml", "manifests/flannel.yaml"]) {
        const text = await assetOfSet({ setId: assetSetId, path: p });
        if (text === null) throw new Error(`the asset set lacks ${p}`);
        flannel.push(text);
      }
      from = Date.now();
      await kubeadmBootstrap(lab, kube, def, flannel.join("\n---\n"), log);
      fs.writeFileSync(kubeconfig, await kube.sshAsync(lab.hosts[0]!.name, "cat /etc/kubernetes/admin.conf"), { mode: 0o600 });
    } else {
      await startRun({ runId: planned });
      const status = await executeRun(planned, { workerId: "bench" });
      if (status !== "succeeded") throw new Error(`the bootstrap ended ${status} (run ${planned})`);
      const events = await listRunEvents({ runId: planned, limit: 1_000_000 });
      const end = events.find((e) => e.type === "phase.finished" && e.data.phase === installed);
      if (!end) throw new Error(`run ${planned} has no end of its ${installed} phase`);
      from = Date.parse(end.at);
      log(`  phases after the install: ${await phaseTimes(planned, from)}`);
      await writeAdminKubeconfig(clusterId, kubeconfig);
    }
    await ready();
    sampling.stop();
    const bootstrap = measure(contender, sampling.samples, from, Date.now(), memoryBefore);
    if (!opts.upgradeTo || !opts.upgrade) return { bootstrap };

    console.log(`  ${contender}: upgrade to ${opts.upgradeTo}…`);
    const upgradeMemoryBefore = machineMemoryUsed() - process.memoryUsage().rss;
    // Bootdeck's run is planned (the assets rendered for the new version) before the clock starts.
    const runId = contender === "kubeadm" ? null : await planRun({ clusterId, body: { type: "upgrade", version: opts.upgradeTo, batches: { workers: "10%" } }, by: "bench" });
    if (runId) await acceptRunWarnings({ runId, by: "bench" });
    const vip = labVip(lab);
    const probeHost = lab.hosts.filter((h) => h.role === "worker").at(-1)!.name;
    const probe = probeFromHost(lab, probeHost, `https://${vip}:${def.spec.apiEndpoint.port}/api/v1/namespaces/default`, 100, { client: adminCredentialsFrom(fs.readFileSync(kubeconfig, "utf8")), maxTimeS: 5, fixedCadence: true });
    sampling = startSampling();
    const start = Date.now();
    let end = start;
    let probes;
    try {
      if (runId) {
        await startRun({ runId });
        const status = await executeRun(runId, { workerId: "bench" });
        if (status !== "succeeded") throw new Error(`the upgrade ended ${status} (run ${runId})`);
        log(`  upgrade phases: ${await phaseTimes(runId, start)}`);
      } else await kubeadmUpgrade(lab, kube, opts.upgradeTo, bin.upgrade!, log);
      await ready(opts.upgradeTo);
      end = Date.now();
    } finally {
      sampling.stop();
      probes = await probe.stop();
    }
    return { bootstrap, upgrade: { ...measure(contender, sampling.samples, start, end, upgradeMemoryBefore), availability: availability(probes, start) } };
  } finally {
    sampling.stop();
    if (!process.argv.includes("--keep")) labDown(LAB, () => undefined);
  }
}

/** The version of the profile after `version`'s, or null when it is the newest. */
function nextVersion(version: string): string | null {
  const i = versionProfiles.findIndex((p) => p === findVersionProfile(version));
  return i >= 0 ? (versionProfiles[i + 1]?.defaultVersion ?? null) : null;
}

function table<R extends Result>(title: string, rows: R[], extra: (r: R) => string = () => "", extraHeader = ""): void {
  const base = rows.find((r) => r.contender === "kubeadm");
  console.log(`\n${title}`);
  console.log(`contender     wall      CPU-seconds  peak memory   vs kubeadm (wall, CPU)  ${extraHeader}`);
  for (const r of rows) {
    const ratio = base && r !== base ? `${(r.wallS / base.wallS).toFixed(2)} ×, ${(r.cpuS / base.cpuS).toFixed(2)} ×` : "";
    console.log(`${r.contender.padEnd(13)} ${`${r.wallS.toFixed(1)} s`.padEnd(9)} ${r.cpuS.toFixed(0).padEnd(12)} ${`${Math.round(r.peakMemoryBytes / 1048576)} MiB`.padEnd(13)} ${ratio.padEnd(23)} ${extra(r)}`);
  }
}

async function main(): Promise<void> {
  const version = arg("version", defaultKubernetesVersion);
  const upgradeArg = arg("upgrade-to", nextVersion(version) ?? "none");
  const upgradeTo = upgradeArg === "none" ? null : upgradeArg;
  const only = arg("only", CONTENDERS.join(",")).split(",") as Contender[];
  const upgrading = arg("upgrade", "kubeadm,self-hosted").split(",") as Contender[];
  const unknown = [...only, ...upgrading].filter((c) => !CONTENDERS.includes(c));
  if (unknown.length) throw new Error(`--only and --upgrade take ${CONTENDERS.join(", ")}; got ${unknown.join(", ")}`);
  if (upgradeTo && !findVersionProfile(upgradeTo)) throw new Error(`--upgrade-to ${upgradeTo}: no profile for that version`);
  const opts = { masters: Number(arg("masters", "3")), workers: Number(arg("workers", "5")), version, upgradeTo };
  const log = (l: string) => console.log(l);
  const kubeadm = await ensureComponent(kubeadmComponent(version), log);
  const k8s = await ensureComponent(kubernetesComponent(version), log);
  let upgradeBinaries: Binaries["upgrade"] = null;
  if (upgradeTo && only.includes("kubeadm") && upgrading.includes("kubeadm")) {
    const kubeadmTo = await ensureComponent(kubeadmComponent(upgradeTo), log);
    const k8sTo = await ensureComponent(kubernetesComponent(upgradeTo), log);
    upgradeBinaries = { kubeadm: fs.readFileSync(kubeadmTo.binaries.kubeadm!.path), kubelet: fs.readFileSync(k8sTo.binaries.kubelet!.path) };
  }
  const bin: Binaries = { kubeadm: fs.readFileSync(kubeadm.binaries.kubeadm!.path), kubectl: k8s.binaries.kubectl!.path, upgrade: upgradeBinaries };
  const db = await createTempDb();
  const bootstraps: Result[] = [];
  const upgrades: UpgradeResult[] = [];
  try {
    for (const c of only) {
      const r = await contend(c, { ...opts, upgrade: upgrading.includes(c) }, bin);
      bootstraps.push(r.bootstrap);
      console.log(`${c}: ${r.bootstrap.wallS.toFixed(1)} s, ${r.bootstrap.cpuS.toFixed(0)} CPU-seconds, peak memory +${Math.round(r.bootstrap.peakMemoryBytes / 1048576)} MiB`);
      console.log(`  CPU by command (processes alive at the end): ${r.bootstrap.byCommand}`);
      if (r.upgrade) {
        upgrades.push(r.upgrade);
        console.log(`${c} upgrade: ${r.upgrade.wallS.toFixed(1)} s, ${r.upgrade.cpuS.toFixed(0)} CPU-seconds; API ${r.upgrade.availability.summary}`);
        console.log(`  CPU by command (processes alive at the end): ${r.upgrade.byCommand}`);
      }
    }
  } finally {
    await db.cleanup();
    await disconnectDb();
  }
  const machine = `${opts.masters} masters + ${opts.workers} workers, ${os.cpus().length} cores`;
  table(`${machine}, Kubernetes ${version}: from "runtime installed" to every node Ready and CoreDNS answering`, bootstraps);
  if (upgrades.length) {
    const pct = (x: number) => `${(100 * x).toFixed(2)} %`;
    table(`${machine}, upgrade ${version} → ${upgradeTo}: from its start to every node Ready at ${upgradeTo} and CoreDNS answering; API probed every 100 ms through the VIP`, upgrades, (r) => {
      const a = r.availability;
      return `${pct(a.share)} answered, ${pct(a.within1sShare)} within 1 s, longest gap ${(a.longestGapMs / 1000).toFixed(1)} s`;
    }, "API");
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
