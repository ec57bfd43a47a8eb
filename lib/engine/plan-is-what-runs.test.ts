// The confirmed plan is the code that runs: for every run type (check, bootstrap, join, reset and a
// retry; a static control plane's bootstrap; backup, restore, recover and a certificate rotation; the
// day-2 upgrade, remove and adding a master) every command that reaches a host is one the plan shows for that host, quoted
// exactly as shown; every file pushed is one the plan lists, with the planned mode and checksum; every
// write to the cluster's API is one of the plan's calls with its planned body; and the run uses the
// definition it was planned from, whatever happens to the cluster's definition afterwards.
// A recording executor stands in for the hosts, a fake API for the cluster and a fake etcd for its
// members.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { FakeClusterApi, FakeEtcd, RecordingExecutor, scriptName, TlsRecordingExecutor, type RecordedRun, type Reply } from "../../test/fake-cluster";
import { capabilitiesFor, imagesFor } from "../assets/capabilities";
import type { ClusterDefinition } from "../cluster/definition";
import { deriveCluster } from "../cluster/derive";

import { KUBELET_CERTS_SCRIPT } from "./actions/dr-scripts";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { assetContent } from "../assets/store";
import { renderAndSaveAssetSet } from "../clusters/render-assets";
import { exampleDefinition } from "../cluster/example";
import { createCluster, getClusterOrThrow, updateCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { shellCommand } from "../ssh/quote";
import type { RunPlan } from "./plan";
import { planRun } from "./plan-run";
import { executeRun } from "./runner";
import { getRunPlan, retryRun, startRun } from "./runs";
import type { CreateRunBody } from "./schemas";
import { testKeyPair } from "../../test/ssh-key";
import { expectApiAsPlanned } from "../../test/api-as-planned";

let db: TempDb;
let clusterId: string;
let privateKey: string;
const HOSTS = ["master-1", "master-2", "master-3", "worker-1", "worker-2"];

beforeAll(async () => {
  db = await createTempDb();
  privateKey = testKeyPair().private;
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "as-planned", hosts: 5 }), secrets: { "admin-key": { privateKey } } })).id;
  await renderAndSaveAssetSet({ clusterId, options: {} });
}, 60_000);
afterAll(async () => db?.cleanup());

type Recorded = RecordedRun & { address: string };

/** A recording executor that also keeps each command's target address. */
function recorder(reply?: (call: RecordedRun) => Reply) {
  const rec = new RecordingExecutor(reply);
  const addresses: Recorded[] = [];
  const run = rec.run.bind(rec);
  rec.run = async (host, argv, opts) => {
    addresses.push({ host: host.id, argv: [...argv], step: opts?.step ?? "", address: host.address });
    return run(host, argv, opts);
  };
  return { rec, addresses };
}

async function runPlanned(body: CreateRunBody, rec: RecordingExecutor, opts: { cluster?: string; api?: FakeClusterApi } = {}): Promise<{ runId: string; status: string; plan: RunPlan; api: FakeClusterApi }> {
  const runId = await planRun({ clusterId: opts.cluster ?? clusterId, body, by: "test" });
  await startRun({ runId });
  const api = opts.api ?? new FakeClusterApi([...HOSTS]);
  let status: string = await executeRun(runId, { workerId: "w-test", executor: rec, api: () => api, heartbeatMs: 50 });
  // A failing test says why.
  if (status === "failed") status = `failed: ${(await getDb().step.findMany({ where: { runId, status: "failed" } })).map((s) => `${s.key}: ${s.error}`).join("; ")}`;
  return { runId, status, plan: await getRunPlan(runId), api };
}

