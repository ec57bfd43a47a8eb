// Phase 2: preflight. Read-only checks on every host, in one exec each, then checks across hosts.
// Each finding has a severity and a hint; errors stop the run before anything is changed.
import type { Capabilities } from "../../assets/capabilities";
import type { ClusterDefinition } from "../../cluster/definition";
import { minimumContainerd, runtimeVersions } from "../../cluster/runtime-versions";
import type { HostFacts } from "../../clusters/host-facts";

export const PREFLIGHT_SCRIPT = `echo "swapKb=$(awk 'NR > 1 {s += $3} END {print s + 0}' /proc/swaps 2>/dev/null)"
echo "ipForward=$(cat /proc/sys/net/ipv4/ip_forward 2>/dev/null)"
echo "bridgeNf=$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null)"
echo "conntrackMax=$(cat /proc/sys/net/netfilter/nf_conntrack_max 2>/dev/null)"
echo "cgroup=$(stat -fc %T /sys/fs/cgroup 2>/dev/null)"
echo "init=$(cat /proc/1/comm 2>/dev/null)"
echo "arch=$(uname -m)"
grep -qw overlay /proc/filesystems 2>/dev/null && echo "module=overlay yes"
{ [ -e /proc/sys/net/bridge ] || modinfo br_netfilter >/dev/null 2>&1; } && echo "module=br_netfilter yes"
if command -v containerd >/dev/null 2>&1; then echo "containerd=$(command -v containerd) $(containerd --version 2>/dev/null | awk '{print $3}')"; fi
[ -S /run/containerd/containerd.sock ] && echo "runtimeSocket=/run/containerd/containerd.sock"
[ -S /var/run/docker.sock ] && echo "docker=yes"
if command -v apt-cache >/dev/null 2>&1; then echo "containerdCandidate=$(apt-cache policy containerd 2>/dev/null | awk '/Candidate:/ {print $2}')"
  ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 || echo "pkgListsEmpty=yes"
elif command -v dnf >/dev/null 2>&1; then echo "containerdCandidate=$(dnf -q info containerd 2>/dev/null | awk '/^Version/ {print $3; exit}')"; fi
for c in iptables ip socat nsenter mount ebtables ethtool conntrack curl; do
  if command -v "$c" >/dev/null 2>&1; then echo "cmd=$c yes"; else echo "cmd=$c no"; fi
done
for m in apt-get dnf; do command -v "$m" >/dev/null 2>&1 && echo "pkgManager=$m"; done
ss -ltnH 2>/dev/null | awk '{print "listen=" $4}'
df -Pk / 2>/dev/null | awk 'NR > 1 {print "diskFreeKb=" $4}'`;

/** The kubelet's host packages (Debian names, as the kubelet package depends on them) by the command that shows each. */
export const kubeletHostPackages: Record<string, string> = {
  iptables: "iptables",
  ip: "iproute2",
  socat: "socat",
  nsenter: "util-linux",
  mount: "mount",
  ebtables: "ebtables",
  ethtool: "ethtool",
  conntrack: "conntrack",
  // Bootdeck's own scripts download with it and the API server checkpoint probes with it.
  curl: "curl",
};

/** "command=package" pairs, the packages phase's arguments. */
export const packagePairs = () => Object.entries(kubeletHostPackages).map(([cmd, pkg]) => `${cmd}=${pkg}`);

export type Severity = "error" | "warning" | "ok";
export type Finding = { check: string; severity: Severity; message: string; hint?: string };

export type PreflightProbe = {
  swapKb: number;
  ipForward: string;
  bridgeNf: string;
  /** nf_conntrack_max, or NaN when conntrack is not loaded yet. */
  conntrackMax: number;
  cgroup: string;
  init: string;
  arch: string;
  modules: Record<string, boolean>;
  /** The containerd on the PATH: where and which version. */
  containerd: { path: string; version: string } | null;
  runtimeSocket: boolean;
  docker: boolean;
  /** The version the host's package manager would install. */
  containerdCandidate: string;
  /** apt has no package lists (apt-get update never ran, as on many cloud images): no candidate can be known. */
  pkgListsEmpty: boolean;
  commands: Record<string, boolean>;
  pkgManager: string | null;
  listening: number[];
  diskFreeKb: number;
};

