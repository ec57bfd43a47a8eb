// Virtual nodes for the dashboard's scale tests: KWOK (sigs.k8s.io/kwok, built from its Go module like
// every lab component) keeps Node objects with no host behind them Ready and reports the pods bound to
// them Running, so a dashboard sees a 500-node cluster on this machine. The lab creates the Nodes (named
// vnode-N, labelled type=virtual, annotated for KWOK) with kubectl and runs one kwok process that manages
// exactly those. Test bed only.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { defaultKubernetesVersion } from "../lib/cluster/versions";
import { cachedComponent, ensureComponent, type Log } from "./upstream/build";
import { kubernetesComponent, kwokComponent } from "./upstream/components";

const ANNOTATION = "kwok.x-k8s.io/node";
const pidFile = (labDir: string) => path.join(labDir, "virtual-nodes.pid");

/** The Node objects KWOK is to manage, as one kubectl-applyable list. */
export function virtualNodeList(count: number): string {
  const items = Array.from({ length: count }, (_, i) => ({
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: `vnode-${i + 1}`,
      annotations: { [ANNOTATION]: "fake", "node.alpha.kubernetes.io/ttl": "0" },
      labels: { type: "virtual", "kubernetes.io/hostname": `vnode-${i + 1}`, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "node-role.kubernetes.io/agent": "" },
    },
    spec: {},
  }));
  return JSON.stringify({ apiVersion: "v1", kind: "List", items });
}

function kubectl(): string {
  return cachedComponent(kubernetesComponent(defaultKubernetesVersion))?.binaries.kubectl?.path ?? "kubectl";
}

/**
 * Starts KWOK against the cluster of `kubeconfig` and registers `count` virtual nodes (0: stops it and
 * deletes them). Returns kwok's pid.
 */
export async function startVirtualNodes(labDir: string, kubeconfig: string, count: number, log: Log): Promise<number> {
  stopVirtualNodes(labDir);
  const k = (args: string[], input?: string) => {
    const r = spawnSync(kubectl(), ["--kubeconfig", kubeconfig, ...args], { input, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`kubectl ${args.join(" ")}: ${(r.stderr || r.stdout).trim()}`);
  };
  if (count <= 0) {
    k(["delete", "nodes", "-l", "type=virtual", "--ignore-not-found"]);
    return 0;
  }
  const binary = (await ensureComponent(kwokComponent(), log)).binaries.kwok?.path;
  if (!binary) throw new Error("the kwok build has no kwok binary");
  const out = fs.openSync(path.join(labDir, "virtual-nodes.log"), "a");
  const child = spawn(binary, ["--kubeconfig", kubeconfig, "--manage-all-nodes=false", `--manage-nodes-with-annotation-selector=${ANNOTATION}=fake`], { detached: true, stdio: ["ignore", out, out] });
  child.unref();
  fs.closeSync(out);
  fs.writeFileSync(pidFile(labDir), String(child.pid));
  k(["apply", "--server-side", "-f", "-"], virtualNodeList(count));
  return child.pid ?? 0;
}

export function stopVirtualNodes(labDir: string): void {
  const f = pidFile(labDir);
  if (!fs.existsSync(f)) return;
  const pid = Number(fs.readFileSync(f, "utf8"));
  try {
    if (pid > 0 && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("kwok")) process.kill(pid, "SIGTERM");
  } catch {
    // already gone
  }
  fs.rmSync(f, { force: true });
}
