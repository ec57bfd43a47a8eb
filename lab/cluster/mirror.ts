// The lab's binary mirror, laid out like the upstream download sites so that a real mirror is too:
//   /dl.k8s.io/release/<version>/bin/linux/amd64/<name> (+ <name>.sha256)          Kubernetes
//   /github.com/<owner>/<repo>/releases/download/<tag>/<file> (+ its checksum file)  containerd, runc, crictl, CNI plugins
// Kubernetes versions with real binaries serve what `bootdeck lab binaries` built (found in the cache
// on each request, so a build finished after `lab up` is served at once); the 1.5 legacy profile
// serves the kubelet stand-in (a one-file script running the lab kubelet; see docs/lab-cluster.md) as
// its hyperkube and kubelet, and this machine's kubectl. Tarballs are made once, reproducibly, into
// the cache. The product downloads all of it exactly as from a real mirror. Test bed only.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { runtimeVersions } from "../../lib/cluster/runtime-versions";
import { findVersionProfile } from "../../lib/cluster/versions";
import { CACHE_DIR } from "../config";
import { cachedComponent } from "../upstream/build";
import { cniPluginsComponent, containerdComponent, crictlComponent, kubernetesComponent, runcComponent, type Component } from "../upstream/components";
import { hostStandIn, MIRROR_PORT } from "./host-runtime";

export const K8S_RELEASE_PATH = "/dl.k8s.io/release";
export const GITHUB_PATH = "/github.com";
const TARBALLS = path.join(CACHE_DIR, "mirror-tarballs");

export function kubeletScript(version: string, hyperkube = false): string {
  return [
    "#!/bin/sh",
    `# bootdeck lab kubelet stand-in, version profile ${version} (not a real kubelet: see docs/lab-cluster.md)`,
    `BOOTDECK_LAB_K8S_VERSION=${version}`,
    "export BOOTDECK_LAB_K8S_VERSION",
    `exec ${hostStandIn(hyperkube ? "hyperkube" : "kubelet")} "$@"`,
    "",
  ].join("\n");
}

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
  const profile = findVersionProfile(version);
  if (!profile) return undefined;
  if (profile.hyperkube) {
    if (name === "kubelet") return Buffer.from(kubeletScript(version));
    if (name === "hyperkube") return Buffer.from(kubeletScript(version, true));
    if (name === "kubectl") return { file: "/usr/bin/kubectl" };
    return undefined;
  }
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

if (require.main === module) {
  const [host = "127.0.0.1", port = String(MIRROR_PORT)] = process.argv.slice(2);
  createMirror().listen(Number(port), host, () => process.stderr.write(`lab binary mirror on http://${host}:${port}${K8S_RELEASE_PATH} and ${GITHUB_PATH}\n`));
}
