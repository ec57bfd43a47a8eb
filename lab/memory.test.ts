import { describe, expect, it } from "vitest";
import { labHostMemory, machineMemoryUsed, parseSmapsRollup } from "./memory";

describe("lab host memory", () => {
  it("reads RSS and PSS from smaps_rollup in bytes", () => {
    const text = "55d0c0000000-7ffd00000000 ---p 00000000 00:00 0 [rollup]\nRss:               51200 kB\nPss:               20480 kB\nPss_Anon:          10240 kB\n";
    expect(parseSmapsRollup(text)).toEqual({ rss: 51200 * 1024, pss: 20480 * 1024 });
  });

  it("sums every process of a host's PID namespace (here: this test's own namespace)", () => {
    const [me] = labHostMemory([{ name: "self", role: "host", address: "", port: 22, netns: "", iface: "", veth: "", dir: "", root: "", initPid: process.pid, hostKeyFingerprint: "" }]);
    expect(me?.processes).toBeGreaterThan(0);
    expect(me?.pssBytes).toBeGreaterThan(0);
    expect(me!.rssBytes).toBeGreaterThanOrEqual(me!.pssBytes);
  });

  it("reports a host whose init is gone as using nothing, and the machine as using something", () => {
    const [gone] = labHostMemory([{ name: "gone", role: "worker", address: "", port: 22, netns: "", iface: "", veth: "", dir: "", root: "", initPid: 2 ** 22 + 1, hostKeyFingerprint: "" }]);
    expect(gone).toEqual({ name: "gone", role: "worker", processes: 0, rssBytes: 0, pssBytes: 0 });
    expect(machineMemoryUsed()).toBeGreaterThan(0);
  });
});
