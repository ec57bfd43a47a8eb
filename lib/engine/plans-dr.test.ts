// The disaster-recovery plans as data: what each step sends, on which host, in which order.
import { describe, expect, it } from "vitest";
import { validateClusterDefinition, type ClusterDefinition } from "../cluster/definition";
import { exampleDefinition } from "../cluster/example";
import { shellCommand } from "../ssh/quote";
import { parseSnapshotReport, SNAPSHOT_SAVE_SCRIPT } from "./actions/dr-scripts";
import { buildBackupPlan, snapshotPath } from "./plans-dr";
import { assetIndexFrom } from "./plan-objects";

function def(hosts = 5): ClusterDefinition {
  const v = validateClusterDefinition(exampleDefinition({ name: "dr", hosts }));
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.definition;
}

describe("backup plan", () => {
  const plan = buildBackupPlan(def(), "run_AAAAAAAAAAAAAAAA", { backupId: "bk_BBBBBBBBBBBBBBBB", trigger: "manual", retention: { keepLast: 14, keepDays: 30 } });
  const step = plan.phases[0]!.steps[0]!;

  it("tries the masters in order: save, fetch and discard on each, as argument vectors", () => {
    expect(plan.runType).toBe("backup");
    expect(step).toMatchObject({ key: "snapshot/cluster", action: "etcd-snapshot", host: null, params: { backupId: "bk_BBBBBBBBBBBBBBBB", trigger: "manual" } });
    const file = snapshotPath("run_AAAAAAAAAAAAAAAA");
    expect(file).toBe("/var/lib/etcd/bootdeck-snapshot-run_AAAAAAAAAAAAAAAA.db");
    expect(step.exec!.map((e) => `${e.host} ${e.id}`)).toEqual(["master-1 save", "master-1 fetch", "master-1 discard", "master-2 save", "master-2 fetch", "master-2 discard", "master-3 save", "master-3 fetch", "master-3 discard"]);
    // The first master is always asked; the others only when the ones before them could not give a snapshot.
    expect(step.exec!.map((e) => e.when)).toEqual(["always", "always", "always", ...Array(6).fill("needed")]);
    expect(step.exec![0]!.argv).toEqual(["sh", "-c", SNAPSHOT_SAVE_SCRIPT, "bootdeck-snapshot", file]);
    expect(step.exec![1]!.argv).toEqual(["cat", "--", file]);
    expect(step.exec![2]!.argv).toEqual(["rm", "-f", "--", file]);
  });

  it("shows each command as the host receives it, and what Bootdeck does with the bytes", () => {
    expect(step.commands[0]).toBe(shellCommand(step.exec![0]!.argv));
    expect(step.checks!.at(-2)).toMatch(/encrypted with a new data key into the data directory as bk_BBBBBBBBBBBBBBBB/);
    expect(step.checks!.at(-1)).toMatch(/the newest 14 backups stay, older ones go after 30 days/);
  });

  it("copies nothing off the machine without a bucket", () => {
    expect(plan.phases.map((p) => p.id)).toEqual(["snapshot"]);
  });

  it("with a bucket, copies the snapshot there after storing it, and says where and how it is checked", () => {
    const withBucket = buildBackupPlan(def(), "run_AAAAAAAAAAAAAAAA", { backupId: "bk_BBBBBBBBBBBBBBBB", trigger: "schedule", retention: { keepLast: 3, keepDays: 7 }, bucket: "s3://dr/site-a/cl_CCCCCCCCCCCCCCCC/ at https://s3.example" });
    expect(withBucket.phases.map((p) => p.id)).toEqual(["snapshot", "upload"]);
    const upload = withBucket.phases[1]!.steps[0]!;
    expect(upload).toMatchObject({ key: "upload/bucket", action: "backup-upload", host: null, params: { backupId: "bk_BBBBBBBBBBBBBBBB" } });
    expect(upload.exec ?? []).toEqual([]);
    expect(upload.offsite!.join("\n")).toMatch(/to s3:\/\/dr\/site-a\/cl_CCCCCCCCCCCCCCCC\/ at https:\/\/s3.example: the encrypted file as stored/);
    expect(upload.offsite!.join("\n")).toMatch(/sealed with the cluster's backup key/);
    expect(upload.offsite!.at(-1)).toMatch(/retention in the bucket: the newest 3 stay, older ones go after 7 days/);
  });
});

describe("the snapshot script's report", () => {
  it("reads etcdutl's status (a revision beyond 2^53 kept as text) and the host's checksum and size", () => {
    const out = `bootdeck-snapshot-status {"hash":3172466034,"revision":18446744073709551000,"totalKey":10234,"totalSize":24301568,"version":"3.6.0"}\nbootdeck-snapshot-file ${"ab".repeat(32)} 24301600\n`;
    expect(parseSnapshotReport(out)).toEqual({ sha256: "ab".repeat(32), size: 24301600, revision: "18446744073709551000", totalKeys: 10234, etcdVersion: "3.6.0" });
  });

  it("refuses a report without a revision or a checksum", () => {
    expect(() => parseSnapshotReport(`bootdeck-snapshot-status \nbootdeck-snapshot-file ${"ab".repeat(32)} 1\n`)).toThrow(/did not report a revision/);
    expect(() => parseSnapshotReport(`bootdeck-snapshot-status {"revision":5}\n`)).toThrow(/checksum and size were not reported/);
  });
});

describe("restore, recover and the static bootstrap", async () => {
  const { renderAssets } = await import("../assets/render");
  const indexOf = (assets: { path: string; content: string }[]) => assetIndexFrom(assets);
  const selfHosted = def();
  const selfHostedAssets = indexOf(await renderAssets(exampleDefinition({ name: "dr", hosts: 5 })));
  const staticInput = exampleDefinition({ name: "dr", hosts: 5 });
  staticInput.spec.kubernetes.controlPlane = "static";
  const staticDef = validateClusterDefinition(staticInput);
  if (!staticDef.ok) throw new Error("static example must be valid");
  const staticAssets = indexOf(await renderAssets(staticInput));
  const backup = { id: "bk_BBBBBBBBBBBBBBBB", sha256: "c".repeat(64), size: 4096, revision: "1234", createdAt: "2026-12-10T00:00:00.000Z" };
  const { buildRestorePlan, buildRecoverPlan, initialCluster } = await import("./plans-dr");
  const { buildBootstrapPlan } = await import("./plans");
  const { ETCD_RESTORE_SCRIPT } = await import("./actions/dr-scripts");
  const keys = (p: { phases: { steps: { key: string }[] }[] }) => p.phases.map((ph) => ph.steps.map((s) => s.key).join(" "));

  it("restore: nothing stops before every master holds the snapshot; then stop, restore each member, etcd, the temporary control plane, the pivot, checkpoints, verify", () => {
    const plan = buildRestorePlan(selfHosted, "run_RRRRRRRRRRRRRRRR", { backup, assets: selfHostedAssets });
    expect(plan.phases.map((p) => p.id)).toEqual(["upload", "stop", "etcd-restore", "etcd-start", "etcd-healthy", "control-plane", "self-hosted-up", "pivot", "checkpoint", "verify"]);
    expect(keys(plan)[0]).toBe("upload/master-1 upload/master-2 upload/master-3");
    const restore = plan.phases[2]!.steps[1]!;
    expect(restore.exec![0]!.argv).toEqual([
      "sh", "-c", ETCD_RESTORE_SCRIPT, "bootdeck", "run_RRRRRRRRRRRRRRRR",
      "registry.example.internal/k8s/etcd:3.6.8-0", "master-2", initialCluster(selfHosted), "bootdeck-restore-rrrrrrrrrrrrrrrr", "https://192.0.2.12:2380",
    ]);
    expect(initialCluster(selfHosted)).toBe("master-1=https://192.0.2.11:2380,master-2=https://192.0.2.12:2380,master-3=https://192.0.2.13:2380");
    expect(plan.phases[4]!.steps[0]!.params).toEqual({ members: "3", minRevision: "1234" });
    expect(plan.phases.at(-1)!.steps[0]!.params).toEqual({ restartedHosts: "master-1,master-2,master-3" });
    // The masters are locked for the run and released at its end; the checkpoints go back with their planned files.
    expect(plan.lock?.hosts).toEqual(["master-1", "master-2", "master-3"]);
    const pivot = plan.phases.find((p) => p.id === "pivot")!.steps[0]!;
    expect(pivot.exec!.map((e) => `${e.id} ${e.host}`)).toEqual(["present master-1", "remove master-1", "checkpoint master-1"]);
    expect(pivot.files.every((f) => f.host === "master-1")).toBe(true);
    // The temporary control plane's files, with their checksums, as the bootstrap pushes them.
    expect(plan.phases[5]!.steps[0]!.files.map((f) => f.path)).toContain("/etc/kubernetes/manifests/bootstrap-apiserver.yaml");
    expect(plan.phases[5]!.steps[0]!.files.find((f) => f.path.endsWith("bootstrap-apiserver.yaml"))?.sha256).toBe(selfHostedAssets.get("bootstrap-manifests/bootstrap-apiserver.yaml")?.sha256);
  });

  it("restore of a static control plane: no temporary control plane, the API answers once etcd does", () => {
    const plan = buildRestorePlan(staticDef.definition, "run_RRRRRRRRRRRRRRRR", { backup, assets: staticAssets });
    expect(plan.phases.map((p) => p.id)).toEqual(["upload", "stop", "etcd-restore", "etcd-start", "etcd-healthy", "api", "verify"]);
    // Its API servers read the set's encryption configuration (every key the cluster had) when they start again.
    for (const s of plan.phases[1]!.steps) expect(s.files.map((f) => `${f.path} ${f.asset} ${f.sha256}`)).toEqual([`/etc/kubernetes/control-plane-secrets/encryption-config.yaml apiserver/encryption-config.yaml ${staticAssets.get("apiserver/encryption-config.yaml")!.sha256}`]);
    // A self-hosted one's comes with its temporary control plane.
    expect(buildRestorePlan(selfHosted, "run_RRRRRRRRRRRRRRRR", { backup, assets: selfHostedAssets }).phases[1]!.steps.every((s) => s.files.length === 0)).toBe(true);
  });

  it("recover of a static control plane writes the encryption configuration before the kubelets start", () => {
    const plan = buildRecoverPlan(staticDef.definition, "run_RRRRRRRRRRRRRRRR", { assets: staticAssets });
    expect(plan.phases[0]!.steps.map((s) => s.files.map((f) => f.path))).toEqual(Array(3).fill(["/etc/kubernetes/control-plane-secrets/encryption-config.yaml"]));
  });

  it("recover: kubelets, a healthy etcd, then the control plane back as after a restore", () => {
    const plan = buildRecoverPlan(selfHosted, "run_RRRRRRRRRRRRRRRR", { assets: selfHostedAssets });
    expect(plan.phases.map((p) => p.id)).toEqual(["kubelet", "etcd-healthy", "control-plane", "self-hosted-up", "pivot", "checkpoint", "verify"]);
    expect(plan.phases[1]!.steps[0]!.params).toEqual({ members: "3" });
    expect(plan.phases.at(-1)!.steps[0]!.params).toEqual({ restartedHosts: "" });
  });

  it("refuses an asset set without the temporary control plane", () => {
    const partial = new Map([...selfHostedAssets].filter(([p]) => !p.startsWith("bootstrap-manifests/")));
    expect(() => buildRecoverPlan(selfHosted, "run_RRRRRRRRRRRRRRRR", { assets: partial })).toThrow(/lacks bootstrap-manifests\/bootstrap-apiserver.yaml/);
  });

  it("static bootstrap: no temporary control plane; the static pods on the first master at once, then on every master; no pivot", () => {
    const plan = buildBootstrapPlan(staticDef.definition, "run_SSSSSSSSSSSSSSSS", staticAssets);
    expect(plan.phases.map((p) => p.id)).toEqual(["facts", "preflight", "packages", "binaries", "runtime", "kubelet", "control-plane", "self-hosted", "static", "join", "verify"]);
    const first = plan.phases.find((p) => p.id === "control-plane")!.steps;
    expect(first.map((s) => `${s.key} ${s.action}`)).toEqual(["control-plane/master-1 control-plane"]);
    const firstFiles = first[0]!.files.map((f) => f.path);
    expect(firstFiles).toContain("/etc/kubernetes/manifests/kube-apiserver.yaml");
    expect(firstFiles.filter((f) => f.includes("bootstrap"))).toEqual([]);
    expect(first[0]!.files.find((f) => f.path.endsWith("/kube-apiserver.yaml"))?.sha256).toBe(staticAssets.get("static-manifests/kube-apiserver.yaml")?.sha256);
    const pivot = plan.phases.find((p) => p.id === "static")!;
    expect(pivot.steps.map((s) => `${s.key} ${s.action}`)).toEqual(["static/master-1 static-control-plane", "static/master-2 static-control-plane", "static/master-3 static-control-plane"]);
    // The first master's files are the same as in its control-plane step: found unchanged, then waited on.
    expect(pivot.steps[0]!.files).toEqual(first[0]!.files);
    expect(plan.phases.flatMap((p) => p.steps).filter((s) => s.action === "pivot")).toEqual([]);
    const files = pivot.steps[1]!.files.map((f) => f.path);
    expect(files).toContain("/etc/kubernetes/manifests/kube-apiserver.yaml");
    expect(files).toContain("/etc/kubernetes/control-plane-secrets/ca.key");
    expect(files.filter((f) => f.includes("checkpoint"))).toEqual([]);
    // No master gets a checkpoint: the plan sends no checkpoint command anywhere.
    expect(plan.phases.flatMap((p) => p.steps).flatMap((s) => s.exec ?? []).filter((e) => e.id === "checkpoint")).toEqual([]);
    expect(plan.phases.find((p) => p.id === "join")!.steps.every((s) => s.files.length === 0)).toBe(true);
    // An asset set rendered for the other mode is refused.
    expect(() => buildBootstrapPlan(staticDef.definition, "run_SSSSSSSSSSSSSSSS", selfHostedAssets)).toThrow(/rendered for another control-plane mode/);
  });
});

describe("certificate rotation plan", async () => {
  const { renderAssets } = await import("../assets/render");
  const { buildRotationPlan } = await import("./plans-certs");
  const { RESTART_CONTAINERS_SCRIPT } = await import("./actions/dr-scripts");
  const assets = await renderAssets(exampleDefinition({ name: "dr", hosts: 5 }));
  const index = assetIndexFrom(assets);
  const plan = buildRotationPlan(def(), "run_CCCCCCCCCCCCCCCC", { assets: index, serials: { apiserver: "AB12", etcd: { "master-1": "E1", "master-2": "E2", "master-3": "E3" } } });

  it("rolls out in an order that keeps the API: etcd one member at a time, Secrets, serving, restarts one master at a time, kubelets one at a time (two workers), verify", () => {
    expect(plan.phases.map((p) => `${p.id}: ${p.steps.map((s) => s.key).join(" ")}`)).toEqual([
      "etcd: etcd/master-1 etcd/master-2 etcd/master-3",
      "secrets: secrets/cluster secrets/master-1 secrets/master-2 secrets/master-3",
      "serving: serving/cluster",
      "restart: restart/master-1 restart/master-2 restart/master-3",
      "token: token/cluster",
      "kubelets: kubelets/master-1 kubelets/master-2 kubelets/master-3 kubelets/worker-1 kubelets/worker-2",
      "verify: verify/cluster",
    ]);
    for (const id of ["etcd", "restart", "kubelets"]) {
      const steps = plan.phases.find((p) => p.id === id)!.steps;
      steps.slice(1).forEach((s, i) => expect(s.dependsOn).toEqual([steps[i]!.key]));
    }
    expect(plan.phases[0]!.steps[1]!.params).toEqual({ serial: "E2", members: "3" });
    expect(plan.phases[0]!.steps[1]!.files.map((f) => f.path).sort()).toEqual(["/etc/kubernetes/etcd/ca.crt", "/etc/kubernetes/etcd/peer.crt", "/etc/kubernetes/etcd/peer.key", "/etc/kubernetes/etcd/server.crt", "/etc/kubernetes/etcd/server.key"]);
    const restart = plan.phases.find((p) => p.id === "restart")!.steps[0]!;
    expect(restart.files.map((f) => f.path)).toContain("/etc/kubernetes/manifests/bootstrap-apiserver.yaml");
    expect(restart.exec!.find((e) => e.id === "restart")!.argv).toEqual(["sh", "-c", RESTART_CONTAINERS_SCRIPT, "bootdeck", "run_CCCCCCCCCCCCCCCC", "kube-apiserver"]);
    expect(restart.exec!.map((e) => e.id)).toEqual(["temp-ready", "restart", "remove"]);
    // Behind a VIP, the master gives up the address while its API server restarts, and takes part again after.
    const vip = { ...def(), spec: { ...def().spec, apiEndpoint: { type: "vip" as const, host: "192.0.2.100", port: 6443, keepalived: { interface: "eth0", virtualRouterId: 51 } } } };
    const behindVip = buildRotationPlan(vip, "run_CCCCCCCCCCCCCCCC", { assets: index, serials: { apiserver: "AB12", etcd: { "master-1": "E1", "master-2": "E2", "master-3": "E3" } } });
    expect(behindVip.phases.find((p) => p.id === "restart")!.steps[0]!.exec!.map((e) => e.id)).toEqual(["release-address", "temp-ready", "restart", "remove", "rejoin-address"]);
    const workers = plan.phases.find((p) => p.id === "kubelets")!.steps.filter((s) => s.host?.startsWith("worker"));
    expect(workers.every((s) => s.exec![0]!.argv.at(-1) === "client" && s.files.length === 0)).toBe(true);
    expect(workers.every((s) => s.exec!.some((e) => e.id === "client-cert"))).toBe(true);
    // The verification reads each host's certificates with the command its plan shows; every changed host is locked and released.
    expect(plan.phases.at(-1)!.steps[0]!.exec!.map((e) => `${e.id} ${e.host}`)).toEqual(["master-1", "master-2", "master-3", "worker-1", "worker-2"].map((h) => `certs ${h}`));
    expect(plan.lock?.hosts).toEqual(["master-1", "master-2", "master-3", "worker-1", "worker-2"]);
  });

  it("renews the kubelets of many workers in batches: masters one at a time, one worker, then a quarter of the rest at a time, each batch after the whole one before", async () => {
    const big = def(3 + 13);
    const bigPlan = buildRotationPlan(big, "run_CCCCCCCCCCCCCCCC", { assets: assetIndexFrom(await renderAssets(exampleDefinition({ name: "dr", hosts: 16 }))), serials: { apiserver: "AB12", etcd: { "master-1": "E1", "master-2": "E2", "master-3": "E3" } } });
    const steps = bigPlan.phases.find((p) => p.id === "kubelets")!.steps;
    const after = (host: string) => steps.find((s) => s.key === `kubelets/${host}`)!.dependsOn;
    expect(after("master-1")).toEqual([]);
    expect(after("master-3")).toEqual(["kubelets/master-2"]);
    expect(after("worker-1")).toEqual(["kubelets/master-3"]);
    // 12 more workers, 25% of them (3) at a time.
    for (const w of ["worker-2", "worker-3", "worker-4"]) expect(after(w)).toEqual(["kubelets/worker-1"]);
    for (const w of ["worker-5", "worker-6", "worker-7"]) expect(after(w)).toEqual(["kubelets/worker-2", "kubelets/worker-3", "kubelets/worker-4"]);
    expect(after("worker-13")).toEqual(["kubelets/worker-8", "kubelets/worker-9", "kubelets/worker-10"]);
    expect(steps).toHaveLength(16);
  });
});
