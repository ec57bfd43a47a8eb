// The test lab: hosts as network namespaces on a bridge, each with its own hostname, mounts, process
// tree and overlay root, running sshd. Test bed only; product code never imports this.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { ensureBaseImage } from "./base-image";
import { createHostCgroups, removeHostCgroups, removeLabCgroups } from "./cgroups";
import { defaultKubernetesVersion } from "../lib/cluster/versions";
import { ensureClusterImages, pushImages } from "./upstream/images";
import { startRegistry, stopRegistry } from "./upstream/registry";
import { prepareHostRuntime, startMirror, startVirtualNodes, stopMirror, stopVirtualNodes } from "./cluster/host-runtime";
import {
  bridgeName,
  FIRST_HOST_OCTET,
  FIXED_SUBNETS,
  LAB_PASSWORD,
  LAB_DISK_DIR,
  labDir,
  MAX_HOSTS,
  netnsName,
  RUN_DIR,
  SUBNET_PREFIX,
  USERS,
  validateLabName,
  vethName,
} from "./config";
import { run, tryRun, which } from "./sh";
import { findHost, readState, writeState, type LabHostState, type LabState } from "./state";

export type Log = (line: string) => void;
const IFACE = "eth0";
/** Each host's disk (a sparse file: only what is written takes space). */
const HOST_DISK_BYTES = 40 * 1024 ** 3;

export function requireRoot(): void {
  if (typeof process.getuid === "function" && process.getuid() !== 0) {
    throw new Error("the lab must run as root (it creates network namespaces, a bridge and overlay mounts): try `sudo bin/bootdeck lab …`");
  }
}

/** Installs the Debian packages the lab itself needs when missing. */
function ensureTools(log: Log): void {
  const need: Record<string, string> = { debootstrap: "debootstrap", "ssh-keygen": "openssh-client", ip: "iproute2", unshare: "util-linux", nsenter: "util-linux", "mkfs.ext4": "e2fsprogs" };
  const missing = [...new Set(Object.entries(need).filter(([cmd]) => !which(cmd)).map(([, pkg]) => pkg))];
  if (missing.length === 0) return;
  log(`installing missing Debian packages: ${missing.join(" ")}`);
  run("apt-get", ["install", "-y", "--no-install-recommends", ...missing]);
}

function chooseSubnet(name: string): number {
  const fixed = FIXED_SUBNETS[name];
  if (fixed !== undefined) return fixed;
  const used = new Set<number>(Object.values(FIXED_SUBNETS));
  if (fs.existsSync(RUN_DIR)) {
    for (const other of fs.readdirSync(RUN_DIR)) {
      const s = readState(other);
      if (s) used.add(Number(s.subnet.split(".")[2]));
    }
  }
  // Links a crashed or concurrent lab left or is making (its veths bdv<subnet>h<i>) mark a subnet used too.
  for (const m of run("ip", ["-o", "link", "show"], { allowFail: true }).matchAll(/^\d+: bdv(\d+)h\d+/gm)) used.add(Number(m[1]));
  for (let n = 30; n < 255; n++) if (!used.has(n)) return n;
  throw new Error("no free lab subnet left in 10.237.30.0–10.237.254.0");
}

export type UpOptions = {
  name: string;
  masters?: number;
  workers?: number;
  hosts?: number;
  virtualNodes?: number;
  /** Kubernetes versions whose images the registry must hold (default: the default version); their binaries are built when missing. */
  kubernetesVersions?: string[];
  /** false: no registry and no images (SSH-only tests). */
  images?: boolean;
  log: Log;
};

/**
 * The administrator kubeconfig a bootstrap puts on the first master (/etc/kubernetes/admin.conf), seen
 * from this machine. Not the kubelet's: that is the node's own identity, which may not act for others.
 */
export function firstMasterKubeconfigs(state: LabState): string[] {
  const first = state.hosts.find((h) => h.role === "master") ?? state.hosts[0];
  return first ? [path.join(first.root, "etc/kubernetes/admin.conf")] : [];
}

