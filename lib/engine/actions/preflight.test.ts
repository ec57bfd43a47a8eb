/* eslint-disable @typescript-eslint/no-explicit-any */
import { describe, expect, it } from "vitest";
import type { HostFacts } from "../../clusters/host-facts";
import { FACTS_SCRIPT, parseFacts } from "./facts";
import { capabilitiesFor } from "../../assets/capabilities";
import { validateClusterDefinition } from "../../cluster/definition";
import { exampleDefinition } from "../../cluster/example";
import { evaluateCluster, evaluateHost, parsePreflight, PREFLIGHT_SCRIPT, type PreflightProbe, type PreflightTarget } from "./preflight";

const healthy: PreflightProbe = {
  swapKb: 0,
  ipForward: "1",
  bridgeNf: "1",
  conntrackMax: 262144,
  cgroup: "cgroup2fs",
  init: "systemd",
  arch: "x86_64",
  modules: { overlay: true, br_netfilter: true },
  containerd: null,
  runtimeSocket: false,
  docker: false,
  containerdCandidate: "",
  pkgListsEmpty: false,
  commands: { iptables: true, ip: true, socat: true, nsenter: true, mount: true, ebtables: true, ethtool: true, conntrack: true, curl: true },
  pkgManager: "apt-get",
  listening: [22],
  diskFreeKb: 20 * 1024 * 1024,
};
const severities = (f: ReturnType<typeof evaluateHost>) => Object.fromEntries(f.map((x) => [x.check, x.severity]));

/** A valid definition of the given version, with spec changes applied. */
function target(role: "master" | "worker", version = "v1.36.3", change: (spec: Record<string, any>) => void = () => {}): PreflightTarget {
  const input = exampleDefinition() as any;
  input.spec.kubernetes.version = version;
  change(input.spec);
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return { role, caps: capabilitiesFor(version), def: v.definition };
}
const master = target("master");
const worker = target("worker");

describe("preflight on one host", () => {
  it("passes a healthy host", () => {
    expect(evaluateHost(healthy, master).filter((f) => f.severity !== "ok")).toEqual([]);
  });
  it("stops on swap, with the fix", () => {
    const f = evaluateHost({ ...healthy, swapKb: 2048 * 1024 }, worker).find((x) => x.check === "swap");
    expect(f).toMatchObject({ severity: "error", message: "swap is on (2048 MiB)", hint: expect.stringContaining("swapoff -a") });
  });
  it("checks the ports of the host's role", () => {
    expect(evaluateHost({ ...healthy, listening: [22, 2379] }, master).find((x) => x.check === "ports")).toMatchObject({ severity: "error", message: "port 2379 already in use" });
    expect(evaluateHost({ ...healthy, listening: [2379] }, worker).find((x) => x.check === "ports")).toMatchObject({ severity: "ok", message: "port 10250 is free" });
  });
  it("plans to install missing packages, or stops when it cannot", () => {
    const missing = { ...healthy, commands: { ...healthy.commands, socat: false, conntrack: false } };
    expect(evaluateHost(missing, worker).find((x) => x.check === "packages")?.message).toBe("missing socat, conntrack; they will be installed with apt-get");
    expect(severities(evaluateHost({ ...missing, pkgManager: null }, worker)).packages).toBe("error");
  });
  it("warns on little disk, stops on almost no disk", () => {
    expect(severities(evaluateHost({ ...healthy, diskFreeKb: 1.5 * 1024 * 1024 }, worker)).disk).toBe("warning");
    expect(severities(evaluateHost({ ...healthy, diskFreeKb: 100 * 1024 }, worker)).disk).toBe("error");
  });
  it("stops on a host that is not x86_64", () => {
    expect(evaluateHost({ ...healthy, arch: "aarch64" }, worker).find((x) => x.check === "arch")).toMatchObject({ severity: "error", message: expect.stringContaining("aarch64") });
  });
  it("reads the probe's output", () => {
    const text = "swapKb=0\nipForward=1\nbridgeNf=1\nconntrackMax=262144\ncgroup=cgroup2fs\ninit=systemd\narch=x86_64\nmodule=overlay yes\ncontainerd=/usr/bin/containerd v1.7.24\nruntimeSocket=/run/containerd/containerd.sock\ncontainerdCandidate=(none)\ncmd=socat no\ncmd=ip yes\npkgManager=apt-get\npkgManager=dnf\nlisten=0.0.0.0:22\nlisten=[::]:6443\ndiskFreeKb=1234\n";
    expect(parsePreflight(text)).toEqual({
      ...healthy,
      modules: { overlay: true },
      containerd: { path: "/usr/bin/containerd", version: "1.7.24" },
      runtimeSocket: true,
      commands: { socat: false, ip: true },
      listening: [22, 6443],
      diskFreeKb: 1234,
    });
  });
});

