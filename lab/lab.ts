// The test lab: hosts as network namespaces on a bridge, each with its own hostname, mounts, process
// tree and overlay root, running sshd. Test bed only; product code never imports this.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { baseImageKeys, ensureBaseImage, type ImageChoice } from "./base-image";
import { aptProxyConf, startAptProxy, stopAptProxy } from "./apt-proxy";
import { createHostCgroups, removeLabCgroups } from "./cgroups";
import { defaultKubernetesVersion } from "../lib/cluster/versions";
import { ensureClusterImages, pushImages } from "./upstream/images";
import { startRegistry, stopRegistry } from "./upstream/registry";
import { startVirtualNodes, stopVirtualNodes } from "./virtual-nodes";
import { startMirror, stopMirror } from "./mirror";
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
  const need: Record<string, string> = { debootstrap: "debootstrap", "ssh-keygen": "openssh-client", ip: "iproute2", nsenter: "util-linux", "mkfs.ext4": "e2fsprogs", "systemd-nspawn": "systemd-container", tinyproxy: "tinyproxy" };
  const missing = [...new Set(Object.entries(need).filter(([cmd]) => !which(cmd)).map(([, pkg]) => pkg))];
  if (missing.length === 0) return;
  log(`installing missing Debian packages: ${missing.join(" ")}`);
  run("apt-get", ["install", "-y", "--no-install-recommends", ...missing]);
}

/**
 * Every lab host shares this machine's kernel, so per-user kernel limits that each real server has to
 * itself are shared by all of them: every host's systemd, containerd and kubelet, and every control-plane
 * container, take inotify instances from root's one budget (128 by default). Four labs side by side
 * (15 hosts) held up to 250; with 128, a kubelet step failed there. Raised, never lowered, as
 * kind asks of the machines it runs on.
 */
const SHARED_KERNEL_LIMITS: Record<string, number> = { "fs/inotify/max_user_instances": 8192, "fs/inotify/max_user_watches": 524288 };

function raiseSharedKernelLimits(log: Log): void {
  for (const [key, wanted] of Object.entries(SHARED_KERNEL_LIMITS)) {
    const file = `/proc/sys/${key}`;
    const now = Number(fs.readFileSync(file, "utf8").trim());
    if (now >= wanted) continue;
    fs.writeFileSync(file, String(wanted));
    log(`raised ${key.replaceAll("/", ".")} from ${now} to ${wanted} (lab hosts share this kernel)`);
  }
}

