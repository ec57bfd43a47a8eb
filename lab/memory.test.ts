import { spawn } from "node:child_process";
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { createHostCgroups, removeLabCgroups } from "./cgroups";
import { labHostMemory, machineMemoryUsed, parseSmapsRollup } from "./memory";

describe("lab host memory", () => {
  it("reads RSS and PSS from smaps_rollup in bytes", () => {
    const text = "55d0c0000000-7ffd00000000 ---p 00000000 00:00 0 [rollup]\nRss:               51200 kB\nPss:               20480 kB\nPss_Anon:          10240 kB\n";
    expect(parseSmapsRollup(text)).toEqual({ rss: 51200 * 1024, pss: 20480 * 1024 });
  });

  it("sums every process in a host's cgroups, however deep (a container's are below the host's)", async () => {
    // A lab "memt" with one host "h1", and a process two levels below its cgroup (as a pod's container is).
    const procs = createHostCgroups("memt", "h1");
    // One hierarchy is enough: the memory controller's on cgroup v1, the unified one on v2.
    const own = procs.find((p) => p.includes("/memory/")) ?? procs[0]!;
    const deep = own.replace(/cgroup\.procs$/, "kubepods/pod-x/");
    fs.mkdirSync(deep, { recursive: true });
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      fs.writeFileSync(`${deep}cgroup.procs`, String(sleeper.pid));
      const host = { name: "h1", role: "worker" as const, address: "", port: 22, netns: "bdl-memt-h1", iface: "", veth: "", mac: "", dir: "", root: "", binds: [], powerPid: 0, hostKeyFingerprint: "" };
      const [m] = labHostMemory([host]);
      expect(m?.processes).toBe(1);
      expect(m?.pssBytes).toBeGreaterThan(0);
      expect(m!.rssBytes).toBeGreaterThanOrEqual(m!.pssBytes);
    } finally {
      sleeper.kill("SIGKILL");
      await new Promise((r) => sleeper.once("exit", r));
      removeLabCgroups("memt");
    }
  });

  it("reports a host with no process as using nothing, and the machine as using something", () => {
    const [gone] = labHostMemory([{ name: "gone", role: "worker", address: "", port: 22, netns: "bdl-nolab-gone", iface: "", veth: "", mac: "", dir: "", root: "", binds: [], powerPid: 2 ** 22 + 1, hostKeyFingerprint: "" }]);
    expect(gone).toEqual({ name: "gone", role: "worker", processes: 0, rssBytes: 0, pssBytes: 0 });
    expect(machineMemoryUsed()).toBeGreaterThan(0);
  });
});
