// The lab's binary mirror, laid out like the upstream download sites so that a real mirror is too:
//   /dl.k8s.io/release/<version>/bin/linux/amd64/<name> (+ <name>.sha256)          Kubernetes
//   /github.com/<owner>/<repo>/releases/download/<tag>/<file> (+ its checksum file)  containerd, runc, crictl, CNI plugins
// It serves what `bootdeck lab binaries` built (found in the cache on each request, so a build finished
// after `lab up` is served at once). Tarballs are made once, reproducibly, into the cache. The product
// downloads all of it exactly as from a real mirror. Test bed only.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { runtimeVersions } from "../lib/cluster/runtime-versions";
import { findVersionProfile } from "../lib/cluster/versions";
import { CACHE_DIR, REPO_ROOT } from "./config";
import { cachedComponent } from "./upstream/build";
import { cniPluginsComponent, containerdComponent, crictlComponent, kubernetesComponent, runcComponent, type Component } from "./upstream/components";

export const K8S_RELEASE_PATH = "/dl.k8s.io/release";
export const GITHUB_PATH = "/github.com";
/** The mirror's port on the lab bridge. */
export const MIRROR_PORT = 8780;
const TARBALLS = path.join(CACHE_DIR, "mirror-tarballs");

const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

type Body = Buffer | { file: string };

function builtBinary(c: Component, name: string): string | undefined {
  return cachedComponent(c)?.binaries[name]?.path;
}

/** A reproducible .tar.gz of files (tar name → source), made once. */
function tarball(name: string, files: Record<string, string>): string {
  const out = path.join(TARBALLS, name);
  if (fs.existsSync(out)) return out;
  const stage = `${out}.stage`;
  fs.rmSync(stage, { recursive: true, force: true });
  for (const [rel, src] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(stage, rel)), { recursive: true });
    fs.copyFileSync(src, path.join(stage, rel));
    fs.chmodSync(path.join(stage, rel), 0o755);
  }
  const tar = spawnSync("sh", ["-c", 'cd "$1" && tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - . | gzip -n > "$2.partial" && mv "$2.partial" "$2"', "tarball", stage, out]);
  fs.rmSync(stage, { recursive: true, force: true });
  if (tar.status !== 0) throw new Error(`making ${name}: ${tar.stderr.toString()}`);
  return out;
}

/** The Kubernetes release files of a version, or undefined when none can be served. */
function kubernetesFile(version: string, name: string): Body | undefined {
  if (!findVersionProfile(version)) return undefined;
  const p = builtBinary(kubernetesComponent(version), name);
  return p ? { file: p } : undefined;
}

/** GitHub release files of the runtime Bootdeck installs, as their projects publish them. */
function githubFile(rel: string): Body | undefined {
  const v = runtimeVersions;
  const containerd = `containerd/containerd/releases/download/v${v.containerd}/containerd-${v.containerd}-linux-amd64.tar.gz`;
  const runc = `opencontainers/runc/releases/download/v${v.runc}/runc.amd64`;
  const crictl = `kubernetes-sigs/cri-tools/releases/download/${v.crictl}/crictl-${v.crictl}-linux-amd64.tar.gz`;
  const cni = `containernetworking/plugins/releases/download/${v.cniPlugins}/cni-plugins-linux-amd64-${v.cniPlugins}.tgz`;
  const bins = (c: Component, names: string[], dir = "") => {
    const out: Record<string, string> = {};
    for (const n of names) {
      const p = builtBinary(c, n);
      if (!p) return undefined;
      out[`${dir}${n}`] = p;
    }
    return out;
  };
  const file = (p: string | undefined): Body | undefined => (p ? { file: p } : undefined);
  switch (rel) {
    case containerd: {
      const files = bins(containerdComponent(), ["containerd", "containerd-shim-runc-v2", "ctr"], "bin/");
      return files ? { file: tarball(path.basename(containerd), files) } : undefined;
    }
    case runc:
      return file(builtBinary(runcComponent(), "runc"));
    case crictl: {
      const files = bins(crictlComponent(), ["crictl"]);
      return files ? { file: tarball(path.basename(crictl), files) } : undefined;
    }
    case cni: {
      const files = bins(cniPluginsComponent(), ["bridge", "host-local", "loopback", "portmap"]);
      return files ? { file: tarball(path.basename(cni), files) } : undefined;
    }
  }
  // Checksums, each in its project's own format.
  const digest = (target: string) => {
    const b = githubFile(target);
    return b ? sha(Buffer.isBuffer(b) ? b : fs.readFileSync(b.file)) : undefined;
  };
  const sumLine = (target: string) => {
    const d = digest(target);
    return d ? Buffer.from(`${d}  ${path.basename(target)}\n`) : undefined;
  };
  if (rel === `${containerd}.sha256sum`) return sumLine(containerd);
  if (rel === `${path.dirname(runc)}/runc.sha256sum`) return sumLine(runc);
  if (rel === `${crictl}.sha256`) return sumLine(crictl);
  if (rel === `${cni}.sha256`) return sumLine(cni);
  return undefined;
}