/** Every command sent is one the plan shows for that host; every planned upload went out as planned. */
function expectSentAsPlanned(plan: RunPlan, rec: RecordingExecutor, runId: string, ran: (stepKey: string) => boolean = () => true) {
  const allowed = new Map<string, Set<string>>();
  const allow = (host: string, line: string) => allowed.set(host, (allowed.get(host) ?? new Set()).add(line));
  const steps = plan.phases.flatMap((p) => p.steps);
  for (const s of steps)
    for (const e of s.exec ?? []) {
      const line = shellCommand(e.argv);
      // What the plan shows for the step is the line sent.
      expect(s.commands, `${s.key} shows ${e.id}`).toContain(line);
      allow(e.host ?? s.host ?? "", line);
    }
  if (plan.lock) for (const h of plan.lock.hosts) allow(h, shellCommand(plan.lock.release));
  expect(rec.runs.length).toBeGreaterThan(0);
  for (const r of rec.runs) expect(allowed.get(r.host)?.has(shellCommand(r.argv)), `${r.host} was sent "${shellCommand(r.argv).slice(0, 160)}" (step ${r.step}), which the plan does not show`).toBe(true);
  // Every command the plan sends always went out, to its host.
  for (const s of steps.filter((x) => ran(x.key)))
    for (const e of (s.exec ?? []).filter((x) => x.when === "always"))
      expect(rec.runs.some((r) => r.host === (e.host ?? s.host) && shellCommand(r.argv) === shellCommand(e.argv)), `${s.key}: ${e.id} was planned but not sent`).toBe(true);
  if (plan.lock) expect(plan.lock.release).toContain(runId);
  // Files: exactly the planned ones for that host, with their mode and checksum (a file from a
  // credential: its path and mode; the plan cannot show a secret's checksum).
  const withFiles = steps.filter((s) => s.files.length && ran(s.key));
  const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
  for (const s of withFiles) {
    const sent = rec.uploads.filter((u) => u.step === s.key);
    expect(sent.length, `${s.key} uploaded`).toBeGreaterThan(0);
    for (const u of sent) {
      const planned = s.files.filter((f) => (f.host ?? s.host) === u.host);
      expect(planned.length, `${s.key} plans files for ${u.host}`).toBeGreaterThan(0);
      const shown = (f: { path: string; mode: number; sha256: string; size: number; credential?: string }) => (f.credential ? { path: f.path, mode: f.mode } : { path: f.path, mode: f.mode, sha256: f.sha256, size: f.size });
      const credentialPaths = new Set(planned.filter((f) => f.credential).map((f) => f.path));
      expect([...u.files].map((f) => (credentialPaths.has(f.path) ? { path: f.path, mode: f.mode } : f)).sort(byPath)).toEqual(planned.map(shown).sort(byPath));
    }
  }
  for (const u of rec.uploads) expect(steps.filter((s) => s.files.length).map((s) => s.key)).toContain(u.step);
}