function hostNames(o: UpOptions): { name: string; role: LabHostState["role"] }[] {
  if (o.hosts !== undefined) return Array.from({ length: o.hosts }, (_, i) => ({ name: `host-${i + 1}`, role: "host" as const }));
  const m = o.masters ?? 0;
  const w = o.workers ?? 0;
  return [
    ...Array.from({ length: m }, (_, i) => ({ name: `master-${i + 1}`, role: "master" as const })),
    ...Array.from({ length: w }, (_, i) => ({ name: `worker-${i + 1}`, role: "worker" as const })),
  ];
}

export async function labUp(o: UpOptions): Promise<LabState> {
  requireRoot();
  const name = validateLabName(o.name);
  const existing = readState(name);
  if (existing) {
    throw new Error(`lab "${name}" is already up (${existing.hosts.length} hosts); run \`bootdeck lab down --name ${name}\` first`);
  }
  const wanted = hostNames(o);
  if (wanted.length < 1 || wanted.length > MAX_HOSTS) throw new Error(`a lab has 1–${MAX_HOSTS} hosts, asked for ${wanted.length}`);
  ensureTools(o.log);
  // Leftovers of a crashed run under the same name would collide with what we create.
  labDown(name, () => undefined);
  const image = await ensureBaseImage(o.log);

  const subnet = chooseSubnet(name);
  const dir = labDir(name);
  fs.mkdirSync(path.join(dir, "hosts"), { recursive: true, mode: 0o700 });
  const adminKeyPath = path.join(dir, "admin_ed25519");
  run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `bootdeck-lab-${name}-admin`, "-f", adminKeyPath]);
  const adminPublicKey = fs.readFileSync(`${adminKeyPath}.pub`, "utf8").trim();

  const bridge = bridgeName(name);
  const gateway = `${SUBNET_PREFIX}.${subnet}.1`;
  const state: LabState = {
    name,
    subnet: `${SUBNET_PREFIX}.${subnet}.0/24`,
    bridge,
    gateway,
    image,
    adminKeyPath,
    adminPublicKey,
    users: { root: "root", sudo: USERS.sudo, sudoWithPassword: USERS.sudoWithPassword },
    password: LAB_PASSWORD,
    mirrorUrl: null,
    registry: null,
    createdAt: new Date().toISOString(),
    hosts: [],
  };
  // Write state early so `down` can clean up even if `up` fails half-way.
  writeState(state);
  try {
    run("ip", ["link", "add", bridge, "type", "bridge"]);
    run("ip", ["addr", "add", `${gateway}/24`, "dev", bridge]);
    run("ip", ["link", "set", bridge, "up"]);

    const etcHosts = [
      "127.0.0.1 localhost",
      ...wanted.map((h, i) => `${SUBNET_PREFIX}.${subnet}.${FIRST_HOST_OCTET + i} ${h.name}`),
    ].join("\n");
    o.log(`starting ${wanted.length} hosts on ${bridge} (${state.subnet})…`);
    for (const [i, h] of wanted.entries()) {
      const host = createHost(state, subnet, i, h.name, h.role, etcHosts);
      state.hosts.push(host);
      writeState(state);
    }
    await Promise.all(state.hosts.map((h) => waitForSsh(h.address, h.port, 20_000)));
    // The binary mirror and the image registry on the bridge, filled with upstream components.
    state.mirrorUrl = startMirror(dir, gateway);
    writeState(state);
    if (o.images !== false) {
      const reg = await startRegistry(dir, gateway, o.log);
      const passwordFile = path.join(dir, "registry-password");
      fs.writeFileSync(passwordFile, `${reg.password}\n`, { mode: 0o600 });
      state.registry = { address: reg.address, caFile: reg.caFile, username: reg.username, passwordFile };
      writeState(state);
      for (const version of o.kubernetesVersions ?? [defaultKubernetesVersion]) {
        const layout = await ensureClusterImages(version, o.log);
        await pushImages(layout, reg.address, reg.caFile, { username: reg.username, password: reg.password }, o.log);
      }
    }
    // KWOK-style nodes join whatever cluster is bootstrapped on these hosts later, with the credentials
    // the first master's kubelet gets (the admin kubeconfig on masters).
    if (o.virtualNodes) {
      startVirtualNodes(dir, firstMasterKubeconfigs(state), o.virtualNodes, { wait: true });
      o.log(`${o.virtualNodes} virtual nodes will register once a cluster's API answers on ${state.hosts.find((h) => h.role === "master")?.name ?? state.hosts[0]?.name} (log: ${path.join(dir, "virtual-nodes.log")})`);
    }
    o.log(`lab "${name}" is up: ${state.hosts.length} hosts`);
    return state;
  } catch (err) {
    o.log(`lab up failed, cleaning up: ${err instanceof Error ? err.message : String(err)}`);
    labDown(name, () => undefined);
    throw err;
  }
}

