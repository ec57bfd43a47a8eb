// Phase 1: gather facts. One exec per host; a fixed script (golden-tested) prints key=value lines.
import type { HostFacts } from "../../clusters/host-facts";

export const FACTS_SCRIPT = `. /etc/os-release 2>/dev/null
echo "os=\${PRETTY_NAME:-unknown}"
echo "osId=\${ID:-unknown}"
echo "kernel=$(uname -r)"
echo "arch=$(uname -m)"
echo "hostname=$(hostname)"
echo "init=$(cat /proc/1/comm 2>/dev/null)"
echo "cpus=$(nproc 2>/dev/null)"
echo "memKb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
ip -o addr show scope global 2>/dev/null | awk '{print "address=" $2 " " $4}'
echo "time=$(date +%s.%N)"`;

/** key=value lines → facts; `sentAt`/`receivedAt` (ms) let the clock offset discount the round trip. */
export function parseFacts(text: string, sentAt: number, receivedAt: number): HostFacts {
  const one = new Map<string, string>();
  const addresses: HostFacts["addresses"] = [];
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq < 0) continue;
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1).trim();
    if (key === "address") {
      const [iface, cidr] = value.split(" ");
      if (iface && cidr) addresses.push({ iface, cidr });
    } else one.set(key, value);
  }
  const hostTime = Number(one.get("time") ?? "NaN") * 1000;
  const midpoint = (sentAt + receivedAt) / 2;
  return {
    os: one.get("os") ?? "unknown",
    osId: one.get("osId") ?? "unknown",
    kernel: one.get("kernel") ?? "unknown",
    arch: one.get("arch") ?? "unknown",
    hostname: one.get("hostname") ?? "",
    init: one.get("init") ?? "unknown",
    cpus: Number(one.get("cpus") ?? 0),
    memKb: Number(one.get("memKb") ?? 0),
    addresses,
    clockOffsetS: Number.isFinite(hostTime) ? Math.round(hostTime - midpoint) / 1000 : Number.NaN,
    clockUncertaintyS: Math.round((receivedAt - sentAt) / 2) / 1000,
    gatheredAt: new Date(receivedAt).toISOString(),
  };
}
