// A reset must leave no container running: one the runtime failed to remove (a busy host's etcd that
// outlasted crictl's deadline) outlives containerd and its shim and keeps its port, so the next
// bootstrap's preflight would refuse the host. Runs the reset's real fragment under /bin/sh against a
// temporary directory standing in for /sys/fs/cgroup, with real processes listed in its cgroups.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KILL_POD_LEFTOVERS, RESET_SCRIPT } from "./host-scripts";

const root = mkdtempSync(path.join(tmpdir(), "bootdeck-cgroups-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

function sleeper(): ChildProcess {
  const c = spawn("sleep", ["120"], { stdio: "ignore" });
  children.push(c);
  return c;
}

function inCgroup(dir: string, ...pids: number[]) {
  mkdirSync(path.join(root, dir), { recursive: true });
  writeFileSync(path.join(root, dir, "cgroup.procs"), pids.map((p) => `${p}\n`).join(""));
}

function sh(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn("/bin/sh", ["-c", script.replaceAll("/sys/fs/cgroup", root)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (c: Buffer) => (out += c.toString()));
    p.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
  });
}

const exited = (c: ChildProcess) => new Promise<string | null>((r) => (c.exitCode !== null || c.signalCode !== null ? r(c.signalCode) : c.once("exit", (_code, signal) => r(signal))));

describe("a reset's sweep of the pods' cgroups", () => {
  it("is part of the reset, after containerd and its shims are stopped", () => {
    const at = RESET_SCRIPT.indexOf(KILL_POD_LEFTOVERS);
    expect(at).toBeGreaterThan(RESET_SCRIPT.indexOf("pkill -f '[c]ontainerd-shim'"));
  });

  it("kills every process left in a pod's cgroup, in any hierarchy and driver layout, and nothing else", async () => {
    const etcd = sleeper();
    const apiserver = sleeper();
    const sshd = sleeper();
    // cgroup v1 lists a process once per hierarchy; the systemd driver nests kubepods.slice.
    inCgroup("cpu/kubepods/burstable/pod1/c1", etcd.pid!);
    inCgroup("memory/kubepods/burstable/pod1/c1", etcd.pid!);
    inCgroup("unified/kubepods.slice/kubepods-besteffort.slice/cri-c2.scope", apiserver.pid!);
    inCgroup("cpu/system.slice/ssh.service", sshd.pid!);
    const out = await sh(KILL_POD_LEFTOVERS);
    expect(out.trim()).toBe("bootdeck-reset killed 2 container processes the runtime left behind");
    expect(await exited(etcd)).toBe("SIGKILL");
    expect(await exited(apiserver)).toBe("SIGKILL");
    expect(sshd.exitCode === null && sshd.signalCode === null).toBe(true);
  });

  it("says nothing when the runtime left nothing", async () => {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(path.join(root, "cpu/kubepods"), { recursive: true });
    writeFileSync(path.join(root, "cpu/kubepods/cgroup.procs"), "");
    expect(await sh(KILL_POD_LEFTOVERS)).toBe("");
  });
});