function createHost(state: LabState, subnet: number, index: number, name: string, role: LabHostState["role"], etcHosts: string): LabHostState {
  const dir = path.join(labDir(state.name), "hosts", name);
  const upper = path.join(dir, "upper");
  const work = path.join(dir, "work");
  const root = path.join(dir, "root");
  for (const d of [upper, work, root]) fs.mkdirSync(d, { recursive: true });
  run("mount", ["-t", "overlay", "overlay", "-o", `lowerdir=${state.image},upperdir=${upper},workdir=${work}`, root]);
  // lab cluster: Node and this repository read-only at /opt/bootdeck-lab, stand-in commands.
  prepareHostRuntime(root);

  // A disk of its own for container images and snapshots, and the kubelet's state: containerd's overlayfs
  // snapshotter cannot put its layers on the host's root, itself an overlay (overlayfs refuses an overlay
  // upper layer); and the kubelet judges disk pressure by its filesystems' free share, which on this
  // shared machine's disk would be everyone's (15 % free taints every node). A sparse file with its own
  // ext4, loop-mounted, is a disk of its own that costs only what is written to it.
  const disks = path.join(LAB_DISK_DIR, state.name);
  fs.mkdirSync(disks, { recursive: true });
  const image = path.join(disks, `${name}.img`);
  fs.closeSync(fs.openSync(image, "w"));
  fs.truncateSync(image, HOST_DISK_BYTES);
  run("mkfs.ext4", ["-q", "-F", "-m", "0", "-E", "lazy_itable_init=1,lazy_journal_init=1", image]);
  const disk = path.join(labDir(state.name), "hosts", name, "disk");
  fs.mkdirSync(disk, { recursive: true });
  run("mount", ["-o", "loop", image, disk]);
  for (const dir of ["var/lib/containerd", "var/lib/kubelet"]) {
    fs.mkdirSync(path.join(disk, dir), { recursive: true });
    fs.mkdirSync(path.join(root, dir), { recursive: true });
    run("mount", ["--bind", path.join(disk, dir), path.join(root, dir)]);
  }
  fs.writeFileSync(path.join(root, "etc/machine-id"), `${randomBytes(16).toString("hex")}\n`);
  fs.writeFileSync(path.join(root, "etc/hostname"), `${name}\n`);
  fs.writeFileSync(path.join(root, "etc/hosts"), `${etcHosts}\n`);
  const fp = generateHostKey(root, name);
  const passwd = fs.readFileSync(path.join(root, "etc/passwd"), "utf8");
  for (const user of ["root", USERS.sudo, USERS.sudoWithPassword]) {
    const entry = passwd.split("\n").find((l) => l.startsWith(`${user}:`))?.split(":");
    if (!entry) throw new Error(`base image lacks user ${user}`);
    const [uid, gid, home] = [Number(entry[2]), Number(entry[3]), entry[5] ?? "/"];
    const ak = path.join(root, home, ".ssh", "authorized_keys");
    fs.writeFileSync(ak, `${state.adminPublicKey}\n`, { mode: 0o600 });
    fs.chownSync(ak, uid, gid);
  }

  const ns = netnsName(state.name, name);
  const veth = vethName(subnet, index + 1);
  const address = `${SUBNET_PREFIX}.${subnet}.${FIRST_HOST_OCTET + index}`;
  run("ip", ["netns", "add", ns]);
  run("ip", ["link", "add", veth, "type", "veth", "peer", "name", `${veth}p`]);
  run("ip", ["link", "set", `${veth}p`, "netns", ns]);
  run("ip", ["-n", ns, "link", "set", `${veth}p`, "name", IFACE]);
  run("ip", ["-n", ns, "addr", "add", `${address}/24`, "dev", IFACE]);
  run("ip", ["-n", ns, "link", "set", IFACE, "up"]);
  run("ip", ["-n", ns, "link", "set", "lo", "up"]);
  // A default route, as every real host has (route lookups for Service IPs must succeed before
  // kube-proxy's DNAT), into a bridge with no ports: traffic for anything outside the lab goes nowhere.
  run("ip", ["-n", ns, "link", "add", "nowhere0", "type", "bridge"]);
  run("ip", ["-n", ns, "link", "set", "nowhere0", "up"]);
  run("ip", ["-n", ns, "route", "add", "default", "dev", "nowhere0", "metric", "1000"]);
  // Prepared as for Kubernetes: IPv4 forwarding on (per network namespace; preflight checks it).
  run("ip", ["netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1"]);
  run("ip", ["link", "set", veth, "master", state.bridge, "up"]);

  const initPid = startHostInit(state.name, { name, netns: ns, dir, root });
  return { name, role, address, port: 22, netns: ns, iface: IFACE, veth, dir, root, initPid, hostKeyFingerprint: fp };
}

