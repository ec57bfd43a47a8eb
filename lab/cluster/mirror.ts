// The lab's binary mirror: serves, per version, `kubelet` (the stand-in: a one-file shell script that
// runs the lab kubelet with that version profile; `hyperkube` for the 1.5 profile) and `kubectl` (the
// real client on this machine), each with a `.sha256` file and a SHA256SUMS list, under
// http://<bridge>:8780/kubernetes/<version>/. The product downloads them from the definition's binary
// base URL exactly as from a real mirror. Test bed only.
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { findVersionProfile } from "../../lib/cluster/versions";
import { hostStandIn } from "./host-runtime";

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

/** The files for one version, or undefined when no profile serves it. */
export function mirrorFiles(version: string): Map<string, Buffer> | undefined {
  const profile = findVersionProfile(version);
  if (!profile) return undefined;
  const files = new Map<string, Buffer>();
  files.set("kubelet", Buffer.from(kubeletScript(version)));
  if (profile.hyperkube) files.set("hyperkube", Buffer.from(kubeletScript(version, true)));
  files.set("kubectl", fs.readFileSync("/usr/bin/kubectl"));
  for (const [n, b] of [...files]) files.set(`${n}.sha256`, Buffer.from(`${sha(b)}\n`));
  files.set("SHA256SUMS", Buffer.from([...files].filter(([n]) => !n.endsWith(".sha256")).map(([n, b]) => `${sha(b)}  ${n}\n`).join("")));
  return files;
}

export function createMirror(): http.Server {
  const cache = new Map<string, Map<string, Buffer> | undefined>();
  return http.createServer((req, res) => {
    const m = /^\/kubernetes\/(v\d+\.\d+\.\d+)\/(?:bin\/linux\/amd64\/)?([A-Za-z0-9.]+)$/.exec(req.url ?? "");
    const version = m?.[1] ?? "";
    if (m && !cache.has(version)) cache.set(version, mirrorFiles(version));
    const body = m ? cache.get(version)?.get(m[2] ?? "") : undefined;
    if (!body) {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("404 Not Found\n");
      return;
    }
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length });
    res.end(req.method === "HEAD" ? undefined : body);
  });
}

if (require.main === module) {
  const [host = "127.0.0.1", port = "8780"] = process.argv.slice(2);
  createMirror().listen(Number(port), host, () => process.stderr.write(`lab binary mirror on http://${host}:${port}/kubernetes/<version>/{kubelet,kubectl}\n`));
}