function chooseSubnet(name: string): number {
  const fixed = FIXED_SUBNETS[name];
  if (fixed !== undefined) return fixed;
  const used = new Set<number>(Object.values(FIXED_SUBNETS));
  fs.mkdirSync(RUN_DIR, { recursive: true, mode: 0o700 });
  for (const other of fs.readdirSync(RUN_DIR).filter((f) => !f.startsWith("."))) {
    const s = readState(other);
    if (s) used.add(Number(s.subnet.split(".")[2]));
  }
  // Links a crashed or concurrent lab left or is making (its veths bdv<subnet>h<i>) mark a subnet used too.
  for (const m of run("ip", ["-o", "link", "show"], { allowFail: true }).matchAll(/^\d+: bdv(\d+)h\d+/gm)) used.add(Number(m[1]));
  for (let n = 30; n < 255; n++) {
    if (used.has(n)) continue;
    // Two labs coming up at once (suites side by side) must not both take it: the reservation is an
    // exclusive create, kept until the lab is taken down.
    try {
      fs.writeFileSync(subnetReservation(n), name, { flag: "wx", mode: 0o600 });
      return n;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
  throw new Error("no free lab subnet left in 10.237.30.0–10.237.254.0");
}

const subnetReservation = (n: number) => path.join(RUN_DIR, `.subnet-${n}`);

/** The subnet reservations a lab holds (by name), removed when it is taken down. */
function releaseSubnets(name: string): void {
  if (!fs.existsSync(RUN_DIR)) return;
  for (const f of fs.readdirSync(RUN_DIR).filter((x) => x.startsWith(".subnet-"))) {
    const file = path.join(RUN_DIR, f);
    if (fs.readFileSync(file, "utf8") === name) fs.rmSync(file, { force: true });
  }
}

export type UpOptions = {
  name: string;
  masters?: number;
  workers?: number;
  hosts?: number;
  /** Kubernetes versions whose images the registry must hold (default: the default version); their binaries are built when missing. */
  kubernetesVersions?: string[];
  /** false: no registry and no images (SSH-only tests). */
  images?: boolean;
  /** The hosts' Debian release (default bookworm, Debian 12). */
  suite?: ImageChoice["suite"];
  /**
   * Bare hosts lack the kubelet's host packages and keepalived; their apt reaches Debian's archive through
   * the lab's proxy, so Bootdeck's packages phase installs them (and, with runtime.source: packages,
   * containerd and runc) for real.
   */
  bare?: boolean;
  log: Log;
};

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
  const wanted = hostNames(o);
  if (wanted.length < 1 || wanted.length > MAX_HOSTS) throw new Error(`a lab has 1–${MAX_HOSTS} hosts, asked for ${wanted.length}`);
  raiseSharedKernelLimits(o.log);
  const existing = readState(name);
  if (existing) {
    const reused = await reuseLab(existing, wanted, o);
    if (reused) return reused;
  }
  ensureTools(o.log);
  // Leftovers of a crashed run under the same name would collide with what we create.
  labDown(name, () => undefined);
  const image = await ensureBaseImage(o.log, { suite: o.suite ?? "bookworm", bare: o.bare ?? false });

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
    aptProxyUrl: null,
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
    if (o.bare) {
      state.aptProxyUrl = await startAptProxy(dir, gateway, state.subnet);
      writeState(state);
    }
    o.log(`starting ${wanted.length} hosts on ${bridge} (${state.subnet})…`);
    for (const [i, h] of wanted.entries()) {
      const host = createHost(state, subnet, i, h.name, h.role, etcHosts);
      state.hosts.push(host);
      writeState(state);
    }
    await Promise.all(state.hosts.map((h) => waitForSsh(h.address, h.port, 60_000)));
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
    o.log(`lab "${name}" is up: ${state.hosts.length} hosts`);
    return state;
  } catch (err) {
    o.log(`lab up failed, cleaning up: ${err instanceof Error ? err.message : String(err)}`);
    labDown(name, () => undefined);
    throw err;
  }
}

/**
 * A lab recorded as up: reused when it has the hosts asked for and every one of them, its mirror and its
 * registry answer; rebuilt when anything of it is dead (the machine restarted, or its processes were
 * ended), since a dead lab holds nothing worth keeping. Asking a healthy lab for other hosts than it has
 * is an error: take it down first.
 */
async function reuseLab(existing: LabState, wanted: { name: string; role: LabHostState["role"] }[], o: UpOptions): Promise<LabState | undefined> {
  const { hosts } = await labStatus(existing.name);
  const dead = hosts.filter((h) => !(h.running && h.sshd)).map((h) => h.name);
  const answers = (url: string) => spawnSync("curl", ["-sk", "-o", "/dev/null", "--max-time", "2", url]).status === 0;
  if (existing.mirrorUrl && !answers(`${existing.mirrorUrl}/healthz`)) dead.push("its binary mirror");
  if (existing.registry && !answers(`https://${existing.registry.address}/v2/`)) dead.push("its image registry");
  if (dead.length || hosts.length === 0) {
    o.log(`lab "${existing.name}" is recorded as up, but ${dead.join(", ") || "it has no hosts"} ${dead.length === 1 ? "is" : "are"} dead: rebuilding it`);
    labDown(existing.name, o.log);
    return undefined;
  }
  const sameHosts = existing.hosts.length === wanted.length && wanted.every((w) => existing.hosts.some((h) => h.name === w.name && h.role === w.role));
  const sameImage = existing.image === baseImageKeys({ suite: o.suite ?? "bookworm", bare: o.bare ?? false }).imageDir;
  if (!sameHosts || !sameImage)
    throw new Error(`lab "${existing.name}" is already up with other ${sameHosts ? "host images" : "hosts"} (${existing.hosts.map((h) => h.name).join(", ")}; ${existing.image}); run \`bootdeck lab down --name ${existing.name}\` first`);
  o.log(`lab "${existing.name}" is already up (${hosts.length} hosts answer): reusing it`);
  if (o.images !== false && existing.registry) {
    const reg = existing.registry;
    const password = fs.readFileSync(reg.passwordFile, "utf8").trim();
    for (const version of o.kubernetesVersions ?? [defaultKubernetesVersion]) {
      const layout = await ensureClusterImages(version, o.log);
      await pushImages(layout, reg.address, reg.caFile, { username: reg.username, password }, o.log);
    }
  }
  return existing;
}