/** Starts a host's PID 1 in its namespaces and root (at `lab up`, and again at a reboot); returns its pid. */
function startHostInit(lab: string, h: Pick<LabHostState, "name" | "netns" | "dir" | "root">): number {
  const logFd = fs.openSync(path.join(h.dir, "init.log"), "a");
  // The shell moves itself into the host's cgroups, then becomes the host: its cgroup namespace is
  // rooted there, so the host sees those cgroups as its /sys/fs/cgroup.
  const cgroupProcs = createHostCgroups(lab, h.name);
  const child = spawn(
    "sh",
    [
      "-c",
      'for p in $BOOTDECK_CGROUP_PROCS; do echo $$ > "$p"; done; exec "$@"',
      "bootdeck-lab-host",
      ...["ip", "netns", "exec", h.netns, "unshare", "--mount", "--uts", "--ipc", "--pid", "--cgroup", "--fork", "--propagation", "private"],
      // pivot_root, not chroot: the host's root must be the root of its mount namespace, or a process that
      // joins a container's mount namespace (runc exec, kubectl exec) lands on this machine's root instead.
      ...["sh", "-c", 'cd "$1" && mkdir -p .bootdeck-oldroot && pivot_root . .bootdeck-oldroot && exec /sbin/bootdeck-lab-init "$2"', "bootdeck-lab-pivot", h.root, h.name],
    ],
    { detached: true, stdio: ["ignore", logFd, logFd], env: { ...process.env, BOOTDECK_CGROUP_PROCS: cgroupProcs.join(" ") } },
  );
  child.unref();
  fs.closeSync(logFd);
  return findChild(child.pid ?? 0);
}

/**
 * Reboots hosts as a power cycle would: every process of each host (its containers included) is
 * killed at once, then each host boots again from its disk — a fresh /run, /tmp and /dev, its init,
 * sshd, and the systemd units it has enabled (containerd, the kubelet, …). Hosts given together go
 * down together.
 */