/** What the mirror answers for a URL path, or undefined (404). */
export function mirrorBody(urlPath: string): Body | undefined {
  const k8s = new RegExp(`^${K8S_RELEASE_PATH}/(v\\d+\\.\\d+\\.\\d+)/bin/linux/amd64/([A-Za-z0-9.-]+)$`).exec(urlPath);
  if (k8s) {
    const [, version = "", name = ""] = k8s;
    if (name.endsWith(".sha256")) {
      const b = kubernetesFile(version, name.slice(0, -".sha256".length));
      // dl.k8s.io publishes a bare digest.
      return b ? Buffer.from(sha(Buffer.isBuffer(b) ? b : fs.readFileSync(b.file))) : undefined;
    }
    return kubernetesFile(version, name);
  }
  if (urlPath.startsWith(`${GITHUB_PATH}/`) && !urlPath.includes("..")) return githubFile(urlPath.slice(GITHUB_PATH.length + 1));
  return undefined;
}

export function createMirror(): http.Server {
  return http.createServer((req, res) => {
    let body: Body | undefined;
    try {
      const urlPath = new URL(req.url ?? "/", "http://mirror").pathname;
      body = urlPath === "/healthz" ? Buffer.from("ok\n") : mirrorBody(urlPath);
    } catch (err) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(`${err instanceof Error ? err.message : String(err)}\n`);
      return;
    }
    if (!body) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("404 Not Found\n");
      return;
    }
    const size = Buffer.isBuffer(body) ? body.length : fs.statSync(body.file).size;
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": size });
    if (req.method === "HEAD") res.end();
    else if (Buffer.isBuffer(body)) res.end(body);
    else fs.createReadStream(body.file).pipe(res);
  });
}

/** Starts the binary mirror for a lab (a detached process on the lab bridge); returns its base URL. */
export function startMirror(labDir: string, gateway: string, port = MIRROR_PORT): string {
  const log = fs.openSync(path.join(labDir, "mirror.log"), "a");
  const child = spawn(process.execPath, ["--import", path.join(REPO_ROOT, "node_modules/tsx/dist/loader.mjs"), path.join(REPO_ROOT, "lab/mirror.ts"), gateway, String(port)], {
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
    if (pid > 0 && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("lab/mirror.ts")) process.kill(pid, "SIGTERM");
  } catch {
    /* already gone */
  }
}

if (require.main === module) {
  const [host = "127.0.0.1", port = String(MIRROR_PORT)] = process.argv.slice(2);
  createMirror().listen(Number(port), host, () => process.stderr.write(`lab binary mirror on http://${host}:${port}${K8S_RELEASE_PATH} and ${GITHUB_PATH}\n`));
}
