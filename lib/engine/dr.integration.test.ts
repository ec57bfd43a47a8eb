// Disaster recovery on one lab of real Kubernetes (3 masters + 1 worker), operations in sequence to
// keep CI's cost down: a self-hosted cluster is bootstrapped, backed up (on demand and by its schedule),
// survives every master rebooting at once with no one's help, is restored from its backup (an object
// deleted after the snapshot comes back, one created after it is gone, every node re-registers), and a
// control plane that cannot come back by itself (no checkpoints) is recovered by a run. Then the hosts
// are reset and a static control plane goes through the same bootstrap, reboot and restore.
// Brings up its own lab ("dr").
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { labClusterDefinition, labClusterSecrets } from "../../lab/cluster-yaml";
import { labDown, labReboot, labUp } from "../../lab/lab";
import type { LabState } from "../../lab/state";
import { labKube, type LabKube } from "../../test/lab-kube";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { startBackupRun } from "../backups/runs";
import { reconcileScheduledRuns, startDueBackups } from "../backups/schedule";
import { getBackupPolicy, listBackups, openVerifiedBackup, setBackupPolicy } from "../backups/store";
import { readLiveCertificates } from "../certs/expiry";
import { defaultKubernetesVersion } from "../cluster/versions";
import { validateClusterDefinition, type ClusterDefinitionInput } from "../cluster/definition";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { listRunEvents } from "./events";
import { planRun } from "./plan-run";
import { startRun } from "./runs";
import { executeRun } from "./runner";
import type { CreateRunBody } from "./schemas";

const LAB = "dr";
const MASTERS = ["master-1", "master-2", "master-3"];
let lab: LabState;
let kube: LabKube;
let db: TempDb;
const t0 = Date.now();
const timings: Record<string, number> = {};

beforeAll(async () => {
  labDown(LAB, () => undefined);
  lab = await labUp({ name: LAB, masters: 3, workers: 1, kubernetesVersions: [defaultKubernetesVersion], log: () => undefined });
  kube = labKube(lab);
  db = await createTempDb();
}, 30 * 60_000);

