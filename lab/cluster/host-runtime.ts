// What a lab host needs to run the cluster stand-ins: this machine's Node and this repository,
// bind-mounted read-only at /opt/bootdeck-lab, and the stand-in commands (systemctl, journalctl,
// crictl) in /usr/local/bin. Called by lab.ts for each host root before the host starts. Test bed only.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export const LAB_RUNTIME = "/opt/bootdeck-lab";
/** The lab mirror's port on the bridge (lab/cluster/mirror.ts serves it). */
export const MIRROR_PORT = 8780;
export const REPO_ROOT = path.resolve(__dirname, "..", "..");

/** The command line (inside a host) that runs a stand-in component. */
export function hostStandIn(component: string): string {
  return `${LAB_RUNTIME}/node --import ${LAB_RUNTIME}/repo/node_modules/tsx/dist/loader.mjs ${LAB_RUNTIME}/repo/lab/cluster/main.ts ${component}`;
}

export function prepareHostRuntime(root: string): void {
  const dir = path.join(root, LAB_RUNTIME.slice(1));
  fs.mkdirSync(path.join(dir, "repo"), { recursive: true });
  fs.writeFileSync(path.join(dir, "node"), "");
  execFileSync("mount", ["--bind", process.execPath, path.join(dir, "node")]);
  execFileSync("mount", ["-o", "remount,bind,ro", path.join(dir, "node")]);
  execFileSync("mount", ["--bind", REPO_ROOT, path.join(dir, "repo")]);
  execFileSync("mount", ["-o", "remount,bind,ro", path.join(dir, "repo")]);
  const bin = path.join(root, "usr/local/bin");
  fs.mkdirSync(bin, { recursive: true });
  for (const c of ["systemctl", "journalctl", "crictl"])
    fs.writeFileSync(path.join(bin, c), `#!/bin/sh\n# bootdeck lab stand-in for ${c} (see docs/lab-cluster.md)\nexec ${hostStandIn(c)} "$@"\n`, { mode: 0o755 });
}

/** Starts the binary mirror for a lab (a detached process on the lab bridge); returns its base URL. */
export function startMirror(labDir: string, gateway: string, port = MIRROR_PORT): string {
  const log = fs.openSync(path.join(labDir, "mirror.log"), "a");
  const child = spawn(process.execPath, ["--import", path.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs"), path.join(REPO_ROOT, "lab/cluster/mirror.ts"), gateway, String(port)], {
    detached: true,
    stdio: ["ignore", log, log],
  });
  child.unref();
  fs.closeSync(log);
  fs.writeFileSync(path.join(labDir, "mirror.pid"), String(child.pid));
  const base = `http://${gateway}:${port}`;
  // Ready when it answers (starting Node with tsx takes seconds on a busy machine).
  const deadline = Date.now() + 60_000;
  while (spawnSync("curl", ["-sf", "-o", "/dev/null", "--max-time", "2", `${base}/healthz`]).status !== 0) {
    if (Date.now() > deadline) throw new Error(`the lab binary mirror did not answer on ${base} (see ${path.join(labDir, "mirror.log")})`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  return base;
}

export function stopMirror(labDir: string): void {
  const f = path.join(labDir, "mirror.pid");
  if (!fs.existsSync(f)) return;
  const pid = Number(fs.readFileSync(f, "utf8"));
  try {
    if (pid > 0 && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("lab/cluster/mirror.ts")) process.kill(pid, "SIGTERM");
  } catch {
    /* already gone */
  }
}

/**
 * KWOK-style virtual nodes (scale tests) against a lab cluster's API, in the background:
 * one process registers `count` Nodes and keeps them Ready. Stopped by `lab down` (or again with 0).
 * With `wait`, the process waits for the first of `kubeconfigs` to exist and answer (a cluster bootstrapped later).
 */
export function startVirtualNodes(labDir: string, kubeconfigs: readonly string[], count: number, opts: { wait?: boolean } = {}): number {
  stopVirtualNodes(labDir);
  if (count <= 0) return 0;
  const log = fs.openSync(path.join(labDir, "virtual-nodes.log"), "a");
  const child = spawn(process.execPath, ["--import", path.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs"), path.join(REPO_ROOT, "lab/cluster/main.ts"), "virtual-nodes", ...kubeconfigs.map((k) => `--kubeconfig=${k}`), `--count=${count}`, ...(opts.wait ? ["--wait"] : [])], {
    detached: true,
    stdio: ["ignore", log, log],
  });
  child.unref();
  fs.closeSync(log);
  fs.writeFileSync(path.join(labDir, "virtual-nodes.pid"), String(child.pid));
  return child.pid ?? 0;
}

export function stopVirtualNodes(labDir: string): void {
  const f = path.join(labDir, "virtual-nodes.pid");
  if (!fs.existsSync(f)) return;
  const pid = Number(fs.readFileSync(f, "utf8"));
  try {
    if (pid > 0 && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("virtual-nodes")) process.kill(pid, "SIGTERM");
  } catch {
    // already gone
  }
  fs.rmSync(f, { force: true });
}