export function parsePreflight(text: string): PreflightProbe {
  const probe: PreflightProbe = {
    swapKb: 0,
    ipForward: "",
    bridgeNf: "",
    conntrackMax: Number.NaN,
    cgroup: "",
    init: "",
    arch: "",
    modules: {},
    containerd: null,
    runtimeSocket: false,
    docker: false,
    containerdCandidate: "",
    pkgListsEmpty: false,
    commands: {},
    pkgManager: null,
    listening: [],
    diskFreeKb: Number.NaN,
  };
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq < 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1).trim();
    if (key === "swapKb") probe.swapKb = Number(value) || 0;
    else if (key === "ipForward") probe.ipForward = value;
    else if (key === "cgroup") probe.cgroup = value;
    else if (key === "bridgeNf") probe.bridgeNf = value;
    else if (key === "conntrackMax") probe.conntrackMax = value === "" ? Number.NaN : Number(value);
    else if (key === "init") probe.init = value;
    else if (key === "arch") probe.arch = value;
    else if (key === "module") probe.modules[value.split(" ")[0] ?? ""] = true;
    else if (key === "containerd") {
      const [path = "", version = ""] = value.split(" ");
      probe.containerd = { path, version: version.replace(/^v/, "") };
    } else if (key === "runtimeSocket") probe.runtimeSocket = true;
    else if (key === "docker") probe.docker = true;
    else if (key === "containerdCandidate") probe.containerdCandidate = value === "(none)" ? "" : value;
    else if (key === "pkgListsEmpty") probe.pkgListsEmpty = value === "yes";
    else if (key === "cmd") {
      const [c, yes] = value.split(" ");
      if (c) probe.commands[c] = yes === "yes";
    } else if (key === "pkgManager") probe.pkgManager ??= value;
    else if (key === "listen") {
      const port = Number(value.slice(value.lastIndexOf(":") + 1));
      if (Number.isInteger(port)) probe.listening.push(port);
    } else if (key === "diskFreeKb") probe.diskFreeKb = Number(value);
  }
  return probe;
}

export function requiredPorts(role: "master" | "worker"): number[] {
  return role === "master" ? [6443, 10250, 2379, 2380] : [10250];
}

/** What preflight compares a host with: its role and the cluster's choices. */
export type PreflightTarget = { role: "master" | "worker"; caps: Capabilities; def: ClusterDefinition };

