// Upstream's conformance suite against a cluster: the `[Conformance]` specs (or any focus) of
// k8s.io/kubernetes/test/e2e built for the cluster's exact version, run by ginkgo on several nodes at
// once, the images they pull built here and pushed to the lab's registry. Used by `npm run conformance`
// and by the bootstrap suite's fixed subset. Test bed only; see docs/conformance.md.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { LabState } from "./state";
import { ensureComponent, type Log } from "./upstream/build";
import { conformanceComponent, kubernetesComponent } from "./upstream/components";
import { ensureConformanceImages, pushImages } from "./upstream/images";

/** The parts of ginkgo's JSON report read here (one entry per suite; one spec report per spec and per suite node). */
const GinkgoReport = z.array(
  z.object({
    SpecReports: z
      .array(
        z.object({
          ContainerHierarchyTexts: z.array(z.string()).nullish(),
          LeafNodeText: z.string(),
          LeafNodeType: z.string(),
          State: z.string(),
          Failure: z.object({ Message: z.string() }).nullish(),
        }),
      )
      .nullish(),
  }),
);

export type ConformanceResult = {
  /** Specs of the focus that ran and passed. */
  passed: string[];
  failed: { spec: string; message: string }[];
  /** Specs of the focus that did not run (skipped by the suite itself, say for a missing capability). */
  skipped: string[];
  ms: number;
  ginkgoExit: number;
  reportDir: string;
};

/** The spec's full name as ginkgo prints it. */
const specName = (s: { ContainerHierarchyTexts?: string[] | null; LeafNodeText: string }) => [...(s.ContainerHierarchyTexts ?? []), s.LeafNodeText].join(" ");

