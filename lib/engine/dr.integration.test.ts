// Disaster recovery on one lab of real Kubernetes (3 masters + 1 worker), operations in sequence to
// keep CI's cost down: a self-hosted cluster is bootstrapped, backed up (on demand and by its schedule),
// survives every master rebooting at once with no one's help, is restored from its backup (an object
// deleted after the snapshot comes back, one created after it is gone, every node re-registers), and a
// control plane that cannot come back by itself (no checkpoints) is recovered by a run. Then the hosts
// are reset and a static control plane goes through the same bootstrap, reboot and restore.
// Brings up its own lab ("dr").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { labClusterDefinition, labClusterSecrets } from "../../lab/cluster-yaml";
import { labDown, labReboot, labUp } from "../../lab/lab";
import { backupOnDemandChecked, checkpointsHandedOver, controlPlaneUp, outcome, rebootMastersChecked, restoreChecked, runHere, summaryOf, untilTrue, type RecoveryCluster } from "../../test/lab-recovery";
import type { LabState } from "../../lab/state";
import { labKube, type LabKube } from "../../test/lab-kube";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { reconcileScheduledRuns, startDueBackups } from "../backups/schedule";
import { getBackupPolicy, listBackups, setBackupPolicy } from "../backups/store";
import { readLiveCertificates } from "../certs/expiry";
import { defaultKubernetesVersion } from "../cluster/versions";
import { validateClusterDefinition, type ClusterDefinitionInput } from "../cluster/definition";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { listRunEvents } from "./events";
import { executeRun } from "./runner";

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

const recovery = (clusterId: string): RecoveryCluster => ({ lab, kube, clusterId, masters: MASTERS, nodes: 4 });
const run = runHere;

async function cluster(name: string, mode: "self-hosted" | "static"): Promise<string> {
  const input = labClusterDefinition(lab, name).definition as ClusterDefinitionInput;
  input.spec.kubernetes.controlPlane = mode;
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return (await createCluster({ definition: v.definition, secrets: labClusterSecrets(lab) })).id;
}

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
    const started = Date.now();
    backupId = await backupOnDemandChecked(recovery(clusterId), db.dir, "deleted-after-backup");
    timings.backup = (Date.now() - started) / 1000;
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
    timings.rebootSelfHosted = await rebootMastersChecked(recovery(clusterId), { deleted: "deleted-after-backup", created: "created-after-backup" });
    // It was the checkpoints: started when no API server answered, stopped once the self-hosted one ran.
    await checkpointsHandedOver(recovery(clusterId));
  }, 25 * 60_000);

  it("restores the backup: the object deleted after it is back, the one created after it is gone, every node re-registers", async () => {
    const r = await restoreChecked(recovery(clusterId), backupId, { deleted: "deleted-after-backup", created: "created-after-backup" });
    timings.restore = r.seconds;
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
    expect(controlPlaneUp(recovery(clusterId))).toBe(true);
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
  let staticBackup: string;

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
    staticBackup = await backupOnDemandChecked(recovery(clusterId), db.dir, "static-deleted-after-backup");
    timings.rebootStatic = await rebootMastersChecked(recovery(clusterId), { deleted: "static-deleted-after-backup", created: "static-created-after-backup" });
  }, 25 * 60_000);

  it("restores the backup onto the static control plane", async () => {
    const r = await restoreChecked(recovery(clusterId), staticBackup, { deleted: "static-deleted-after-backup", created: "static-created-after-backup" });
    timings.restoreStatic = r.seconds;
  }, 20 * 60_000);
});