function createHost(state: LabState, subnet: number, index: number, name: string, role: LabHostState["role"], etcHosts: string): LabHostState {
  const dir = path.join(labDir(state.name), "hosts", name);
  const upper = path.join(dir, "upper");
  const work = path.join(dir, "work");
  const root = path.join(dir, "root");
  for (const d of [upper, work, root]) fs.mkdirSync(d, { recursive: true });
  run("mount", ["-t", "overlay", "overlay", "-o", `lowerdir=${state.image},upperdir=${upper},workdir=${work}`, root]);

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
  const disk = path.join(dir, "disk");
  fs.mkdirSync(disk, { recursive: true });
  run("mount", ["-o", "loop", image, disk]);
  const binds = DISK_DIRS.map((d) => {
    fs.mkdirSync(path.join(disk, d), { recursive: true });
    fs.mkdirSync(path.join(root, d), { recursive: true });
    return `${path.join(disk, d)}:/${d}`;
  });
  fs.writeFileSync(path.join(root, "etc/machine-id"), `${randomBytes(16).toString("hex")}\n`);
  fs.writeFileSync(path.join(root, "etc/hostname"), `${name}\n`);
  fs.writeFileSync(path.join(root, "etc/hosts"), `${etcHosts}\n`);
  const address = `${SUBNET_PREFIX}.${subnet}.${FIRST_HOST_OCTET + index}`;
  fs.writeFileSync(path.join(root, "etc/network/interfaces"), hostInterfaces(address));
  if (state.aptProxyUrl) fs.writeFileSync(path.join(root, "etc/apt/apt.conf.d/80proxy"), aptProxyConf(state.aptProxyUrl));
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

  const host: LabHostState = {
    name,
    role,
    address,
    port: 22,
    netns: netnsName(state.name, name),
    iface: IFACE,
    veth: vethName(subnet, index + 1),
    mac: hostMac(subnet, index),
    dir,
    root,
    binds,
    powerPid: 0,
    hostKeyFingerprint: fp,
  };
  powerOn(state, host);
  return host;
}

/** The directories of a host that live on its own disk (see createHost). */
const DISK_DIRS = ["var/lib/containerd", "var/lib/kubelet"];

/**
 * The host's network configuration at boot (ifupdown, as a Debian server has it): its address, and a
 * default route, as every real host has (route lookups for Service IPs must succeed before kube-proxy's
 * DNAT), into a bridge with no ports, so that traffic for anything outside the lab goes nowhere.
 */
export function hostInterfaces(address: string): string {
  return [
    "# The lab host's network at boot (lab/lab.ts)",
    "auto lo",
    "iface lo inet loopback",
    "",
    `auto ${IFACE}`,
    `iface ${IFACE} inet static`,
    `    address ${address}/24`,
    "    post-up ip link add nowhere0 type bridge && ip link set nowhere0 up && ip route add default dev nowhere0 metric 1000",
    "",
  ].join("\n");
}

/** A NIC's MAC stays the same across boots: locally administered, from the lab subnet and host index. */
export const hostMac = (subnet: number, index: number) => `02:42:0a:ed:${subnet.toString(16).padStart(2, "0")}:${(FIRST_HOST_OCTET + index).toString(16).padStart(2, "0")}`;

/**
 * Powers the host on (lab/host-power.sh, detached): a fresh network namespace and cgroups, then systemd —
 * or, `withoutSystemd`, only its network and sshd, as a host whose init is not systemd.
 */
function powerOn(state: LabState, h: LabHostState, opts: { withoutSystemd?: boolean } = {}): void {
  const logFd = fs.openSync(path.join(h.dir, "console.log"), "a");
  const cgroups = createHostCgroups(state.name, h.name).map((p) => path.dirname(p));
  const child = spawn("sh", [path.join(__dirname, "host-power.sh")], {
    detached: true,
    stdio: ["ignore", logFd, logFd],
    env: { ...process.env, HOST: h.name, ROOT: h.root, NETNS: h.netns, VETH: h.veth, MAC: h.mac, BRIDGE: state.bridge, CGROUPS: cgroups.join(" "), BINDS: h.binds.join(" "), ENTRY: opts.withoutSystemd ? "--as-pid2 /usr/local/sbin/bootdeck-lab-boot-without-systemd" : "/usr/local/sbin/bootdeck-lab-boot" },
  });
  child.unref();
  fs.closeSync(logFd);
  h.powerPid = child.pid ?? 0;
}

