// npm run conformance -- [--version v1.36.3] [--masters 3] [--workers 3] [--control-plane self-hosted|static]
//   [--focus REGEX] [--skip REGEX] [--nodes 4] [--report-dir DIR] [--keep]
// Upstream's conformance suite against a cluster Bootdeck bootstrapped: a fresh lab (its own, "conform")
// bootstrapped by the engine with the default settings, then the `[Conformance]` specs of the cluster's
// exact version (lab/conformance.ts builds e2e.test, ginkgo and the images the first time). Prints
// progress every 30 s, then passed / failed / skipped, each failure's first line and the time; the JUnit
// and JSON reports and the whole log go to the report directory. See docs/conformance.md.
// Needs root and the lab's cached upstream builds (docs/lab-cluster.md).
import fs from "node:fs";
import path from "node:path";
import { writeAdminKubeconfig } from "../lab/admin-kubeconfig";
import { conformanceSummary, runConformance } from "../lab/conformance";
import { defaultKubernetesVersion } from "../lib/cluster/versions";
import { disconnectDb } from "../lib/db/client";
import { labCluster } from "./lab-cluster";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

async function main(): Promise<void> {
  const version = arg("version", defaultKubernetesVersion);
  const masters = Number(arg("masters", "3"));
  const workers = Number(arg("workers", "3"));
  const mode = arg("control-plane", "self-hosted");
  if (mode !== "self-hosted" && mode !== "static") throw new Error(`--control-plane is self-hosted or static, not ${mode}`);
  const focus = arg("focus", "\\[Conformance\\]");
  const skip = arg("skip", "");
  const nodes = Number(arg("nodes", "4"));
  if (!Number.isInteger(masters) || !Number.isInteger(workers) || !Number.isInteger(nodes) || masters < 1 || workers < 0 || nodes < 1) throw new Error("--masters, --workers and --nodes take whole numbers (at least one master and one node)");
  const keep = process.argv.includes("--keep");
  const reportDir = path.resolve(arg("report-dir", `/var/tmp/bootdeck-conformance/${version}-${mode}-${new Date().toISOString().replace(/[:.]/g, "-")}`));
  log(`conformance: Kubernetes ${version}, lab of ${masters} masters + ${workers} workers, ${mode} control plane; focus ${focus}${skip ? `, skip ${skip}` : ""}; ${nodes} ginkgo nodes; reports in ${reportDir}`);

  const t0 = Date.now();
  const cluster = await labCluster({ lab: "conform", masters, workers, controlPlane: mode, version, log: (l) => log(`[lab] ${l}`) });
  try {
    log(`lab up in ${((Date.now() - t0) / 1000).toFixed(0)} s; bootstrapping…`);
    const boot = await cluster.run({ type: "bootstrap", acceptWarnings: true });
    log(`bootstrap: ${(boot.ms / 1000).toFixed(0)} s`);
    fs.mkdirSync(reportDir, { recursive: true });
    const kubeconfig = path.join(reportDir, "admin.kubeconfig");
    await writeAdminKubeconfig(cluster.clusterId, kubeconfig);
    const result = await runConformance({ version, lab: cluster.lab, kubeconfig, focus, skip, nodes, reportDir, log });
    console.log(`\nconformance on ${version} (${mode}, ${masters} + ${workers}): ${conformanceSummary(result)}`);
    if (result.failed.length) process.exitCode = 1;
  } finally {
    await disconnectDb();
    await cluster.close(keep);
    if (keep) log("the lab is kept (--keep): bin/bootdeck lab down --name conform");
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