export async function labReboot(name: string, hosts: string[], log: Log): Promise<void> {
  requireRoot();
  const state = mustState(name);
  const targets = hosts.map((h) => findHost(state, h));
  for (const h of targets) tryRun("kill", ["-KILL", String(h.initPid)]);
  // The kernel kills everything in a PID namespace when its init dies; wait until nothing is left.
  const deadline = Date.now() + 30_000;
  for (const h of targets)
    while (run("ip", ["netns", "pids", h.netns], { allowFail: true }).trim()) {
      if (Date.now() > deadline) throw new Error(`processes of ${h.name} did not exit within 30 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
  log(`${targets.map((h) => h.name).join(", ")}: powered off`);
  // A kernel boots with no cgroups but the root: the old pods' cgroups go with the old processes.
  for (const h of targets) removeHostCgroups(state.name, h.name);
  for (const h of targets) h.initPid = startHostInit(state.name, h);
  writeState(state);
  await Promise.all(targets.map((h) => waitForSsh(h.address, h.port, 30_000)));
  log(`${targets.map((h) => h.name).join(", ")}: booted (sshd answers)`);
}

function generateHostKey(root: string, host: string): string {
  const key = path.join(root, "etc/ssh/ssh_host_ed25519_key");
  fs.rmSync(key, { force: true });
  fs.rmSync(`${key}.pub`, { force: true });
  run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `root@${host}`, "-f", key]);
  return (run("ssh-keygen", ["-l", "-E", "sha256", "-f", `${key}.pub`]).split(" ")[1] ?? "").trim();
}

/** The unshare'd child (the host's PID 1) as seen from the root namespace. */
function findChild(parent: number): number {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    try {
      const kids = fs.readFileSync(`/proc/${parent}/task/${parent}/children`, "utf8").trim();
      const first = Number(kids.split(" ")[0]);
      if (first > 0) return first;
    } catch {
      /* not there yet */
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  throw new Error(`host init did not start (parent pid ${parent})`);
}

export function waitForSsh(address: string, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = net.connect({ host: address, port, timeout: 1_000 });
      s.once("data", () => {
        s.destroy();
        resolve();
      });
      const retry = () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`sshd on ${address}:${port} did not answer within ${timeoutMs} ms`));
        else setTimeout(attempt, 100);
      };
      s.once("error", retry);
      s.once("timeout", retry);
    };
    attempt();
  });
}

/** Removes everything the lab created; safe to re-run, and works without (or with a stale) state file. */
export function labDown(name: string, log: Log): void {
  requireRoot();
  validateLabName(name);
  const dir = labDir(name);
  const prefix = `bdl-${name}-`;
  const namespaces = run("ip", ["netns", "list"], { allowFail: true })
    .split("\n")
    .map((l) => l.split(" ")[0] ?? "")
    .filter((n) => n.startsWith(prefix));
  // Every process inside the lab's namespaces is one the lab started; kill them by pid.
  for (const ns of namespaces) {
    for (const pid of run("ip", ["netns", "pids", ns], { allowFail: true }).split("\n").filter(Boolean)) {
      tryRun("kill", ["-KILL", pid]);
    }
  }
  // Unmount (deepest first) everything mounted under the lab directory.
  const mounts = fs
    .readFileSync("/proc/mounts", "utf8")
    .split("\n")
    .map((l) => (l.split(" ")[1] ?? "").replace(/\\040/g, " "))
    .filter((m) => m === dir || m.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) if (!tryRun("umount", [m])) tryRun("umount", ["-l", m]);
  for (const ns of namespaces) tryRun("ip", ["netns", "del", ns]);
  removeLabCgroups(name);
  // Container images and snapshots of the lab's hosts (their disks), unmounted above.
  fs.rmSync(path.join(LAB_DISK_DIR, name), { recursive: true, force: true });
  if (tryRun("ip", ["link", "show", bridgeName(name)])) tryRun("ip", ["link", "del", bridgeName(name)]);
  stopMirror(dir);
  stopRegistry(dir);
  stopVirtualNodes(dir);
  fs.rmSync(dir, { recursive: true, force: true });
  if (namespaces.length || mounts.length) log(`lab "${name}" is down (${namespaces.length} hosts removed)`);
  else log(`lab "${name}" was not up; nothing left to clean`);
}

function mustState(name: string): LabState {
  const s = readState(validateLabName(name));
  if (!s) throw new Error(`lab "${name}" is not up; start it with \`bootdeck lab up 3 --name ${name}\``);
  return s;
}

function inHost(h: LabHostState, argv: string[]): string {
  // Enter the host's namespaces and root through its PID 1.
  return run("nsenter", ["-t", String(h.initPid), "-m", "-u", "-i", "-n", "-p", "-r", "-w", ...argv]);
}

export function labCut(name: string, host: string): void {
  requireRoot();
  const h = findHost(mustState(name), host);
  run("ip", ["-n", h.netns, "link", "set", h.iface, "down"]);
}

export function labHeal(name: string, host: string): void {
  requireRoot();
  const h = findHost(mustState(name), host);
  run("ip", ["-n", h.netns, "link", "set", h.iface, "up"]);
  clearSlow(h);
}

/**
 * Swap on or off as the host sees it: /proc/swaps of the host's own mount namespace shows a swap file
 * (a real swapon would change the whole machine). What the kubelet's swap check and preflight read.
 */
export function labSwap(name: string, host: string, on: boolean): void {
  requireRoot();
  const h = findHost(mustState(name), host);
  // In the host's mount namespace and root (the host's root is its namespace's root: see createHost).
  // The pid namespace too: the host's /proc belongs to it, and umount reads /proc/self.
  const inMounts = (argv: string[]) => ["-t", String(h.initPid), "-m", "-p", "-r", "-w", ...argv];
  tryRun("nsenter", inMounts(["umount", "/proc/swaps"]));
  if (!on) return;
  fs.writeFileSync(path.join(h.root, "var", "lib", "bootdeck-lab-swaps"), "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/swapfile                               file\t\t2097148\t\t0\t\t-2\n");
  run("nsenter", inMounts(["mount", "--bind", "/var/lib/bootdeck-lab-swaps", "/proc/swaps"]));
}

/** IPv4 forwarding of the host's network namespace (on at `lab up`): off is a preflight warning on any machine. */
export function labIpForward(name: string, host: string, on: boolean): void {
  requireRoot();
  const h = findHost(mustState(name), host);
  run("ip", ["netns", "exec", h.netns, "sysctl", "-q", "-w", `net.ipv4.ip_forward=${on ? 1 : 0}`]);
}

/** Where a host's userspace delayer keeps its pid and log (next to its root). */
const slowFile = (h: LabHostState, ext: "pid" | "log") => path.join(path.dirname(h.root), `slow.${ext}`);

function clearSlow(h: LabHostState): void {
  tryRun("ip", ["netns", "exec", h.netns, "tc", "qdisc", "del", "dev", h.iface, "root"]);
  for (const hook of ["PREROUTING", "POSTROUTING"]) tryRun("nsenter", ["-t", String(h.initPid), "-m", "-n", "-r", "-w", "iptables", "-t", "mangle", "-D", hook, "-j", "BOOTDECK_SLOW"]);
  tryRun("nsenter", ["-t", String(h.initPid), "-m", "-n", "-r", "-w", "iptables", "-t", "mangle", "-F", "BOOTDECK_SLOW"]);
  const pidFile = slowFile(h, "pid");
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, "utf8"));
    // The rule is gone first (nothing new is queued); the delayer is then stopped and awaited, so that
    // no packet it held outlives it into a `lab down`.
    try {
      if (pid > 0 && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("nfqueue-delay.py")) {
        process.kill(pid, "SIGTERM");
        for (let i = 0; i < 100 && fs.existsSync(`/proc/${pid}`); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
      }
    } catch {
      // already gone
    }
    fs.rmSync(pidFile, { force: true });
  }
}

