import { describe, expect, it } from "vitest";
import { FACTS_SCRIPT, parseFacts, type HostFacts } from "./facts";
import { evaluateCluster, evaluateHost, parsePreflight, PREFLIGHT_SCRIPT, type PreflightProbe } from "./preflight";

const healthy: PreflightProbe = {
  swapKb: 0,
  ipForward: "1",
  cgroup: "cgroup2fs",
  commands: { iptables: true, ip: true, socat: true, nsenter: true, mount: true, ebtables: true, ethtool: true, conntrack: true },
  pkgManager: "apt-get",
  listening: [22],
  diskFreeKb: 20 * 1024 * 1024,
};
const severities = (f: ReturnType<typeof evaluateHost>) => Object.fromEntries(f.map((x) => [x.check, x.severity]));

describe("preflight on one host", () => {
  it("passes a healthy host", () => {
    expect(evaluateHost(healthy, "master").filter((f) => f.severity !== "ok")).toEqual([]);
  });
  it("stops on swap, with the fix", () => {
    const f = evaluateHost({ ...healthy, swapKb: 2048 * 1024 }, "worker").find((x) => x.check === "swap");
    expect(f).toMatchObject({ severity: "error", message: "swap is on (2048 MiB)", hint: expect.stringContaining("swapoff -a") });
  });
  it("checks the ports of the host's role", () => {
    expect(evaluateHost({ ...healthy, listening: [22, 2379] }, "master").find((x) => x.check === "ports")).toMatchObject({ severity: "error", message: "port 2379 already in use" });
    expect(severities(evaluateHost({ ...healthy, listening: [2379] }, "worker")).ports).toBe("ok");
  });
  it("plans to install missing packages, or stops when it cannot", () => {
    const missing = { ...healthy, commands: { ...healthy.commands, socat: false, conntrack: false } };
    expect(evaluateHost(missing, "worker").find((x) => x.check === "packages")?.message).toBe("missing socat, conntrack; they will be installed with apt-get");
    expect(severities(evaluateHost({ ...missing, pkgManager: null }, "worker")).packages).toBe("error");
  });
  it("warns on little disk, forwarding off and cgroup v1; stops on almost no disk", () => {
    const s = severities(evaluateHost({ ...healthy, diskFreeKb: 1.5 * 1024 * 1024, ipForward: "0", cgroup: "tmpfs" }, "worker"));
    expect(s).toMatchObject({ disk: "warning", "ip-forward": "warning", cgroups: "warning" });
    expect(severities(evaluateHost({ ...healthy, diskFreeKb: 100 * 1024 }, "worker")).disk).toBe("error");
  });
  it("reads the probe's output", () => {
    const text = "swapKb=0\nipForward=1\ncgroup=cgroup2fs\ncmd=socat no\ncmd=ip yes\npkgManager=apt-get\npkgManager=dnf\nlisten=0.0.0.0:22\nlisten=[::]:6443\ndiskFreeKb=1234\n";
    expect(parsePreflight(text)).toEqual({ swapKb: 0, ipForward: "1", cgroup: "cgroup2fs", commands: { socat: false, ip: true }, pkgManager: "apt-get", listening: [22, 6443], diskFreeKb: 1234 });
  });
});

describe("preflight across hosts", () => {
  const facts = (hostname: string, clockOffsetS: number): HostFacts => ({ ...parseFacts("", 0, 0), hostname, clockOffsetS });
  it("stops when clocks differ by a second or more, naming the hosts", () => {
    const f = evaluateCluster([
      { name: "m1", facts: facts("m1", 0.1) },
      { name: "m2", facts: facts("m2", 1.3) },
    ]);
    expect(f).toEqual([expect.objectContaining({ check: "clock-skew", severity: "error", message: "clocks differ by 1.2 s (m2 ahead of m1)" })]);
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
    expect(f).toMatchObject({ os: "Debian GNU/Linux 12 (bookworm)", hostname: "m1", cpus: 4, addresses: [{ iface: "eth0", cidr: "10.0.0.5/24" }], clockOffsetS: 0.4 });
  });
});

describe("the scripts sent to hosts (golden)", () => {
  it("are exactly these texts", () => {
    expect(FACTS_SCRIPT).toMatchSnapshot();
    expect(PREFLIGHT_SCRIPT).toMatchSnapshot();
  });
});