describe("what reaches the hosts is what the plan shows", () => {
  it("check", async () => {
    const rec = new RecordingExecutor();
    const { runId, status, plan, api } = await runPlanned({ type: "check" }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
  });

  it("bootstrap", async () => {
    const rec = new RecordingExecutor();
    const { runId, status, plan, api } = await runPlanned({ type: "bootstrap" }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
    // The checks fail on anything sent that the plan does not hold: a command, an API write.
    const more = new RecordingExecutor();
    more.runs.push(...rec.runs, { host: "worker-1", argv: ["echo", "unplanned"], step: "verify/cluster" });
    more.uploads.push(...rec.uploads);
    expect(() => expectSentAsPlanned(plan, more, runId)).toThrow(/worker-1 was sent "echo unplanned"/);
    api.writes.push({ method: "PATCH", path: "/api/v1/nodes/worker-1", body: { metadata: { labels: { "example.com/unplanned": "" } } } });
    await expect(expectApiAsPlanned(plan, api, runId)).rejects.toThrow(/PATCH \/api\/v1\/nodes\/worker-1 .* which the plan does not show/);
    // The kubelet is started by the planned script with the planned files, whatever the upload wrote.
    expect(rec.runs.filter((r) => r.step === "kubelet/worker-1").map((r) => r.argv.at(-1))).toContain(plan.phases.find((p) => p.id === "kubelet")!.steps.find((s) => s.host === "worker-1")!.files.at(-1)!.path);
  });

  it("join", async () => {
    const rec = new RecordingExecutor();
    const { runId, status, plan, api } = await runPlanned({ type: "join", hosts: ["worker-2"] }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
    expect(new Set(rec.runs.map((r) => r.host))).toEqual(new Set(["worker-2"]));
  });

  it("reset", async () => {
    const rec = new RecordingExecutor();
    const { runId, status, plan, api } = await runPlanned({ type: "reset", hosts: ["master-2", "worker-1"], confirm: true }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
  });

  it("retry of a failed bootstrap, and the take-over of a lock a finished run left behind", async () => {
    let failOnce = true;
    const first = new RecordingExecutor((call) => {
      if (call.step === "kubelet/worker-1" && (call.argv[2] ?? "").includes("bootdeck-kubelet") && failOnce) {
        failOnce = false;
        return { exitCode: 1, stderr: ["the kubelet is not running steadily"] };
      }
      return undefined;
    });
    const { runId, status, plan, api } = await runPlanned({ type: "bootstrap" }, first);
    expect(status).toMatch(/^failed: kubelet\/worker-1:/);
    expectSentAsPlanned(plan, first, runId);
    await expectApiAsPlanned(plan, api, runId);
    await retryRun({ runId });
    const again = new RecordingExecutor();
    // worker-1 still carries the lock of another run that has finished (a release that never arrived).
    const other = (await getDb().run.findFirstOrThrow({ where: { clusterId, status: { in: ["succeeded", "failed"] }, id: { not: runId } }, select: { id: true } })).id;
    again.locks.set("worker-1", other);
    expect(await executeRun(runId, { workerId: "w-test", executor: again, api: () => new FakeClusterApi(HOSTS), heartbeatMs: 50 })).toBe("succeeded");
    // The take-over is the finished run's own release (the plan's release command with its id), then the planned command again.
    const takeOver = again.runs.filter((r) => r.host === "worker-1" && r.argv[3] === "bootdeck-unlock" && r.argv[4] === other);
    expect(takeOver).toHaveLength(1);
    const allowedExtra = new Set([shellCommand(plan.lock!.release).replace(runId, other)]);
    const rest = new RecordingExecutor();
    rest.runs.push(...again.runs.filter((r) => !allowedExtra.has(shellCommand(r.argv))));
    rest.uploads.push(...again.uploads);
    const retried = (await getDb().runEvent.findFirstOrThrow({ where: { runId, type: "run.retried" } })).data;
    const keys = new Set<string>(JSON.parse(retried).steps);
    expect(keys.has("kubelet/worker-1")).toBe(true);
    expectSentAsPlanned(plan, rest, runId, (k) => keys.has(k));
    const events = await getDb().runEvent.findMany({ where: { runId, type: "host.lock-taken-over" } });
    expect(events.map((e) => JSON.parse(e.data))).toEqual([expect.objectContaining({ host: "worker-1", from: other })]);
  });

  // Disaster recovery: the snapshot a backup streams back, and etcd and the control plane as healthy hosts report them.
  const snapshot = "etcd snapshot bytes of the plan test";
  const masters = HOSTS.filter((h) => h.startsWith("master"));
  const drHosts = (call: RecordedRun): Reply => {
    const name = scriptName(call.argv);
    if (name === "bootdeck-snapshot")
      return { stdout: `bootdeck-snapshot-status {"hash":1,"revision":1234,"totalKey":10,"totalSize":4096,"version":"3.6.8"}\nbootdeck-snapshot-file ${createHash("sha256").update(snapshot).digest("hex")} ${Buffer.byteLength(snapshot)}\n` };
    if (call.argv[0] === "cat") return { stdout: snapshot };
    if (name === "bootdeck-etcd-status") {
      const endpoints = masters.map((_, i) => `https://192.0.2.${11 + i}:2379`);
      return { stdout: `--- health\n${JSON.stringify(endpoints.map((endpoint) => ({ endpoint, health: true })))}\n--- status\n${JSON.stringify(endpoints.map((Endpoint) => ({ Endpoint, Status: { header: { revision: 2000 } } })))}\n` };
    }
    if (name === "bootdeck-running") return { stdout: "kube-apiserver=1\nkube-controller-manager=1\nkube-scheduler=1\n" };
    return undefined;
  };

  it("backup: the first master's snapshot only (the others are asked when needed), stored encrypted", async () => {
    const rec = new RecordingExecutor(drHosts);
    const { runId, status, plan, api } = await runPlanned({ type: "backup" }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
    expect(new Set(rec.runs.map((r) => r.host))).toEqual(new Set(["master-1"]));
    expect(await getDb().backup.count({ where: { runId } })).toBe(1);
  });

  /** Restores the newest backup on healthy hosts: succeeded, sent and written as planned. */
  const restoreOfTheBackup = async () => {
    const backup = await getDb().backup.findFirstOrThrow({ where: { clusterId }, orderBy: { createdAt: "desc" }, select: { id: true } });
    const rec = new RecordingExecutor(drHosts);
    const { runId, status, plan, api } = await runPlanned({ type: "restore", backup: backup.id, confirm: true }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
    return { runId, plan, rec };
  };

  it("restore of that backup", async () => {
    const { plan, rec } = await restoreOfTheBackup();
    // The masters were locked for the run and are released at its end.
    expect(plan.lock?.hosts).toEqual(masters);
    for (const m of masters) expect(rec.locks.has(m)).toBe(false);
  });

  it("recover", async () => {
    const rec = new RecordingExecutor(drHosts);
    const { runId, status, plan, api } = await runPlanned({ type: "recover", confirm: true }, rec);
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
  });

  it("rotate-certs: the renewed certificates served where the plan says, the Secrets patched as planned", async () => {
    const runId = await planRun({ clusterId, body: { type: "rotate-certs", confirm: true }, by: "test" });
    const { assetSetId } = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { assetSetId: true } });
    const rows = await getDb().asset.findMany({ where: { assetSetId: assetSetId! }, select: { id: true, path: true, content: true, sensitive: true } });
    const renewed = new Map(rows.map((r) => [r.path, assetContent(r)]));
    const def = (await getClusterOrThrow({ id: clusterId })).definition;
    const nameAt = new Map(def.spec.hosts.map((h) => [h.address, h.name]));
    // The hosts serve the renewed set (the kubelet's port any certificate); a worker's client certificate changes with its renewal.
    const pair = (crt: string) => ({ cert: renewed.get(`${crt}.crt`)!, key: renewed.get(`${crt}.key`)! });
    const renewedOn = new Set<string>();
    const removed = new Set<string>();
    const rec = new TlsRecordingExecutor(
      (call) => {
        const dr = drHosts(call);
        if (dr) return dr;
        const name = scriptName(call.argv);
        if (name === "bootdeck-temp") return { stdout: removed.has(call.host) ? "waiting\n" : "ready\n" };
        if (name === "bootdeck" && (call.argv[2] ?? "").includes("bootdeck-removed")) removed.add(call.host);
        if (name === "bootdeck" && call.argv[2] === KUBELET_CERTS_SCRIPT) renewedOn.add(call.host);
        if (call.step.startsWith("kubelets/") && name !== "bootdeck") return { stdout: `--- /var/lib/kubelet/pki/kubelet-client-current.pem\n${renewed.get(renewedOn.has(call.host) ? "tls/apiserver.crt" : "tls/ca.crt")}` };
        return undefined;
      },
      (address, port) => (port === 2379 ? pair(`tls/etcd/server-${nameAt.get(address)}`) : pair("tls/apiserver")),
    );
    await startRun({ runId });
    const api = new FakeClusterApi([...HOSTS]);
    const status = await executeRun(runId, { workerId: "w-test", executor: rec, api: () => api, heartbeatMs: 50 });
    const failed = status === "failed" ? (await getDb().step.findMany({ where: { runId, status: "failed" } })).map((x) => `${x.key}: ${x.error}`).join("; ") : "";
    expect(`${status}${failed ? `: ${failed}` : ""}`).toBe("succeeded");
    const plan = await getRunPlan(runId);
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
    expect(api.writes.filter((w) => w.method === "PATCH" && w.path.includes("/secrets/")).map((w) => w.path).sort()).toEqual(["/api/v1/namespaces/kube-system/secrets/kube-apiserver", "/api/v1/namespaces/kube-system/secrets/kube-controller-manager"]);
  }, 120_000);

  /** Masters whose API servers run the encryption configuration last written to them, and whose etcd holds `secrets` Secrets under the new key. */
  const keyRotationHosts = (api: FakeClusterApi, secrets: number) => {
    const rec = new RecordingExecutor((call) => (scriptName(call.argv) === "bootdeck-at-rest" ? { stdout: `secrets=${secrets}\nwith-key=${secrets}\n` } : undefined));
    const upload = rec.upload.bind(rec);
    rec.upload = async (host, files, opts) => {
      const r = await upload(host, files, opts);
      const config = rec.uploads.at(-1)!.files.find((f) => f.path.endsWith("/encryption-config.yaml"));
      if (config) api.encryptionConfigSha = config.sha256;
      return r;
    };
    return rec;
  };

  it("rotate-encryption-key: each configuration where the plan says, the Secret patched with it, every Secret written back", async () => {
    const api = new FakeClusterApi([...HOSTS]);
    // Secrets the cluster holds; the API servers report the configuration last written to a master.
    for (const [ns, name] of [["default", "app"], ["kube-system", "bootstrap-token-abcdef"]] as const) api.objectsStore.set(`/api/v1/namespaces/${ns}/secrets/${name}`, { apiVersion: "v1", kind: "Secret", metadata: { name, namespace: ns, resourceVersion: "7" }, data: { v: "eA==" } });
    const rec = keyRotationHosts(api, 2);
    const { runId, status, plan } = await runPlanned({ type: "rotate-encryption-key", confirm: true }, rec, { api });
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
    // Three configurations onto every master, in order; the Secret patched with each.
    expect(plan.phases.map((p) => p.id)).toEqual(["add", "write", "rewrite", "drop", "verify"]);
    for (const phase of ["add", "write", "drop"]) expect(rec.uploads.filter((u) => u.step === `${phase}/cluster`).map((u) => u.host)).toEqual(masters);
    const patches = api.writes.filter((w) => w.method === "PATCH" && w.path === "/api/v1/namespaces/kube-system/secrets/kube-apiserver");
    expect(patches).toHaveLength(3);
    // Then each API server pod annotated with the configuration's checksum, so that its kubelet writes the Secret's files at once.
    const podPatches = api.writes.filter((w) => w.method === "PATCH" && w.path.startsWith("/api/v1/namespaces/kube-system/pods/"));
    expect(podPatches.map((w) => w.path)).toEqual(Array.from({ length: 3 }, () => masters.map((m) => `/api/v1/namespaces/kube-system/pods/kube-apiserver-${m}`)).flat());
    expect(api.writes.indexOf(podPatches[0]!)).toBeGreaterThan(api.writes.indexOf(patches[0]!));
    const { assetSetId } = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { assetSetId: true } });
    const set = new Map((await getDb().asset.findMany({ where: { assetSetId: assetSetId! } })).map((a) => [a.path, assetContent(a)]));
    expect(Buffer.from((patches[2]!.body as { data: Record<string, string> }).data["encryption-config.yaml"]!, "base64").toString()).toBe(set.get("apiserver/encryption-config.yaml"));
    // Both Secrets written back as they were listed (their resourceVersion with them).
    expect(api.writes.filter((w) => w.method === "PUT").map((w) => [w.path, (w.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion])).toEqual([
      ["/api/v1/namespaces/default/secrets/app", "7"],
      ["/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef", "7"],
    ]);
    // No key in the plan a browser is shown.
    const secretbox = /secret: (\S+)/g;
    for (const key of [...(set.get("apiserver/encryption-config.yaml") ?? "").matchAll(secretbox)].map((m) => m[1]!)) expect(JSON.stringify(plan)).not.toContain(key);
  });

  it("restore after the key rotation: its set reads with the dropped key too, so the snapshot's Secrets stay readable", async () => {
    const { runId, plan } = await restoreOfTheBackup();
    const configOf = async (id: string) => assetContent(await getDb().asset.findFirstOrThrow({ where: { assetSet: { runs: { some: { id } } }, path: "apiserver/encryption-config.yaml" } }));
    const rotation = await getDb().run.findFirstOrThrow({ where: { clusterId, type: "rotate-encryption-key" }, orderBy: { createdAt: "desc" }, select: { id: true } });
    const names = (text: string) => [...text.matchAll(/name: (key-\S+)/g)].map((m) => m[1]);
    const rotated = names(await configOf(rotation.id));
    expect(rotated).toHaveLength(1);
    const restored = names(await configOf(runId));
    expect(restored[0]).toBe(rotated[0]);
    expect(restored.length).toBe(2);
    // The temporary control plane carries that configuration.
    const temp = plan.phases.find((p) => p.id === "control-plane")!.steps[0]!.files.find((f) => f.path.endsWith("/encryption-config.yaml"))!;
    expect(createHash("sha256").update(await configOf(runId)).digest("hex")).toBe(temp.sha256);

    // Another rotation drops both; a recovery after it does not bring them back (a key may be rotated because it leaked).
    const api2 = new FakeClusterApi([...HOSTS]);
    const again = await runPlanned({ type: "rotate-encryption-key", confirm: true }, keyRotationHosts(api2, 0), { api: api2 });
    expect(again.status).toBe("succeeded");
    const third = names(await configOf(again.runId));
    expect(third).toHaveLength(1);
    expect(restored).not.toContain(third[0]);
    const recovered = await runPlanned({ type: "recover", confirm: true }, new RecordingExecutor(drHosts));
    expect(recovered.status).toBe("succeeded");
    expect(names(await configOf(recovered.runId))).toEqual(third);
  });

  it("bootstrap of a static control plane: no checkpoint anywhere", async () => {
    const def = exampleDefinition({ name: "as-planned-static", hosts: 5 });
    def.spec.kubernetes.controlPlane = "static";
    const staticId = (await createCluster({ definition: def, secrets: { "admin-key": { privateKey } } })).id;
    await renderAndSaveAssetSet({ clusterId: staticId, options: {} });
    const rec = new RecordingExecutor();
    const { runId, status, plan, api } = await runPlanned({ type: "bootstrap" }, rec, { cluster: staticId });
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
    expect(rec.runs.some((r) => (r.argv[2] ?? "").includes("bootdeck-checkpoint"))).toBe(false);
    expect(rec.uploads.flatMap((u) => u.files).some((f) => f.path.includes("checkpoint"))).toBe(false);
  });

  it("uses the definition it was planned from, never the cluster's current one", async () => {
    const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    await startRun({ runId });
    // The stored definition changes under the running run (an edit that bypassed every guard).
    const cluster = await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId } });
    const changed = JSON.parse(cluster.definition);
    changed.spec.hosts[3].address = "198.51.100.99";
    await getDb().cluster.update({ where: { id: clusterId }, data: { definition: JSON.stringify(changed) } });
    try {
      const { rec, addresses } = recorder();
      expect(await executeRun(runId, { workerId: "w-test", executor: rec, api: () => new FakeClusterApi(HOSTS) })).toBe("succeeded");
      expect(addresses.find((a) => a.host === "worker-1")?.address).toBe("192.0.2.14");
      expect(addresses.some((a) => a.address === "198.51.100.99")).toBe(false);
    } finally {
      await getDb().cluster.update({ where: { id: clusterId }, data: { definition: cluster.definition } });
    }
  });
});