/**
 * The host's PID 1 (its systemd) as seen from this machine: the process of its network namespace that is
 * PID 1 of its own PID namespace. Undefined while the host is off or still powering on.
 */
export function hostInitPid(h: Pick<LabHostState, "netns">): number | undefined {
  for (const pid of run("ip", ["netns", "pids", h.netns], { allowFail: true }).split("\n").filter(Boolean)) {
    try {
      const nspid = /^NSpid:\s+(.*)$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]?.trim().split(/\s+/);
      if (nspid && nspid.length > 1 && nspid[nspid.length - 1] === "1") return Number(pid);
    } catch {
      // exited while we looked
    }
  }
  return undefined;
}

function mustInitPid(h: LabHostState): number {
  const pid = hostInitPid(h);
  if (!pid) throw new Error(`${h.name} is not running (powered off?): \`bootdeck lab reboot ${h.name}\` powers it on`);
  return pid;
}


/** SIGKILL to a process (a pid of this machine's namespace), ignoring one that is gone. */
function killNow(pid: number): void {
  try {
    if (pid > 1) process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Whether the host's power script still runs (a pid is reused once its process is gone). */
function powerRunning(h: LabHostState): boolean {
  try {
    return h.powerPid > 1 && fs.readFileSync(`/proc/${h.powerPid}/cmdline`, "utf8").includes("host-power.sh");
  } catch {
    return false;
  }
}

/**
 * SIGKILL to a host's power script and its nspawn (one process group). Not through kill(1): procps'
 * `kill -KILL -PGID` signals every process of the machine.
 */
function killPowerGroup(h: LabHostState): void {
  if (!powerRunning(h)) return;
  try {
    process.kill(-h.powerPid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Cuts the host's power: its init killed, so every process of it dies with its PID namespace. */
async function powerOff(h: LabHostState, deadline: number): Promise<void> {
  const init = hostInitPid(h);
  if (init) killNow(init);
  // nspawn then ends, and the power script with it (not 133: no power-on). A host still powering on
  // has no init yet: its power script and nspawn (one process group) are ended instead.
  const pids = () => run("ip", ["netns", "pids", h.netns], { allowFail: true }).split("\n").filter(Boolean);
  for (let i = 0; i < 20 && powerRunning(h); i++) await new Promise((r) => setTimeout(r, 100));
  killPowerGroup(h);
  while (powerRunning(h) || pids().length) {
    if (Date.now() > deadline) throw new Error(`processes of ${h.name} did not exit within 30 s`);
    for (const pid of pids()) killNow(Number(pid));
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Reboots hosts as a power cycle would: every process of each host (its containers included) is
 * killed at once, then each host boots again from its disk — a fresh network namespace with only its
 * NIC, a fresh /run, /tmp and /dev, systemd, and the units it has enabled (sshd, its network, containerd,
 * the kubelet, …). Hosts given together go down together.
 */
export async function labReboot(name: string, hosts: string[], log: Log, opts: { withoutSystemd?: boolean } = {}): Promise<void> {
  requireRoot();
  const state = mustState(name);
  const targets = hosts.map((h) => findHost(state, h));
  const deadline = Date.now() + 30_000;
  await Promise.all(targets.map((h) => powerOff(h, deadline)));
  log(`${targets.map((h) => h.name).join(", ")}: powered off`);
  for (const h of targets) powerOn(state, h, opts);
  writeState(state);
  await Promise.all(targets.map((h) => waitForSsh(h.address, h.port, 60_000)));
  log(`${targets.map((h) => h.name).join(", ")}: booted (sshd answers)`);
}

function generateHostKey(root: string, host: string): string {
  const key = path.join(root, "etc/ssh/ssh_host_ed25519_key");
  fs.rmSync(key, { force: true });
  fs.rmSync(`${key}.pub`, { force: true });
  run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `root@${host}`, "-f", key]);
  return (run("ssh-keygen", ["-l", "-E", "sha256", "-f", `${key}.pub`]).split(" ")[1] ?? "").trim();
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
  // The hosts' power scripts first (nothing may power a host on again), then every process inside the
  // lab's namespaces: each is one the lab started; kill them by pid.
  for (const h of readState(name)?.hosts ?? []) killPowerGroup(h);
  for (const ns of namespaces) {
    for (const pid of run("ip", ["netns", "pids", ns], { allowFail: true }).split("\n").filter(Boolean)) {
      killNow(Number(pid));
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
  stopAptProxy(dir);
  stopRegistry(dir);
  stopVirtualNodes(dir);
  fs.rmSync(dir, { recursive: true, force: true });
  releaseSubnets(name);
  if (namespaces.length || mounts.length) log(`lab "${name}" is down (${namespaces.length} hosts removed)`);
  else log(`lab "${name}" was not up; nothing left to clean`);
}

function mustState(name: string): LabState {
  const s = readState(validateLabName(name));
  if (!s) throw new Error(`lab "${name}" is not up; start it with \`bootdeck lab up --masters 3 --workers 3 --name ${name}\``);
  return s;
}

/** Runs a command in the host, through its PID 1's namespaces and root (as a console would). */
function inHost(h: LabHostState, argv: string[]): string {
  return run("nsenter", ["-t", String(mustInitPid(h)), "-m", "-u", "-i", "-n", "-p", "-C", "-r", "-w", ...argv]);
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
  const inMounts = (argv: string[]) => ["-t", String(mustInitPid(h)), "-m", "-p", "-r", "-w", ...argv];
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
  const init = hostInitPid(h);
  if (init) {
    for (const hook of ["PREROUTING", "POSTROUTING"]) tryRun("nsenter", ["-t", String(init), "-m", "-n", "-r", "-w", "iptables", "-t", "mangle", "-D", hook, "-j", "BOOTDECK_SLOW"]);
    tryRun("nsenter", ["-t", String(init), "-m", "-n", "-r", "-w", "iptables", "-t", "mangle", "-F", "BOOTDECK_SLOW"]);
  }
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
  const init = String(mustInitPid(h));
  const ipt = (args: string[]) => run("nsenter", ["-t", init, "-m", "-n", "-r", "-w", "iptables", ...args]);
  if (!tryRun("nsenter", ["-t", init, "-m", "-n", "-r", "-w", "iptables", "-t", "mangle", "-N", "BOOTDECK_SLOW"])) ipt(["-t", "mangle", "-F", "BOOTDECK_SLOW"]);
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
  inHost(h, ["systemctl", "stop", "ssh.service"]);
}

export async function labStartSshd(name: string, host: string): Promise<void> {
  requireRoot();
  const h = findHost(mustState(name), host);
  inHost(h, ["systemctl", "start", "ssh.service"]);
  await waitForSsh(h.address, h.port, 10_000);
}

/** Gives the host a new host key (as after a reinstall) and restarts sshd with it. */
export async function labRekey(name: string, host: string): Promise<string> {
  requireRoot();
  const state = mustState(name);
  const h = findHost(state, host);
  const fp = generateHostKey(h.root, h.name);
  // A reload (SIGHUP) makes sshd re-exec and load the new key; existing sessions are not touched.
  inHost(h, ["systemctl", "reload", "ssh.service"]);
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
      const running = hostInitPid(h) !== undefined;
      const linkOut = run("ip", ["-n", h.netns, "-o", "link", "show", h.iface], { allowFail: true });
      const link: "up" | "down" = /state UP|,UP[,>]/.test(linkOut) ? "up" : "down";
      const sshd = running && link === "up" ? await waitForSsh(h.address, h.port, 3_000).then(() => true, () => false) : false;
      return { ...h, running, link, sshd };
    }),
  );
  return { state, hosts };
}

/** Starts (or, with 0, stops) N virtual nodes (KWOK) against the lab cluster whose admin kubeconfig is given. */
export async function labVirtualNodes(name: string, kubeconfig: string, count: number, log: Log): Promise<{ pid: number; log: string }> {
  requireRoot();
  mustState(name);
  if (!fs.existsSync(kubeconfig)) throw new Error(`no kubeconfig at ${kubeconfig}: copy the cluster's admin kubeconfig (auth/kubeconfig) there first`);
  const dir = labDir(name);
  return { pid: await startVirtualNodes(dir, path.resolve(kubeconfig), count, log), log: path.join(dir, "virtual-nodes.log") };
}