afterAll(async () => {
  console.log(`disaster recovery integration: ${Math.round((Date.now() - t0) / 1000)} s in all; ${Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(0)} s`).join(", ")}`);
  if (!process.env.BOOTDECK_KEEP_LAB) labDown(LAB, () => undefined);
  await db?.cleanup();
});

async function cluster(name: string, mode: "self-hosted" | "static"): Promise<string> {
  const input = labClusterDefinition(lab, name).definition as ClusterDefinitionInput;
  input.spec.kubernetes.controlPlane = mode;
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return (await createCluster({ definition: v.definition, secrets: labClusterSecrets(lab) })).id;
}

/** Plans, starts and runs a run here; returns its status with every failed step's error and output tail. */
async function run(clusterId: string, body: CreateRunBody): Promise<{ runId: string; status: string }> {
  const runId = await planRun({ clusterId, body, by: "test" });
  await startRun({ runId });
  return { runId, status: await outcome(runId, await executeRun(runId, { workerId: "test" })) };
}

async function outcome(runId: string, status: string): Promise<string> {
  if (status === "succeeded") return status;
  const failed = await getDb().step.findMany({ where: { runId, status: "failed" }, select: { key: true, error: true, output: true } });
  return `${status}: ${failed.map((f) => `${f.key}: ${f.error}\n${(f.output ?? "").split("\n").slice(-15).join("\n")}`).join("\n---\n")}`;
}

async function summaryOf(runId: string, key: string): Promise<string> {
  const events = await listRunEvents({ runId, limit: 100_000 });
  return String(events.filter((e) => e.type === "step.finished" && e.data.key === key).at(-1)?.data.summary ?? "");
}

/** Polls until fn returns a value; the last reason is in the timeout's message. */
async function until<T>(what: string, fn: () => T | string, ms: number, everyMs = 5_000): Promise<T> {
  const end = Date.now() + ms;
  let why = "";
  for (;;) {
    const v = fn();
    if (typeof v !== "string") return v;
    why = v;
    if (Date.now() > end) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}: ${why}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The control plane answers and every control-plane pod and node is Running/Ready, judged with kubectl on the masters. */
function controlPlaneUp(expectedNodes: number): true | string {
  for (const host of MASTERS) {
    const ready = kube.tryKubectl("get --raw /readyz", { host });
    if (ready.code !== 0) continue;
    const nodes = kube.tryKubectl("get nodes --no-headers", { host });
    if (nodes.code !== 0) return `nodes: ${nodes.out.slice(0, 200)}`;
    const lines = nodes.out.trim().split("\n");
    const notReady = lines.filter((l) => !/\sReady\s/.test(l));
    if (lines.length < expectedNodes || notReady.length) return `nodes not Ready: ${notReady.join("; ") || `${lines.length} of ${expectedNodes} listed`}`;
    const pods = kube.tryKubectl("-n kube-system get pods --no-headers", { host });
    const bad = pods.out.trim().split("\n").filter((l) => /^(kube-apiserver|kube-controller-manager|kube-scheduler|etcd)/.test(l) && !/\s(\d+)\/\1\s+Running\s/.test(l));
    if (pods.code !== 0 || bad.length) return `control-plane pods not Ready: ${bad.join("; ") || pods.out.slice(0, 200)}`;
    return true;
  }
  return "no master's API server answers /readyz";
}

const configMap = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data: { at: new Date().toISOString() } });

describe("a self-hosted control plane: backup, every master rebooted, restore, recover", () => {
  let clusterId: string;
  let backupId: string;

  it("bootstraps 3 masters and a worker", async () => {
    clusterId = await cluster("dr-self-hosted", "self-hosted");
    const started = Date.now();
    expect((await run(clusterId, { type: "bootstrap", acceptWarnings: true })).status).toBe("succeeded");
    timings.bootstrap = (Date.now() - started) / 1000;
  }, 15 * 60_000);

  it("takes an etcd snapshot on demand: streamed back, stored encrypted, its checksum and revision what etcd says", async () => {
    kube.kubectl("apply -f -", { input: configMap("deleted-after-backup") });
    const revisionBefore = BigInt(JSON.parse(kube.ssh("master-1", "crictl exec $(crictl ps -q --name '^etcd$' | head -n1) etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/etcd/ca.crt --cert=/etc/kubernetes/etcd/server.crt --key=/etc/kubernetes/etcd/server.key endpoint status -w json"))[0].Status.header.revision as number);
    const started = Date.now();
    const runId = await startBackupRun({ clusterId, trigger: "manual" });
    expect(await outcome(runId, await executeRun(runId, { workerId: "test" }))).toBe("succeeded");
    timings.backup = (Date.now() - started) / 1000;
    const [b] = await listBackups({ clusterId });
    expect(b).toMatchObject({ trigger: "manual", member: "master-1", runId, etcdVersion: expect.stringMatching(/^3\.6/) });
    expect(BigInt(b!.revision)).toBeGreaterThanOrEqual(revisionBefore);
    backupId = b!.id;
    // The stored bytes are the snapshot: its checksum, and etcd's own integrity hash at its end checks out in etcdutl on a master.
    const row = await getDb().backup.findUniqueOrThrow({ where: { id: backupId } });
    const chunks: Buffer[] = [];
    for await (const c of (await openVerifiedBackup(row)).stream()) chunks.push(c as Buffer);
    const plain = Buffer.concat(chunks);
    expect(plain.length).toBe(b!.size);
    expect(createHash("sha256").update(plain).digest("hex")).toBe(b!.sha256);
    expect(plain.includes(Buffer.from("deleted-after-backup"))).toBe(true);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(`${db.dir}/${row.file}`).includes(Buffer.from("deleted-after-backup"))).toBe(false);
    // Nothing is left on the master.
    expect(kube.ssh("master-1", "ls /var/lib/etcd").trim()).toBe("member");
    expect(await summaryOf(runId, "snapshot/cluster")).toMatch(/^backup bk_\S+ from master-1: etcd revision \d+, \d+ keys, [\d.]+ (KiB|MiB) \(sha256 [0-9a-f]{12}…\), streamed in/);
  }, 5 * 60_000);

  it("takes scheduled snapshots and applies retention", async () => {
    await setBackupPolicy({ clusterId, body: { enabled: true, intervalMinutes: 15, keepLast: 1, keepDays: 1 }, by: "test" });
    const [runId] = await startDueBackups(new Date());
    expect(runId).toBeTruthy();
    expect(await outcome(runId!, await executeRun(runId!, { workerId: "test" }))).toBe("succeeded");
    await reconcileScheduledRuns();
    expect((await getBackupPolicy({ clusterId })).health.state).toBe("ok");
    const all = await listBackups({ clusterId });
    // Retention keeps the newest only once older ones pass the age limit: both are younger than a day.
    expect(all.map((b) => b.trigger)).toEqual(["schedule", "manual"]);
    await setBackupPolicy({ clusterId, body: { enabled: false, intervalMinutes: 15, keepLast: 14, keepDays: 30 }, by: "test" });
  }, 5 * 60_000);

  it("comes back by itself after every master reboots at once (the API server checkpoints)", async () => {
    kube.kubectl("delete configmap deleted-after-backup");
    kube.kubectl("apply -f -", { input: configMap("created-after-backup") });
    const started = Date.now();
    await labReboot(LAB, MASTERS, () => undefined);
    expect(kube.tryKubectl("get --raw /readyz", { host: "master-1" }).code).not.toBe(0);
    await until("the control plane back after the reboot", () => controlPlaneUp(4), 15 * 60_000);
    timings.rebootSelfHosted = (Date.now() - started) / 1000;
    // It was the checkpoints: started when no API server answered, stopped once the self-hosted one ran.
    const journal = kube.ssh("master-1", "journalctl -u bootdeck-checkpoint --no-pager");
    expect(journal).toMatch(/checkpoint started/);
    await until("the checkpoint to hand over to the self-hosted API server", () => (/checkpoint stopped/.test(kube.ssh("master-1", "journalctl -u bootdeck-checkpoint --no-pager")) ? true : "still running"), 5 * 60_000);
    expect(kube.kubectl("get configmap created-after-backup -o name").trim()).toBe("configmap/created-after-backup");
  }, 25 * 60_000);

  it("restores the backup: the object deleted after it is back, the one created after it is gone, every node re-registers", async () => {
    const started = Date.now();
    const r = await run(clusterId, { type: "restore", backup: backupId, confirm: true });
    expect(r.status).toBe("succeeded");
    timings.restore = (Date.now() - started) / 1000;
    expect(kube.kubectl("get configmap deleted-after-backup -o name").trim()).toBe("configmap/deleted-after-backup");
    expect(kube.tryKubectl("get configmap created-after-backup").out).toMatch(/NotFound/);
    expect(await summaryOf(r.runId, "verify/cluster")).toMatch(/^4 nodes Ready with their leases renewed/);
    // Each member restored with a new cluster token; the data before it kept beside.
    for (const m of MASTERS) expect(kube.ssh(m, `ls -d /var/lib/etcd.before-${r.runId}`).trim()).toBe(`/var/lib/etcd.before-${r.runId}`);
    const members = JSON.parse(kube.ssh("master-2", "crictl exec $(crictl ps -q --name '^etcd$' | head -n1) etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/etcd/ca.crt --cert=/etc/kubernetes/etcd/server.crt --key=/etc/kubernetes/etcd/server.key member list -w json")).members as { name: string; peerURLs: string[] }[];
    expect(members.map((m) => m.name).sort()).toEqual(MASTERS);
    // The temporary control plane is gone again; the checkpoints watch on every master.
    for (const m of MASTERS) expect(kube.ssh(m, "systemctl is-active bootdeck-checkpoint").trim()).toBe("active");
    expect(kube.ssh("master-1", "ls /etc/kubernetes/manifests").trim().split("\n").sort()).toEqual(["etcd.yaml"]);
  }, 30 * 60_000);

  it("recovers a control plane that cannot come back by itself (no checkpoints): a temporary control plane from etcd's state, then the pivot", async () => {
    for (const m of MASTERS) kube.ssh(m, "systemctl disable bootdeck-checkpoint && systemctl stop bootdeck-checkpoint");
    await labReboot(LAB, MASTERS, () => undefined);
    // Without checkpoints nothing gives the kubelets their API server back.
    await new Promise((r) => setTimeout(r, 150_000));
    expect(MASTERS.map((m) => kube.tryKubectl("get --raw /readyz", { host: m }).code).every((c) => c !== 0)).toBe(true);
    const started = Date.now();
    const r = await run(clusterId, { type: "recover", confirm: true });
    expect(r.status).toBe("succeeded");
    timings.recover = (Date.now() - started) / 1000;
    expect(controlPlaneUp(4)).toBe(true);
    for (const m of MASTERS) expect(kube.ssh(m, "systemctl is-enabled bootdeck-checkpoint; systemctl is-active bootdeck-checkpoint").trim().split("\n")).toEqual(["enabled", "active"]);
    expect(kube.kubectl("get configmap deleted-after-backup -o name").trim()).toBe("configmap/deleted-after-backup");
  }, 30 * 60_000);

  it("rotates every leaf certificate: the API keeps answering and serves the new serial", async () => {
    const port = `:6443`;
    const before = (await readLiveCertificates({ clusterId })).rows.filter((r) => r.source.endsWith(port));
    expect(before.map((r) => r.host).sort()).toEqual(MASTERS);
    const started = Date.now();
    const r = await run(clusterId, { type: "rotate-certs", confirm: true });
    expect(r.status).toBe("succeeded");
    timings.rotation = (Date.now() - started) / 1000;
    const set = await getDb().run.findUniqueOrThrow({ where: { id: r.runId }, select: { assetSetId: true } });
    const cert = await getDb().asset.findFirstOrThrow({ where: { assetSetId: set.assetSetId!, path: "tls/apiserver.crt" } });
    const { X509Certificate } = await import("node:crypto");
    const serial = new X509Certificate(cert.content).serialNumber;
    const after = (await readLiveCertificates({ clusterId })).rows.filter((x) => x.source.endsWith(port));
    expect(after.map((x) => x.serial)).toEqual(MASTERS.map(() => serial));
    expect(before.every((b) => b.serial !== serial)).toBe(true);
    // The API answered throughout: no probe failed while the API servers switched certificates.
    const events = await listRunEvents({ runId: r.runId, limit: 100_000 });
    const gaps = events.filter((e) => e.type === "step.finished" && typeof e.data.apiGapS === "number").map((e) => ({ key: String(e.data.key), gap: Number(e.data.apiGapS), failed: Number(e.data.failedProbes) }));
    console.log(`rotation API gaps: ${gaps.map((g) => `${g.key} ${g.gap.toFixed(1)} s (${g.failed} failed probes)`).join(", ")}`);
    expect(gaps.find((g) => g.key === "serving/cluster")).toMatchObject({ gap: 0, failed: 0 });
    expect(gaps.filter((g) => g.key.startsWith("restart/")).every((g) => g.gap <= 2)).toBe(true);
    // Each master gave the API address up before its temporary API server started, and took part again after.
    for (const m of MASTERS) expect(await summaryOf(r.runId, `restart/${m}`)).toMatch(/^address release: keepalived inactive; .*; address rejoin: keepalived active; /);
    // Workers got new client certificates through CSRs the controller-manager signed.
    const csrs = JSON.parse(kube.kubectl("get csr -o json")) as { items: { spec: { username: string }; metadata: { creationTimestamp: string } }[] };
    expect(csrs.items.some((c) => c.spec.username.startsWith("system:bootstrap:") && Date.parse(c.metadata.creationTimestamp) >= started - 5_000)).toBe(true);
  }, 20 * 60_000);

  it("resets every host", async () => {
    expect((await run(clusterId, { type: "reset", hosts: lab.hosts.map((h) => h.name), confirm: true })).status).toBe("succeeded");
  }, 10 * 60_000);
});

describe("a static control plane: bootstrap, every master rebooted, restore", () => {
  let clusterId: string;

  it("bootstraps with the control plane as static pods on every master and no checkpoint", async () => {
    clusterId = await cluster("dr-static", "static");
    const started = Date.now();
    expect((await run(clusterId, { type: "bootstrap", acceptWarnings: true })).status).toBe("succeeded");
    timings.bootstrapStatic = (Date.now() - started) / 1000;
    for (const m of MASTERS) expect(kube.ssh(m, "ls /etc/kubernetes/manifests").trim().split("\n").sort()).toEqual(["etcd.yaml", "kube-apiserver.yaml", "kube-controller-manager.yaml", "kube-scheduler.yaml"]);
    expect(kube.kubectl("-n kube-system get daemonsets,deployments -o name")).not.toMatch(/kube-apiserver|kube-controller-manager|kube-scheduler/);
    expect(kube.ssh("master-1", "ls /etc/kubernetes/checkpoint 2>&1 || true")).toMatch(/No such file/);
    const mirrors = kube.kubectl("-n kube-system get pods -o name").split("\n").filter((l) => /kube-apiserver-master-\d/.test(l));
    expect(mirrors.sort()).toEqual(MASTERS.map((m) => `pod/kube-apiserver-${m}`));
  }, 15 * 60_000);

  it("comes back by itself after every master reboots at once", async () => {
    kube.kubectl("apply -f -", { input: configMap("static-deleted-after-backup") });
    const b = await startBackupRun({ clusterId, trigger: "manual" });
    expect(await outcome(b, await executeRun(b, { workerId: "test" }))).toBe("succeeded");
    kube.kubectl("delete configmap static-deleted-after-backup");
    const started = Date.now();
    await labReboot(LAB, MASTERS, () => undefined);
    await until("the static control plane back after the reboot", () => controlPlaneUp(4), 15 * 60_000);
    timings.rebootStatic = (Date.now() - started) / 1000;
  }, 25 * 60_000);

  it("restores the backup onto the static control plane", async () => {
    const [b] = await listBackups({ clusterId });
    const started = Date.now();
    const r = await run(clusterId, { type: "restore", backup: b!.id, confirm: true });
    expect(r.status).toBe("succeeded");
    timings.restoreStatic = (Date.now() - started) / 1000;
    expect(kube.kubectl("get configmap static-deleted-after-backup -o name").trim()).toBe("configmap/static-deleted-after-backup");
    expect(await summaryOf(r.runId, "verify/cluster")).toMatch(/^4 nodes Ready with their leases renewed/);
  }, 20 * 60_000);
});