/** "1.7.24~ds1-1ubuntu1" → [1, 7, 24]; compares numerically, missing parts as 0. */
function versionAtLeast(version: string, minimum: string): boolean {
  const parts = (v: string) => (v.match(/^\d+(\.\d+)*/)?.[0] ?? "0").split(".").map(Number);
  const a = parts(version);
  const b = parts(minimum);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

export function evaluateHost(probe: PreflightProbe, target: PreflightTarget): Finding[] {
  const { role, caps, def } = target;
  const f: Finding[] = [];
  if (probe.swapKb > 0)
    f.push({ check: "swap", severity: "error", message: `swap is on (${Math.round(probe.swapKb / 1024)} MiB)`, hint: "run `swapoff -a` and remove swap entries from /etc/fstab: the kubelet refuses to start with swap on" });
  else f.push({ check: "swap", severity: "ok", message: "swap is off" });

  const ports = requiredPorts(role);
  const taken = ports.filter((p) => probe.listening.includes(p));
  const listed = (ps: number[]) => `port${ps.length > 1 ? "s" : ""} ${ps.join(", ")}`;
  if (taken.length)
    f.push({ check: "ports", severity: "error", message: `${listed(taken)} already in use`, hint: `find the owner with \`ss -ltnp 'sport = :${taken[0]}'\`; if it is an earlier install, reset the host first` });
  else f.push({ check: "ports", severity: "ok", message: `${listed(ports)} ${ports.length > 1 ? "are" : "is"} free` });

  const missing = Object.entries(kubeletHostPackages).filter(([cmd]) => probe.commands[cmd] === false).map(([, pkg]) => pkg);
  if (missing.length && !probe.pkgManager)
    f.push({ check: "packages", severity: "error", message: `missing ${missing.join(", ")} and no apt-get or dnf to install them`, hint: "install them from your distribution before bootstrapping" });
  else if (missing.length)
    f.push({ check: "packages", severity: "warning", message: `missing ${missing.join(", ")}; they will be installed with ${probe.pkgManager}` });
  else f.push({ check: "packages", severity: "ok", message: "the kubelet's host packages are present" });

  const freeGiB = probe.diskFreeKb / 1024 / 1024;
  if (!Number.isFinite(freeGiB)) f.push({ check: "disk", severity: "warning", message: "could not read free disk space on /" });
  else if (freeGiB < 1) f.push({ check: "disk", severity: "error", message: `only ${freeGiB.toFixed(2)} GiB free on /`, hint: "free at least 2 GiB: images and etcd data live there" });
  else if (freeGiB < 2) f.push({ check: "disk", severity: "warning", message: `${freeGiB.toFixed(1)} GiB free on /; 2 GiB or more is advised` });
  else f.push({ check: "disk", severity: "ok", message: `${freeGiB.toFixed(1)} GiB free on /` });

  if (probe.arch && probe.arch !== "x86_64")
    f.push({ check: "arch", severity: "error", message: `the host is ${probe.arch}; Bootdeck installs amd64 (x86_64) binaries`, hint: "bootstrap x86_64 hosts" });

  f.push(...cgroupFindings(probe, caps, def));
  f.push(...runtimeFindings(probe, caps, def));
  return f;
}

/**
 * cgroup v1 against the kubelet's version: deprecated; from 1.35 the kubelet refuses it unless the
 * definition allows it (which sets failCgroupV1: false). The driver must match the init system.
 */
function cgroupFindings(probe: PreflightProbe, caps: Capabilities, def: ClusterDefinition): Finding[] {
  const f: Finding[] = [];
  const v1 = probe.cgroup !== "" && probe.cgroup !== "cgroup2fs";
  const move = "boot the host with cgroup v2 (systemd.unified_cgroup_hierarchy=1 on the kernel command line)";
  if (!v1) f.push({ check: "cgroups", severity: "ok", message: probe.cgroup ? "cgroup v2" : "cgroup version unknown" });
  else if (caps.cgroupV1Refused && !def.spec.kubernetes.allowCgroupV1)
    f.push({ check: "cgroups", severity: "error", message: `cgroup v1 (${probe.cgroup}): the kubelet ${caps.version} refuses to start on it`, hint: `${move}, or set spec.kubernetes.allowCgroupV1: true to run on cgroup v1 anyway (deprecated upstream, to be removed)` });
  else
    f.push({
      check: "cgroups",
      severity: "warning",
      message: `cgroup v1 (${probe.cgroup}) is deprecated${caps.cgroupV1Refused ? ", and the kubelet runs on it only because spec.kubernetes.allowCgroupV1 is set" : ""}`,
      hint: `plan the move: ${move}`,
    });
  const systemd = probe.init === "systemd";
  const driver = def.spec.runtime.cgroupDriver;
  if (driver === "systemd" && probe.init && !systemd)
    f.push({ check: "cgroup-driver", severity: "error", message: `cgroupDriver systemd, but this host's init is ${probe.init}, not systemd`, hint: "set spec.runtime.cgroupDriver: cgroupfs: without systemd as init nothing can manage systemd cgroups" });
  else if (driver === "cgroupfs" && systemd)
    f.push({ check: "cgroup-driver", severity: "warning", message: "cgroupDriver cgroupfs on a systemd host: two managers of one cgroup tree", hint: "set spec.runtime.cgroupDriver: systemd (what the kubelet and containerd recommend on systemd hosts)" });
  else f.push({ check: "cgroup-driver", severity: "ok", message: `cgroupDriver ${driver} matches the init (${probe.init || "unknown"})` });
  return f;
}

/** kube-proxy's own default for 2 cores (32768 per core, at least 131072). */
export const CONNTRACK_MIN = 131072;

/** The container runtime: modules, sysctls the runtime phase sets, and a containerd new enough. */
function runtimeFindings(probe: PreflightProbe, caps: Capabilities, def: ClusterDefinition): Finding[] {
  const f: Finding[] = [];
  const min = minimumContainerd(caps.minor);
  for (const m of ["overlay", "br_netfilter"])
    if (!probe.modules[m])
      f.push({ check: `module-${m}`, severity: "error", message: `kernel module ${m} is not available`, hint: `install the kernel's extra modules (linux-modules-extra) or build ${m} in: ${m === "overlay" ? "containerd stores images on overlayfs" : "bridged pod traffic must pass iptables for Services to work"}` });
  if (probe.modules.overlay && probe.modules.br_netfilter) f.push({ check: "modules", severity: "ok", message: "overlay and br_netfilter are available" });
  const off = [probe.ipForward !== "1" ? "net.ipv4.ip_forward" : "", probe.bridgeNf !== "1" ? "net.bridge.bridge-nf-call-iptables" : ""].filter(Boolean);
  f.push({ check: "sysctls", severity: "ok", message: off.length ? `${off.join(" and ")} off now; the runtime phase sets ${off.length > 1 ? "them" : "it"} to 1 and persists ${off.length > 1 ? "them" : "it"}` : "forwarding and bridged iptables are on" });
  // kube-proxy leaves the kernel-wide connection-tracking table to the host (--conntrack-max-per-core=0).
  if (probe.conntrackMax < CONNTRACK_MIN)
    f.push({ check: "conntrack", severity: "warning", message: `nf_conntrack_max is ${probe.conntrackMax}; busy nodes need ${CONNTRACK_MIN} or more`, hint: `set net.netfilter.nf_conntrack_max = ${CONNTRACK_MIN} (or more) in /etc/sysctl.d and apply it: kube-proxy does not change it` });
  if (probe.docker) f.push({ check: "docker", severity: "warning", message: "Docker is installed: its containerd may share the host with the kubelet's", hint: "a node should run one container runtime; remove Docker or make sure its containerd is the one the kubelet uses" });
  const own = probe.containerd?.path === "/usr/local/bin/containerd";
  if (def.spec.runtime.source === "mirror") {
    if (probe.containerd && !own)
      f.push({ check: "runtime", severity: "error", message: `containerd ${probe.containerd.version} is installed at ${probe.containerd.path}; Bootdeck installs its own (${runtimeVersions.containerd}) in /usr/local/bin`, hint: "remove the packaged containerd (apt-get remove containerd) or set spec.runtime.source: packages to use it" });
    else f.push({ check: "runtime", severity: "ok", message: `containerd ${runtimeVersions.containerd} from the mirror${probe.containerd ? ` (${probe.containerd.version} installed now)` : ""}` });
  } else {
    const version = probe.containerd?.version || probe.containerdCandidate;
    if (!version && probe.pkgListsEmpty)
      f.push({ check: "runtime", severity: "warning", message: "no containerd installed, and the host's package lists are empty (apt-get update never ran), so which containerd its packages offer is not known yet: the packages phase updates them and installs it", hint: "run apt-get update on the host and check again to see the version first, or set spec.runtime.source: mirror" });
    else if (!version)
      f.push({ check: "runtime", severity: "error", message: "no containerd installed, and the host's package manager offers none", hint: "enable a repository that has containerd, or set spec.runtime.source: mirror" });
    else if (!versionAtLeast(version, min))
      f.push({ check: "runtime", severity: "error", message: `containerd ${version} ${probe.containerd ? "is installed" : "is what the host's packages offer"}; the kubelet ${caps.version} needs ${min} or newer`, hint: `set spec.runtime.source: mirror (installs containerd ${runtimeVersions.containerd}), or enable a repository with containerd ${min}+` });
    else f.push({ check: "runtime", severity: "ok", message: `containerd ${version} ${probe.containerd ? "installed" : "from the host's packages"}` });
  }
  return f;
}

/** Checks across hosts: clock skew (etcd needs clocks within a second) and unique host names. */
export function evaluateCluster(hosts: { name: string; facts: HostFacts }[]): Finding[] {
  const f: Finding[] = [];
  const offsets = hosts.filter((h) => Number.isFinite(h.facts.clockOffsetS));
  if (offsets.length > 1) {
    const min = offsets.reduce((a, b) => (b.facts.clockOffsetS < a.facts.clockOffsetS ? b : a));
    const max = offsets.reduce((a, b) => (b.facts.clockOffsetS > a.facts.clockOffsetS ? b : a));
    const skew = max.facts.clockOffsetS - min.facts.clockOffsetS;
    // Each offset is only known within half its round trip: an error only when two clocks surely differ
    // by a second (the latest earliest-possible time against the earliest latest-possible one).
    const unc = (h: (typeof offsets)[number]) => h.facts.clockUncertaintyS ?? 0;
    const surely = Math.max(...offsets.map((h) => h.facts.clockOffsetS - unc(h))) - Math.min(...offsets.map((h) => h.facts.clockOffsetS + unc(h)));
    const margin = unc(max) + unc(min);
    const ntp = "enable NTP (systemd-timesyncd or chrony) on every host: etcd needs clocks within a second";
    if (surely >= 1) f.push({ check: "clock-skew", severity: "error", message: `clocks differ by ${skew.toFixed(1)} s (${max.name} ahead of ${min.name})`, hint: ntp });
    else if (skew >= 1)
      f.push({
        check: "clock-skew",
        severity: "warning",
        message: `clocks may differ by ${skew.toFixed(1)} s (${max.name} ahead of ${min.name}), measured within ±${margin.toFixed(1)} s: the hosts answered slowly`,
        hint: `${ntp}; check the hosts again when they answer faster for a closer measurement`,
      });
    else f.push({ check: "clock-skew", severity: "ok", message: `clocks agree within ${skew.toFixed(2)} s` });
  }
  const byHostname = new Map<string, string[]>();
  for (const h of hosts) if (h.facts.hostname) byHostname.set(h.facts.hostname, [...(byHostname.get(h.facts.hostname) ?? []), h.name]);
  for (const [hostname, names] of byHostname)
    if (names.length > 1)
      f.push({ check: "hostnames", severity: "error", message: `${names.join(", ")} all report the hostname "${hostname}"`, hint: "node names come from hostnames and must be unique: set one with hostnamectl" });
  return f;
}