describe("preflight of the container runtime", () => {
  it("refuses cgroup v1 from 1.35 unless the definition allows it, then warns", () => {
    const v1 = { ...healthy, cgroup: "tmpfs" };
    expect(evaluateHost(v1, target("worker", "v1.35.4")).find((x) => x.check === "cgroups")).toMatchObject({ severity: "error", hint: expect.stringContaining("allowCgroupV1: true") });
    const allowed = evaluateHost(v1, target("worker", "v1.35.4", (s) => (s.kubernetes.allowCgroupV1 = true))).find((x) => x.check === "cgroups");
    expect(allowed?.severity).toBe("warning");
    // One warning, one line of the decision banner: a step's warnings are listed split at "; ".
    expect(allowed?.message).toMatch(/^cgroup v1 \(.*\) is deprecated, and the kubelet runs on it only because spec\.kubernetes\.allowCgroupV1 is set$/);
    expect(allowed?.message).not.toContain("; ");
    expect(evaluateHost(v1, target("worker", "v1.34.4")).find((x) => x.check === "cgroups")?.severity).toBe("warning");
  });
  it("stops when the cgroup driver cannot match the host's init", () => {
    expect(evaluateHost({ ...healthy, init: "bootdeck-lab-in" }, worker).find((x) => x.check === "cgroup-driver")).toMatchObject({ severity: "error", hint: expect.stringContaining("cgroupfs") });
    const cgroupfs = target("worker", "v1.36.3", (s) => (s.runtime = { cgroupDriver: "cgroupfs" }));
    expect(evaluateHost({ ...healthy, init: "bootdeck-lab-in" }, cgroupfs).find((x) => x.check === "cgroup-driver")?.severity).toBe("ok");
    expect(evaluateHost(healthy, cgroupfs).find((x) => x.check === "cgroup-driver")?.severity).toBe("warning");
  });
  it("needs the kernel modules containerd and pod networking use", () => {
    expect(severities(evaluateHost({ ...healthy, modules: { overlay: true } }, worker))["module-br_netfilter"]).toBe("error");
  });
  it("refuses a packaged containerd beside the one it installs from the mirror", () => {
    const f = evaluateHost({ ...healthy, containerd: { path: "/usr/bin/containerd", version: "1.6.20" } }, worker).find((x) => x.check === "runtime");
    expect(f).toMatchObject({ severity: "error", hint: expect.stringContaining("source: packages") });
    expect(evaluateHost({ ...healthy, containerd: { path: "/usr/local/bin/containerd", version: "2.4.2" } }, worker).find((x) => x.check === "runtime")?.severity).toBe("ok");
  });
  it("refuses packages that would bring a containerd too old for the kubelet", () => {
    const packages = (version: string) => target("worker", version, (s) => (s.runtime = { source: "packages" }));
    expect(evaluateHost({ ...healthy, containerdCandidate: "1.6.20~ds1-1+b1" }, packages("v1.36.3")).find((x) => x.check === "runtime")).toMatchObject({ severity: "error", message: expect.stringContaining("needs 2.0.0") });
    expect(evaluateHost({ ...healthy, containerdCandidate: "1.7.24~ds1-1" }, packages("v1.35.4")).find((x) => x.check === "runtime")?.severity).toBe("ok");
    expect(evaluateHost(healthy, packages("v1.36.3")).find((x) => x.check === "runtime")?.severity).toBe("error");
  });
  it("on a host whose apt never updated its lists, says the packaged containerd is not known yet instead of refusing", () => {
    const packages = target("worker", "v1.36.3", (s) => (s.runtime = { source: "packages" }));
    expect(evaluateHost({ ...healthy, pkgListsEmpty: true }, packages).find((x) => x.check === "runtime")).toMatchObject({ severity: "warning", message: expect.stringContaining("package lists are empty") });
    expect(parsePreflight("containerdCandidate=\npkgListsEmpty=yes\n").pkgListsEmpty).toBe(true);
    expect(parsePreflight("containerdCandidate=2.1.3~ds1-1\n").pkgListsEmpty).toBe(false);
  });
  it("warns when the connection-tracking table is small for kube-proxy, which leaves it to the host", () => {
    expect(evaluateHost({ ...healthy, conntrackMax: 65536 }, worker).find((x) => x.check === "conntrack")).toMatchObject({ severity: "warning", hint: expect.stringContaining("nf_conntrack_max = 131072") });
    expect(evaluateHost({ ...healthy, conntrackMax: Number.NaN }, worker).find((x) => x.check === "conntrack")).toBeUndefined();
  });
  it("says the runtime phase will set the sysctls that are off", () => {
    expect(evaluateHost({ ...healthy, ipForward: "0", bridgeNf: "" }, worker).find((x) => x.check === "sysctls")?.message).toMatch(/runtime phase sets them/);
  });
});

