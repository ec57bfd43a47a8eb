// Day two on real Kubernetes in the lab, end to end, each with a failure in the middle: a cluster of
// 2 masters + 2 workers bootstrapped at 1.36 behind keepalived's VIP; a third master added (etcd
// learner, promoted); a rolling upgrade to 1.37 whose engine process is killed with SIGKILL in the control-plane
// phase and whose worker being upgraded is cut off (the upgrade stops, the retry goes on from there
// without redoing finished hosts); a removal refused by the quorum guard while a master is cut off,
// then a master and a worker removed, the worker's drain first blocked by a disruption budget.
// Nothing here is judged in seconds (the VIP's failover is the bootstrap suite's, which runs alone), so
// it runs beside other lab suites. Brings up its own lab ("d2t").
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { labClusterDefinition, labVip } from "../../lab/cluster-yaml";
import { labCut, labDown, labHeal, labUp } from "../../lab/lab";
import type { LabState } from "../../lab/state";
import { addressReport, kubectlWith, sshTo } from "../../test/lab-api";
import { adminKubeconfigOf, outcome, runTimes, summaryOf } from "../../test/lab-recovery";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { validateClusterDefinition, type ClusterDefinitionInput } from "../cluster/definition";
import { createCluster, updateCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { ETCD_SCRIPT } from "./actions/day2-scripts";
import { parseEtcdStatusOutput } from "./day2/etcd";
import { planRun } from "./plan-run";
import { retryRun, startRun } from "./runs";
import { executeRun } from "./runner";

const LAB = "d2t";
const FROM = "v1.36.3";
const TO = "v1.37.2";
let lab: LabState;
let db: TempDb;
let clusterId: string;
let full: ClusterDefinitionInput;
let kubectl: (args: string[], input?: string) => string;
let worker: ChildProcess | undefined;
const log: string[] = [];
const t0 = Date.now();
const timings: string[] = [];
const mark = (what: string) => timings.push(`${what}: ${Math.round((Date.now() - t0) / 1000)} s`);

function startWorker(): ChildProcess {
  const child = spawn(path.resolve(__dirname, "../../bin/bootdeck"), ["worker"], { env: process.env, stdio: ["ignore", "pipe", "pipe"] });
  const keep = (b: Buffer) => {
    log.push(b.toString());
    appendFileSync(path.join(db.dir, "workers.log"), b);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return child;
}

function kill9(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; worker log:\n${log.join("").slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function finished(runId: string, ms: number): Promise<string> {
  return until("the run to finish", async () => {
    const r = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
    return ["succeeded", "failed", "cancelled"].includes(r.status) ? r.status : undefined;
  }, ms);
}

/** Waits for `fn` while the run goes on; a run that ended first fails the wait with its failed steps. */
async function whileRunning<T>(runId: string, what: string, fn: () => Promise<T | undefined>, ms: number): Promise<T> {
  return until(what, async () => {
    const v = await fn();
    if (v !== undefined) return v;
    const { status } = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } });
    if (["succeeded", "failed", "cancelled"].includes(status)) throw new Error(`the run ended before ${what}: ${await outcome(runId, status)}`);
    return undefined;
  }, ms);
}

async function run(body: Parameters<typeof planRun>[0]["body"]): Promise<{ runId: string; status: string }> {
  const runId = await planRun({ clusterId, body, by: "test" });
  await startRun({ runId });
  return { runId, status: await executeRun(runId, { workerId: "test" }) };
}

function etcdMembers(on: string) {
  const out = sshTo(lab, on, `sh -c '${ETCD_SCRIPT.replaceAll("'", `'\\''`)}' bootdeck-etcd status`);
  return parseEtcdStatusOutput(out);
}

beforeAll(async () => {
  labDown(LAB, () => undefined);
  lab = await labUp({ name: LAB, masters: 3, workers: 2, kubernetesVersions: [FROM, TO], log: () => undefined });
  mark("lab up");
  db = await createTempDb();
  full = labClusterDefinition(lab, "d2t", FROM).definition;
  // Bootstrapped without master-3: it joins later.
  const start = { ...full, spec: { ...full.spec, hosts: full.spec.hosts.filter((h) => h.name !== "master-3") } };
  const v = validateClusterDefinition(start);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const secrets = { "lab-admin": { privateKey: readFileSync(lab.adminKeyPath, "utf8") }, "lab-registry": { password: readFileSync(lab.registry!.passwordFile, "utf8").trim() } };
  ({ id: clusterId } = await createCluster({ definition: v.definition, secrets }));
}, 15 * 60_000);

// A failed step that could not reach the API is judged by where the address stood right then.
afterEach(({ task }) => {
  if (task.result?.state === "fail") console.log(`API address after "${task.name}" failed:\n${addressReport(lab, ["master-1", "master-2", "master-3"], labVip(lab))}`);
});

afterAll(async () => {
  await kill9(worker);
  console.log(`day-2 integration: ${timings.join("; ")}; ${Math.round((Date.now() - t0) / 1000)} s in all`);
  if (!process.env.BOOTDECK_KEEP_LAB) labDown(LAB, () => undefined);
  await db?.cleanup();
});

describe("day two on lab hosts", () => {
  it("bootstraps 2 masters + 2 workers behind the VIP keepalived holds", async () => {
    const { runId, status } = await run({ type: "bootstrap", acceptWarnings: true });
    expect(await outcome(runId, status)).toBe("succeeded");
    mark("bootstrap");
    const admin = await adminKubeconfigOf(runId);
    expect((YAML.parse(admin) as { clusters: { cluster: { server: string } }[] }).clusters[0]!.cluster.server).toBe(`https://${labVip(lab)}:6443`);
    kubectl = kubectlWith(admin);
    expect(kubectl(["get", "--raw", "/readyz"]).trim()).toBe("ok");
    // Exactly one master holds the address.
    const holders = ["master-1", "master-2"].filter((m) => sshTo(lab, m, "ip -o addr show dev eth0").includes(`${labVip(lab)}/32`));
    expect(holders).toHaveLength(1);
    // The controller-manager, the scheduler and CoreDNS run one replica per node: losing one master
    // leaves each of them running.
    for (const app of ["kube-controller-manager", "kube-scheduler", "kube-dns"]) {
      const nodes = kubectl(["-n", "kube-system", "get", "pods", "-l", `k8s-app=${app}`, "-o", "jsonpath={range .items[*]}{.spec.nodeName}{\"\\n\"}{end}"]).split("\n").filter(Boolean);
      expect(nodes, app).toHaveLength(2);
      expect(new Set(nodes).size, `${app} on ${nodes.join(", ")}`).toBe(2);
    }
  }, 15 * 60_000);

  it("adds master-3: etcd adds it as a learner, promotes it once caught up, its control plane and checkpoint come up", async () => {
    await updateCluster({ id: clusterId, definition: full, secrets: {} });
    const { runId, status } = await run({ type: "join", hosts: ["master-3"], acceptWarnings: true });
    expect(await outcome(runId, status)).toBe("succeeded");
    mark("master-3 added");
    expect(await summaryOf(runId, "etcd/master-3")).toMatch(/master-3: added master-3 as a learner; etcd pod started; promoted after [\d.]+ s; 3 of 3 members healthy \(quorum 2\)/);
    const view = etcdMembers("master-2");
    expect(view.members.map((m) => `${m.name}${m.learner ? " (learner)" : ""}`).sort()).toEqual(["master-1", "master-2", "master-3"]);
    expect(kubectl(["-n", "kube-system", "get", "pods", "-l", "k8s-app=kube-apiserver", "-o", "jsonpath={range .items[*]}{.spec.nodeName} {.status.conditions[?(@.type==\"Ready\")].status}{\"\\n\"}{end}"])).toContain("master-3 True");
    expect(sshTo(lab, "master-3", "systemctl is-active bootdeck-checkpoint bootdeck-keepalived").split("\n").filter(Boolean)).toEqual(["active", "active"]);
    // Its API server writes through its own etcd member, which answers there (a learner would not).
    expect(kubectl(["-n", "kube-system", "get", "ds", "kube-apiserver", "-o", "jsonpath={.spec.template.spec.containers[0].command}"])).toContain("--etcd-servers=https://127.0.0.1:2379");
    // The other masters' etcd pods were not touched.
    expect(sshTo(lab, "master-1", "grep -c initial-cluster-state=new /etc/kubernetes/manifests/etcd.yaml").trim()).toBe("1");
  }, 15 * 60_000);

  it("upgrades to 1.37: the engine killed mid-upgrade resumes, a worker cut off stops it, the retry goes on without redoing finished hosts", async () => {
    await until("every node Ready", async () => (kubectl(["get", "nodes", "--no-headers"]).split("\n").filter((l) => / Ready /.test(l)).length === 5 ? true : undefined), 3 * 60_000);
    const runId = await planRun({ clusterId, body: { type: "upgrade", version: TO }, by: "test" });
    await startRun({ runId });
    worker = startWorker();
    await whileRunning(runId, "the control plane's upgrade in flight", async () => (await getDb().step.findFirst({ where: { runId, phase: "control-plane", status: { in: ["running", "waiting"] } } })) ?? undefined, 20 * 60_000);
    await kill9(worker);
    const killedDuring = (await getDb().step.findMany({ where: { runId, status: { in: ["running", "waiting"] } }, select: { key: true } })).map((s) => s.key);
    mark(`engine killed during ${killedDuring.join(", ")}`);
    worker = startWorker();
    await whileRunning(runId, "worker-1's kubelet upgrade in flight", async () => (await getDb().step.findFirst({ where: { runId, key: "kubelet/worker-1", status: { in: ["running", "waiting"] } } })) ?? undefined, 25 * 60_000);
    labCut(LAB, "worker-1");
    try {
      expect(await finished(runId, 10 * 60_000)).toBe("failed");
    } finally {
      labHeal(LAB, "worker-1");
    }
    mark("upgrade stopped at worker-1");
    console.log(`upgrade until worker-1 was cut off: ${await runTimes(runId, 12)}`);
    const stopped = await getDb().step.findMany({ where: { runId }, select: { key: true, status: true, attempts: true, error: true } });
    const by = new Map(stopped.map((s) => [s.key, s]));
    expect(by.get("kubelet/worker-1")?.status).toBe("failed");
    expect(by.get("kubelet/worker-1")?.error, await outcome(runId, "failed")).toMatch(/worker-1/);
    // The upgrade stopped there: the next batch did not start; the masters were done once.
    expect(by.get("gate/batch-5")?.status).toBe("skipped");
    expect(by.get("kubelet/worker-2")?.status).toBe("skipped");
    for (const m of ["master-1", "master-2", "master-3"]) expect(by.get(`kubelet/${m}`), m).toMatchObject({ status: "done", attempts: 1 });
    // The control plane is on 1.37 and the definition says so (kubelets may follow).
    expect((await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId } })).kubernetesVersion).toBe(TO);

    await retryRun({ runId });
    expect(await outcome(runId, await finished(runId, 15 * 60_000))).toBe("succeeded");
    mark("upgrade finished");
    console.log(`upgrade, retried: ${await runTimes(runId, 4)}`);
    const after = await getDb().step.findMany({ where: { runId }, select: { key: true, attempts: true } });
    // Finished hosts were not redone by the retry; the steps in flight at the kill ran at most twice.
    for (const s of after.filter((x) => x.key.startsWith("kubelet/master") || x.key.startsWith("etcd/"))) expect(s.attempts, s.key).toBeLessThanOrEqual(killedDuring.includes(s.key) ? 2 : 1);
    const versions = kubectl(["get", "nodes", "-o", "jsonpath={range .items[*]}{.status.nodeInfo.kubeletVersion}{\"\\n\"}{end}"]).split("\n").filter(Boolean);
    expect(new Set(versions)).toEqual(new Set([TO]));
    expect(kubectl(["version", "-o", "json"])).toContain(`"gitVersion": "${TO}"`);
    expect(etcdMembers("master-2").statuses.map((s) => s.version)).toEqual(["3.7.0", "3.7.0", "3.7.0"]);
    expect(await summaryOf(runId, "verify/cluster")).toMatch(new RegExp(`^5 nodes Ready \\(kubelet ${TO.replace(/\./g, "\\.")}\\)`));
  }, 45 * 60_000);

  it("refuses to remove a master while another is cut off (the quorum guard says which), then removes master-1 and worker-2, the drain held by a disruption budget until it is lifted", async () => {
    await kill9(worker);
    worker = undefined;
    labCut(LAB, "master-2");
    try {
      const refused = await run({ type: "remove", hosts: ["master-3"], confirm: true });
      expect(refused.status).toBe("failed");
      const guard = await getDb().step.findFirstOrThrow({ where: { runId: refused.runId, key: "guard/cluster" } });
      expect(guard.error).toMatch(/quorum guard: removing master-3 leaves 2 members of which 1 is healthy \(master-2 /);
    } finally {
      labHeal(LAB, "master-2");
    }
    await until("master-2's etcd healthy again", async () => (etcdMembers("master-3").statuses.length === 3 ? true : undefined), 3 * 60_000);
    // A workload held on worker-2 by a budget that allows no disruption.
    const pause = kubectl(["-n", "kube-system", "get", "ds", "kube-proxy", "-o", "jsonpath={.spec.template.spec.containers[0].image}"]).replace(/kube-proxy:.*/, "pause:3.10.2");
    kubectl(["apply", "-f", "-"], JSON.stringify({ apiVersion: "v1", kind: "List", items: [
      // On worker-2 by preference: once evicted it runs on worker-1, and the cluster verifies clean.
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "held", namespace: "default" }, spec: { replicas: 1, selector: { matchLabels: { app: "held" } }, template: { metadata: { labels: { app: "held" } }, spec: { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["worker-2"] }] } }] } }, containers: [{ name: "p", image: pause }] } } } },
      { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "held", namespace: "default" }, spec: { minAvailable: 1, selector: { matchLabels: { app: "held" } } } },
    ] }));
    await until("the held pod Running on worker-2", async () => (/Running .* worker-2 /.test(kubectl(["get", "pods", "-l", "app=held", "--no-headers", "-o", "wide"])) ? true : undefined), 3 * 60_000);

    // A drain deadline short enough that the budget's block shows quickly, but longer than a pod's own
    // 30 s grace period: master-1's controller-manager and scheduler must be able to leave in time.
    const first = await run({ type: "remove", hosts: ["master-1", "worker-2"], confirm: true, drainTimeoutSeconds: 45 });
    expect(first.status).toBe("failed");
    // Only the drain failed (the whole outcome shows when something else did).
    expect(await outcome(first.runId, first.status)).toMatch(/^failed: drain\/worker-2: /);
    const drain = await getDb().step.findFirstOrThrow({ where: { runId: first.runId, key: "drain/worker-2" } });
    expect(drain.error).toMatch(/timed out after 45 s waiting for worker-2 drained .*blocked: default\/held-[a-z0-9-]+: Cannot evict pod as it would violate the pod's disruption budget/);
    expect(drain.hint).toMatch(/PodDisruptionBudget keeps these pods/);
    expect((await getDb().step.findFirstOrThrow({ where: { runId: first.runId, key: "etcd/master-1" } })).status).toBe("done");
    // master-1 gave the API address up before its member went: the drains after it reached the API.
    expect(await summaryOf(first.runId, "etcd/master-1")).toMatch(/^address leave: keepalived inactive, \d+ of its sockets reset; master-1 /);
    kubectl(["delete", "pdb", "held"]);
    await retryRun({ runId: first.runId });
    expect(await outcome(first.runId, await executeRun(first.runId, { workerId: "test" }))).toBe("succeeded");
    mark("master-1 and worker-2 removed");
    expect(etcdMembers("master-2").members.map((m) => m.name).sort()).toEqual(["master-2", "master-3"]);
    expect(kubectl(["get", "nodes", "-o", "name"]).split("\n").filter(Boolean).sort()).toEqual(["node/master-2", "node/master-3", "node/worker-1"]);
    const def = JSON.parse((await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId } })).definition) as { spec: { hosts: { name: string }[] } };
    expect(def.spec.hosts.map((h) => h.name)).toEqual(["master-2", "master-3", "worker-1"]);
    expect(sshTo(lab, "master-1", "ls /etc/kubernetes /var/lib/etcd 2>&1 || true")).toMatch(/No such file/);
    expect(sshTo(lab, "master-1", "ip -o addr show dev eth0")).not.toContain(`${labVip(lab)}/32`);
    expect(kubectl(["get", "--raw", "/readyz"]).trim()).toBe("ok");
  }, 25 * 60_000);
});