const minutes = (ms: number) => `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;

/**
 * The e2e images' registries mapped onto the lab's registry by the product's mirror rule (the registry
 * host replaced, the path kept), as test/utils/image reads KUBE_TEST_REPO_LIST.
 */
export function repoList(registry: string): string {
  const on = (p: string) => `${registry}/${p}`.replace(/\/$/, "");
  const lists: Record<string, string> = {
    promoterE2eRegistry: on("e2e-test-images"),
    buildImageRegistry: on("build-image"),
    gcEtcdRegistry: on(""),
    gcRegistry: on(""),
    sigStorageRegistry: on("sig-storage"),
    dockerLibraryRegistry: on("library"),
    cloudProviderGcpRegistry: on("cloud-provider-gcp"),
  };
  return Object.entries(lists).map(([k, v]) => `${k}: ${v}\n`).join("");
}

/**
 * Progress read from ginkgo's default output as it streams: one "•" per finished spec (on long lines of
 * "S" for the skipped ones, which end much later, so counted as they come), the total from "Will run N
 * of M specs", and each failure — a report that begins on a line of its own with "• [FAILED]" (or
 * PANICKED, TIMEDOUT…) and names the spec on the next line.
 */
export class GinkgoProgress {
  total = 0;
  done = 0;
  failed = 0;
  private carry = "";
  private nameNext = false;

  /** Takes the next chunk of output; returns the names of the specs whose failure it completed. */
  feed(chunk: string): string[] {
    const failures: string[] = [];
    this.done += chunk.split("•").length - 1;
    const lines = (this.carry + chunk).split("\n");
    this.carry = lines.pop() ?? "";
    for (const line of lines) {
      if (this.nameNext && line.trim()) {
        this.nameNext = false;
        failures.push(line.replace(/ \[sig-[^\]]*, [^\]]*\]$/, ""));
      }
      const will = /Will run (\d+) of (\d+) specs/.exec(line);
      if (will) this.total = Math.max(this.total, Number(will[1]));
      if (/^• \[(FAILED|PANICKED|TIMEDOUT|INTERRUPTED)\]/.test(line)) {
        this.failed++;
        this.nameNext = true;
      }
    }
    return failures;
  }
}

/** Runs ginkgo on e2e.test, logging progress every 30 s (specs finished of the total, failures so far). */
function runGinkgo(o: { ginkgo: string; args: string[]; env: NodeJS.ProcessEnv; logFile: string; log: Log }): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = fs.createWriteStream(o.logFile);
    const child = spawn(o.ginkgo, o.args, { env: o.env, stdio: ["ignore", "pipe", "pipe"] });
    const progress = new GinkgoProgress();
    const started = Date.now();
    const feed = (d: Buffer) => {
      out.write(d);
      for (const spec of progress.feed(d.toString("utf8"))) o.log(`  failed: ${spec.slice(0, 240)}`);
    };
    child.stdout.on("data", feed);
    child.stderr.on("data", feed);
    const timer = setInterval(() => o.log(`conformance: ${progress.done}${progress.total ? ` of ${progress.total}` : ""} specs finished, ${progress.failed} failed, ${minutes(Date.now() - started)}`), 30_000);
    child.on("error", (e) => {
      clearInterval(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearInterval(timer);
      out.end();
      resolve(code ?? 1);
    });
  });
}

/**
 * Builds the suite of `version` (cached), builds and pushes the images it pulls that can be built here,
 * and runs the focus against the cluster of `kubeconfig`. Reports (JUnit, ginkgo's JSON, the whole log)
 * go to `reportDir`.
 */
export async function runConformance(o: { version: string; lab: LabState; kubeconfig: string; focus: string; skip?: string; nodes: number; reportDir: string; log: Log }): Promise<ConformanceResult> {
  const registry = o.lab.registry;
  if (!registry) throw new Error(`lab ${o.lab.name} runs no image registry`);
  fs.mkdirSync(o.reportDir, { recursive: true });
  const suite = await ensureComponent(conformanceComponent(o.version), o.log);
  const kubectl = (await ensureComponent(kubernetesComponent(o.version), o.log)).binaries.kubectl?.path;
  const e2e = suite.binaries["e2e.test"]?.path;
  const ginkgo = suite.binaries.ginkgo?.path;
  if (!e2e || !ginkgo || !kubectl) throw new Error(`the conformance build of ${o.version} lacks e2e.test, ginkgo or kubectl`);
  const images = await ensureConformanceImages(o.version, suite, o.log);
  await pushImages(images.dir, registry.address, registry.caFile, { username: registry.username, password: fs.readFileSync(registry.passwordFile, "utf8").trim() }, o.log);
  const repoListFile = path.join(o.reportDir, "repo-list.yaml");
  fs.writeFileSync(repoListFile, repoList(registry.address));

  const args = [
    "run",
    `--nodes=${o.nodes}`,
    "--no-color",
    "--timeout=24h",
    `--output-dir=${o.reportDir}`,
    "--json-report=report.json",
    "--junit-report=junit.xml",
    `--focus=${o.focus}`,
    ...(o.skip ? [`--skip=${o.skip}`] : []),
    e2e,
    "--",
    `--kubeconfig=${o.kubeconfig}`,
    "--provider=skeleton",
    `--kubectl-path=${kubectl}`,
    `--report-dir=${o.reportDir}`,
  ];
  o.log(`running ${path.basename(ginkgo)} ${args.join(" ")}`);
  const started = Date.now();
  const logFile = path.join(o.reportDir, "ginkgo.log");
  const ginkgoExit = await runGinkgo({ ginkgo, args, env: { ...process.env, KUBE_TEST_REPO_LIST: repoListFile }, logFile, log: o.log });
  const ms = Date.now() - started;

  const reportFile = path.join(o.reportDir, "report.json");
  if (!fs.existsSync(reportFile)) throw new Error(`ginkgo exited ${ginkgoExit} without a report; its output is in ${logFile}`);
  const specs = GinkgoReport.parse(JSON.parse(fs.readFileSync(reportFile, "utf8"))).flatMap((r) => (r.SpecReports ?? []).filter((s) => s.LeafNodeType === "It"));
  const focused = new RegExp(o.focus);
  const ran = specs.filter((s) => s.State !== "skipped" && s.State !== "pending");
  return {
    passed: ran.filter((s) => s.State === "passed").map(specName),
    failed: ran.filter((s) => s.State !== "passed").map((s) => ({ spec: specName(s), message: (s.Failure?.Message ?? s.State).split("\n")[0]!.slice(0, 300) })),
    skipped: specs.filter((s) => s.State === "skipped" && focused.test(specName(s))).map(specName),
    ms,
    ginkgoExit,
    reportDir: o.reportDir,
  };
}

/** One line per outcome, as the script and the tests print it. */
export function conformanceSummary(r: ConformanceResult): string {
  return [
    `${r.passed.length} passed, ${r.failed.length} failed, ${r.skipped.length} of the focus skipped, in ${minutes(r.ms)} (ginkgo exit ${r.ginkgoExit})`,
    ...r.failed.map((f) => `  ✗ ${f.spec}\n      ${f.message}`),
    ...r.skipped.map((s) => `  – skipped: ${s}`),
    `reports: ${path.join(r.reportDir, "junit.xml")}, ${path.join(r.reportDir, "report.json")}, ${path.join(r.reportDir, "ginkgo.log")}`,
  ].join("\n");
}