describe("day two: what reaches the hosts and the API is what the plan shows", () => {
  // A cluster of its own: these runs change its definition (its version, its hosts).
  let day2: string;
  let def: ClusterDefinition;
  let etcd: FakeEtcd;
  const TO = "v1.37.2";

  beforeAll(async () => {
    def = exampleDefinition({ name: "as-planned-day2", hosts: 5 }) as ClusterDefinition;
    day2 = (await createCluster({ definition: def, secrets: { "admin-key": { privateKey } } })).id;
    await renderAndSaveAssetSet({ clusterId: day2, options: {} });
    etcd = new FakeEtcd(deriveCluster(def).etcdMembers);
  }, 60_000);

  /** Healthy day-2 hosts: etcd answers, the mirror serves the new version, the API server is ready; a swapped kubelet reports the new version. */
  const hosts = (api: FakeClusterApi) => (call: RecordedRun): Reply => {
    const answer = etcd.reply(call.argv);
    if (answer) return answer;
    const name = scriptName(call.argv);
    if (name === "bootdeck-upgrade-preflight") return { stdout: "binary=ok\nsums=ok\nkubelet=v1.36.3\nfree_kb=9000000\nstage_free_kb=9000000\ncgroup=cgroup2fs\n" };
    if (name === "bootdeck-readyz") return { stdout: "200\n" };
    if (call.argv.some((a) => a.startsWith("file:///var/lib/bootdeck/stage/")) && call.argv.includes("/usr/local/bin/kubelet")) api.kubelets.set(call.host, TO);
    return undefined;
  };

  it("upgrade: etcd, the control plane's objects as planned, each kubelet cordoned, drained, swapped, uncordoned", async () => {
    const images = imagesFor(capabilitiesFor(TO), def.spec.images.registry);
    const api = new FakeClusterApi([...HOSTS]);
    api.images.apiserver = images.apiserver;
    api.images.etcd = images.etcd;
    etcd.version = (images.etcd ?? "").slice((images.etcd ?? "").lastIndexOf(":") + 1).replace(/-\d+$/, "");
    const rec = new RecordingExecutor(hosts(api));
    const { runId, status, plan } = await runPlanned({ type: "upgrade", version: TO }, rec, { cluster: day2, api });
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
    // Every node was cordoned and uncordoned as its step planned; the control plane's objects were written from the plan.
    for (const h of HOSTS) expect(api.writes.filter((w) => w.path === `/api/v1/nodes/${h}`).map((w) => JSON.stringify(w.body))).toEqual([JSON.stringify({ spec: { unschedulable: true } }), JSON.stringify({ spec: { unschedulable: null } })]);
    expect(api.writes.filter((w) => w.method === "POST" || w.method === "PUT").length).toBeGreaterThan(10);
  });

  it("remove: etcd member, drain, Node deleted, reset, the definition forgets the hosts", async () => {
    const api = new FakeClusterApi([...HOSTS]);
    api.kubeletVersion = TO;
    const rec = new RecordingExecutor(hosts(api));
    const { runId, status, plan } = await runPlanned({ type: "remove", hosts: ["master-3", "worker-2"], confirm: true }, rec, { cluster: day2, api });
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
    expect(api.writes.filter((w) => w.method === "DELETE").map((w) => w.path).sort()).toEqual(["/api/v1/nodes/master-3", "/api/v1/nodes/worker-2"]);
  });

  it("add a master: etcd learner, promoted; its node joins with its role", async () => {
    // master-3 comes back to the definition, then joins the running cluster.
    const view = await getClusterOrThrow({ id: day2 });
    const back = structuredClone(view.definition);
    back.spec.hosts.splice(2, 0, def.spec.hosts[2]!);
    await updateCluster({ id: day2, definition: back, secrets: {} });
    const api = new FakeClusterApi(["master-1", "master-2", "master-3", "worker-1"]);
    api.kubeletVersion = TO;
    const rec = new RecordingExecutor(hosts(api));
    const { runId, status, plan } = await runPlanned({ type: "join", hosts: ["master-3"] }, rec, { cluster: day2, api });
    expect(status).toBe("succeeded");
    expectSentAsPlanned(plan, rec, runId);
    await expectApiAsPlanned(plan, api, runId);
    expect(rec.runs.filter((r) => scriptName(r.argv) === "bootdeck-etcd").map((r) => r.argv[4])).toEqual(expect.arrayContaining(["add-learner", "promote"]));
  });
});

