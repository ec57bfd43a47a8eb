// Phase 2: preflight. Read-only checks on every host, in one exec each, then checks across hosts.
// Each finding has a severity and a hint; errors stop the run before anything is changed.
import type { HostFacts } from "./facts";

export const PREFLIGHT_SCRIPT = `echo "swapKb=$(awk 'NR > 1 {s += $3} END {print s + 0}' /proc/swaps 2>/dev/null)"
echo "ipForward=$(cat /proc/sys/net/ipv4/ip_forward 2>/dev/null)"
echo "cgroup=$(stat -fc %T /sys/fs/cgroup 2>/dev/null)"
for c in iptables ip socat nsenter mount ebtables ethtool conntrack; do
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
};

/** "command=package" pairs, the packages phase's arguments. */
export const packagePairs = () => Object.entries(kubeletHostPackages).map(([cmd, pkg]) => `${cmd}=${pkg}`);

export type Severity = "error" | "warning" | "ok";
export type Finding = { check: string; severity: Severity; message: string; hint?: string };

export type PreflightProbe = {
  swapKb: number;
  ipForward: string;
  cgroup: string;
  commands: Record<string, boolean>;
  pkgManager: string | null;
  listening: number[];
  diskFreeKb: number;
};

export function parsePreflight(text: string): PreflightProbe {
  const probe: PreflightProbe = { swapKb: 0, ipForward: "", cgroup: "", commands: {}, pkgManager: null, listening: [], diskFreeKb: Number.NaN };
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq < 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1).trim();
    if (key === "swapKb") probe.swapKb = Number(value) || 0;
    else if (key === "ipForward") probe.ipForward = value;
    else if (key === "cgroup") probe.cgroup = value;
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

export function evaluateHost(probe: PreflightProbe, role: "master" | "worker"): Finding[] {
  const f: Finding[] = [];
  if (probe.swapKb > 0)
    f.push({ check: "swap", severity: "error", message: `swap is on (${Math.round(probe.swapKb / 1024)} MiB)`, hint: "run `swapoff -a` and remove swap entries from /etc/fstab: the kubelet refuses to start with swap on" });
  else f.push({ check: "swap", severity: "ok", message: "swap is off" });

  const taken = requiredPorts(role).filter((p) => probe.listening.includes(p));
  if (taken.length)
    f.push({ check: "ports", severity: "error", message: `port${taken.length > 1 ? "s" : ""} ${taken.join(", ")} already in use`, hint: `find the owner with \`ss -ltnp 'sport = :${taken[0]}'\`; if it is an earlier install, reset the host first` });
  else f.push({ check: "ports", severity: "ok", message: `ports ${requiredPorts(role).join(", ")} are free` });

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

  if (probe.ipForward !== "1")
    f.push({ check: "ip-forward", severity: "warning", message: "IPv4 forwarding is off", hint: "pod traffic needs it: `sysctl -w net.ipv4.ip_forward=1` and persist it in /etc/sysctl.d" });
  if (probe.cgroup && probe.cgroup !== "cgroup2fs")
    f.push({ check: "cgroups", severity: "warning", message: `cgroup v1 (${probe.cgroup}) is in use`, hint: "Kubernetes 1.31+ prefers cgroup v2 (systemd.unified_cgroup_hierarchy=1)" });
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
    if (skew >= 1)
      f.push({ check: "clock-skew", severity: "error", message: `clocks differ by ${skew.toFixed(1)} s (${max.name} ahead of ${min.name})`, hint: "enable NTP (systemd-timesyncd or chrony) on every host: etcd needs clocks within a second" });
    else f.push({ check: "clock-skew", severity: "ok", message: `clocks agree within ${skew.toFixed(2)} s` });
  }
  const byHostname = new Map<string, string[]>();
  for (const h of hosts) if (h.facts.hostname) byHostname.set(h.facts.hostname, [...(byHostname.get(h.facts.hostname) ?? []), h.name]);
  for (const [hostname, names] of byHostname)
    if (names.length > 1)
      f.push({ check: "hostnames", severity: "error", message: `${names.join(", ")} all report the hostname "${hostname}"`, hint: "node names come from hostnames and must be unique: set one with hostnamectl" });
  return f;
}