export function parseDelay(s: string): number {
  const m = /^(\d+)(ms|s)?$/.exec(s);
  if (!m) throw new Error(`delay must look like 200ms or 1s, got "${s}"`);
  return Number(m[1]) * (m[2] === "s" ? 1000 : 1);
}

export function parseLoss(s: string): number {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(s);
  if (!m || Number(m[1]) > 100) throw new Error(`loss must be a percentage like 5%, got "${s}"`);
  return Number(m[1]);
}

/**
 * Adds delay and loss to the host's outgoing packets. With tc netem where the kernel has it; kernels
 * built without sch_netem (these VMs: CONFIG_NET_SCH_NETEM is not set; no qdisc that delays is built in
 * either: tbf and htb only shape rate, and fq, which would honour a BPF-set departure time, is
 * missing) get a userspace delayer instead: iptables' NFQUEUE target (built in) hands every egress
 * packet of eth0 to lab/nfqueue-delay.py in the host's network namespace, which holds it for the delay
 * and accepts it, or drops it with the loss probability. The queue fails open (bypass) if the delayer
 * is gone. Delay applies per packet, as netem's does; a delayer process costs some CPU per packet.
 */
export function labSlow(name: string, host: string, delay: string, loss: string, log: Log): void {
  requireRoot();
  const h = findHost(mustState(name), host);
  const ms = parseDelay(delay);
  const pct = parseLoss(loss);
  clearSlow(h);
  const netem = ["netns", "exec", h.netns, "tc", "qdisc", "add", "dev", h.iface, "root", "netem", "delay", `${ms}ms`, "loss", `${pct}%`];
  if (tryRun("ip", netem)) {
    log(`${h.name}: ${ms} ms delay, ${pct}% loss (tc netem on ${h.iface})`);
    return;
  }
  if (ms === 0 && pct === 0) return;
  const ipt = (args: string[]) => run("nsenter", ["-t", String(h.initPid), "-m", "-n", "-r", "-w", "iptables", ...args]);
  if (!tryRun("nsenter", ["-t", String(h.initPid), "-m", "-n", "-r", "-w", "iptables", "-t", "mangle", "-N", "BOOTDECK_SLOW"])) ipt(["-t", "mangle", "-F", "BOOTDECK_SLOW"]);
  const logFd = fs.openSync(slowFile(h, "log"), "a");
  const child = spawn("ip", ["netns", "exec", h.netns, "python3", path.join(__dirname, "nfqueue-delay.py"), "--queue", "0", "--delay-ms", String(ms), "--loss", String(pct)], { detached: true, stdio: ["ignore", logFd, logFd] });
  child.unref();
  fs.closeSync(logFd);
  // The pid of the delayer itself (ip netns exec execs it).
  fs.writeFileSync(slowFile(h, "pid"), String(child.pid));
  const deadline = Date.now() + 10_000;
  while (!fs.readFileSync(slowFile(h, "log"), "utf8").includes(`nfqueue-delay: queue 0, ${ms} ms`)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the lab's delayer did not start on ${h.name}: ${fs.readFileSync(slowFile(h, "log"), "utf8").slice(-500)}`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
  ipt(["-t", "mangle", "-A", "BOOTDECK_SLOW", "-o", h.iface, "-j", "NFQUEUE", "--queue-num", "0", "--queue-bypass"]);
  ipt(["-t", "mangle", "-A", "POSTROUTING", "-j", "BOOTDECK_SLOW"]);
  log(`${h.name}: ${ms} ms delay, ${pct}% loss on ${h.iface}'s outgoing packets (this kernel has no sch_netem: userspace delayer lab/nfqueue-delay.py through NFQUEUE, pid ${child.pid}). \`bootdeck lab heal ${h.name}\` removes it.`);
}

export function labStopSshd(name: string, host: string): void {
  requireRoot();
  const h = findHost(mustState(name), host);
  inHost(h, ["sh", "-c", 'kill "$(cat /run/sshd.pid)"; i=0; while [ -e /run/sshd.pid ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done']);
}

export async function labStartSshd(name: string, host: string): Promise<void> {
  requireRoot();
  const h = findHost(mustState(name), host);
  inHost(h, ["/usr/sbin/sshd", "-E", "/var/log/sshd.log"]);
  await waitForSsh(h.address, h.port, 10_000);
}

/** Gives the host a new host key (as after a reinstall) and restarts sshd with it. */
export async function labRekey(name: string, host: string): Promise<string> {
  requireRoot();
  const state = mustState(name);
  const h = findHost(state, host);
  const fp = generateHostKey(h.root, h.name);
  // SIGHUP makes sshd re-exec and load the new key; existing sessions are not touched.
  inHost(h, ["sh", "-c", 'kill -HUP "$(cat /run/sshd.pid)"']);
  h.hostKeyFingerprint = fp;
  writeState(state);
  await new Promise((r) => setTimeout(r, 200));
  await waitForSsh(h.address, h.port, 10_000);
  return fp;
}

export type HostStatus = LabHostState & { running: boolean; link: "up" | "down"; sshd: boolean };

export async function labStatus(name: string): Promise<{ state: LabState; hosts: HostStatus[] }> {
  const state = mustState(name);
  const hosts = await Promise.all(
    state.hosts.map(async (h) => {
      const running = fs.existsSync(`/proc/${h.initPid}`);
      const linkOut = run("ip", ["-n", h.netns, "-o", "link", "show", h.iface], { allowFail: true });
      const link: "up" | "down" = /state UP|,UP[,>]/.test(linkOut) ? "up" : "down";
      const sshd = running && link === "up" ? await waitForSsh(h.address, h.port, 3_000).then(() => true, () => false) : false;
      return { ...h, running, link, sshd };
    }),
  );
  return { state, hosts };
}

/** Starts (or, with 0, stops) N virtual nodes against the lab cluster whose admin kubeconfig is given. */
export function labVirtualNodes(name: string, kubeconfig: string, count: number): { pid: number; log: string } {
  requireRoot();
  mustState(name);
  if (!fs.existsSync(kubeconfig)) throw new Error(`no kubeconfig at ${kubeconfig}: copy the cluster's admin kubeconfig (auth/kubeconfig) there first`);
  const dir = labDir(name);
  return { pid: startVirtualNodes(dir, [path.resolve(kubeconfig)], count), log: path.join(dir, "virtual-nodes.log") };
}