describe("editing a cluster makes its plans stale", () => {
  it("refuses to start or retry a run planned before the cluster was edited, saying to plan again", async () => {
    const planned = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    const failed = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    await startRun({ runId: failed });
    const rec = new RecordingExecutor((call) => (call.step === "preflight/worker-2" ? { error: new Error("worker-2 unreachable") } : undefined));
    expect(await executeRun(failed, { workerId: "w-test", executor: rec, api: () => new FakeClusterApi(HOSTS) })).toBe("failed");
    const view = await getClusterOrThrow({ id: clusterId });
    const edited = structuredClone(view.definition);
    edited.spec.hosts[4]!.address = "192.0.2.99";
    await updateCluster({ id: clusterId, definition: edited, secrets: {} });
    await expect(startRun({ runId: planned })).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/edited after .* was planned.*plan a new run/) });
    await expect(retryRun({ runId: failed })).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/plan a new run/) });
    // A run planned now starts.
    const fresh = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    await startRun({ runId: fresh });
    expect(await executeRun(fresh, { workerId: "w-test", executor: new RecordingExecutor(), api: () => new FakeClusterApi(HOSTS) })).toBe("succeeded");
    await updateCluster({ id: clusterId, definition: view.definition, secrets: {} });
  });

  it("refuses an edit while a run is in progress", async () => {
    const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    await startRun({ runId });
    const view = await getClusterOrThrow({ id: clusterId });
    await expect(updateCluster({ id: clusterId, definition: view.definition, secrets: {} })).rejects.toMatchObject({ status: 409 });
    expect(await executeRun(runId, { workerId: "w-test", executor: new RecordingExecutor(), api: () => new FakeClusterApi(HOSTS) })).toBe("succeeded");
  });
});