describe("preflight across hosts", () => {
  const facts = (hostname: string, clockOffsetS: number, clockUncertaintyS = 0.01): HostFacts => ({ ...parseFacts("", 0, 0), hostname, clockOffsetS, clockUncertaintyS });
  it("stops when clocks differ by a second or more, naming the hosts", () => {
    const f = evaluateCluster([
      { name: "m1", facts: facts("m1", 0.1) },
      { name: "m2", facts: facts("m2", 1.3) },
    ]);
    expect(f).toEqual([expect.objectContaining({ check: "clock-skew", severity: "error", message: "clocks differ by 1.2 s (m2 ahead of m1)" })]);
  });
  it("only warns when slow round trips leave the clocks possibly within a second of each other", () => {
    const f = evaluateCluster([
      { name: "m1", facts: facts("m1", 0.1, 0.4) },
      { name: "m2", facts: facts("m2", 1.3, 0.3) },
    ]);
    expect(f).toEqual([expect.objectContaining({ check: "clock-skew", severity: "warning", message: "clocks may differ by 1.2 s (m2 ahead of m1), measured within ±0.7 s: the hosts answered slowly" })]);
  });
  it("stops when two hosts measured closely differ by a second, whatever a slow host's margin", () => {
    const f = evaluateCluster([
      { name: "m1", facts: facts("m1", 0, 0.05) },
      { name: "m2", facts: facts("m2", 1.2, 0.05) },
      { name: "m3", facts: facts("m3", 1.4, 0.9) },
    ]);
    expect(f[0]).toMatchObject({ check: "clock-skew", severity: "error", message: "clocks differ by 1.4 s (m3 ahead of m1)" });
  });
  it("stops when the clocks differ by more than the measurement's margin and a second", () => {
    const f = evaluateCluster([
      { name: "m1", facts: facts("m1", 0, 0.4) },
      { name: "m2", facts: facts("m2", 1.5, 0.05) },
    ]);
    expect(f[0]).toMatchObject({ check: "clock-skew", severity: "error" });
  });
  it("stops on duplicate hostnames", () => {
    const f = evaluateCluster([
      { name: "a", facts: facts("node", 0) },
      { name: "b", facts: facts("node", 0) },
    ]);
    expect(f.find((x) => x.check === "hostnames")?.message).toBe('a, b all report the hostname "node"');
  });
});

describe("facts", () => {
  it("parses the probe and discounts half the round trip from the clock offset", () => {
    const f = parseFacts("os=Debian GNU/Linux 12 (bookworm)\nosId=debian\nkernel=6.1.0\narch=x86_64\nhostname=m1\ninit=systemd\ncpus=4\nmemKb=100\naddress=eth0 10.0.0.5/24\ntime=1000.500\n", 1_000_000, 1_000_200);
    expect(f).toMatchObject({ os: "Debian GNU/Linux 12 (bookworm)", hostname: "m1", cpus: 4, addresses: [{ iface: "eth0", cidr: "10.0.0.5/24" }], clockOffsetS: 0.4, clockUncertaintyS: 0.1 });
  });
});

describe("the scripts sent to hosts (golden)", () => {
  it("are exactly these texts", () => {
    expect(FACTS_SCRIPT).toMatchSnapshot();
    expect(PREFLIGHT_SCRIPT).toMatchSnapshot();
  });
});
