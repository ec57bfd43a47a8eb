// Day-two checks on a bootstrapped lab cluster, shared by the suites that run them: an etcd backup
// on demand, every master rebooted at once, a restore from the backup, and the API address failing
// over when its holder is cut off. Each runs the product's runs in this process (worker id "test") and
// checks what a user would. Test code only.
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { labVip } from "../lab/cluster-yaml";
import { labCut, labHeal, labReboot } from "../lab/lab";
import type { LabState } from "../lab/state";
import { startBackupRun } from "../lib/engine/backup-runs";
import { getBackupOrThrow, listBackups, openVerifiedBackup } from "../lib/backups/store";
import type { ClusterDefinition } from "../lib/cluster/definition";
import { profileOf } from "../lib/cluster/versions";
import { getDb } from "../lib/db/client";
import { listRunEvents } from "../lib/engine/events";
import { planRun } from "../lib/engine/plan-run";
import { executeRun } from "../lib/engine/runner";
import { startRun } from "../lib/engine/runs";
import type { CreateRunBody } from "../lib/engine/schemas";
import { AUDIT_LOG_DIR } from "../lib/assets/api-policy";
import { assetOfSet } from "../lib/assets/store";
import { ENCRYPTION_CONFIG_ASSET } from "../lib/assets/encryption";
import { runHostDiagnostics } from "../lib/engine/diagnostics";
import { outage, probeApi, probeFromHost, sshTo, stalls } from "./lab-api";
import { ADMIN_KUBECTL, type LabKube } from "./lab-kube";

/** The run's status, with every failed step's error and output tail attached when it did not succeed. */
export async function outcome(runId: string, status: string): Promise<string> {
  if (status === "succeeded") return status;
  const failed = await getDb().step.findMany({ where: { runId, status: "failed" }, select: { key: true, error: true, output: true } });
  if (!failed.length) {
    // No step failed (the run could not run at all): its summary says why.
    const { summary } = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { summary: true } });
    return `${status}: ${summary ? String((JSON.parse(summary) as { message?: unknown }).message ?? "") : "no summary"}`;
  }
  return `${status}: ${failed.map((f) => `${f.key}: ${f.error}\n${(f.output ?? "").split("\n").slice(-15).join("\n")}`).join("\n---\n")}`;
}

/** Where a run's time went: each phase's span, then its slowest steps (last attempt), for the suites' logs. */
export async function runTimes(runId: string, slowest = 8): Promise<string> {
  const steps = await getDb().step.findMany({ where: { runId, startedAt: { not: null } }, select: { key: true, phase: true, attempts: true, startedAt: true, finishedAt: true } });
  const now = Date.now();
  // A step still running counts until now.
  const end = (s: (typeof steps)[number]) => s.finishedAt?.getTime() ?? now;
  const ms = (s: (typeof steps)[number]) => end(s) - s.startedAt!.getTime();
  const phases = new Map<string, { from: number; to: number }>();
  for (const s of steps) {
    const p = phases.get(s.phase) ?? { from: Infinity, to: 0 };
    phases.set(s.phase, { from: Math.min(p.from, s.startedAt!.getTime()), to: Math.max(p.to, end(s)) });
  }
  const sec = (n: number) => `${Math.round(n / 1000)} s`;
  const spans = [...phases].sort((a, b) => a[1].from - b[1].from).map(([p, t]) => `${p} ${sec(t.to - t.from)}`);
  const top = [...steps].sort((a, b) => ms(b) - ms(a)).slice(0, slowest).map((s) => `${s.key} ${sec(ms(s))}${s.attempts > 1 ? ` (attempt ${s.attempts})` : ""}`);
  return `phases: ${spans.join(", ")}; slowest steps: ${top.join(", ")}`;
}

/** Plans, starts and executes a run in this process; its status as `outcome` gives it. */
export async function runHere(clusterId: string, body: CreateRunBody): Promise<{ runId: string; status: string }> {
  const runId = await planRun({ clusterId, body, by: "test" });
  await startRun({ runId });
  return { runId, status: await outcome(runId, await executeRun(runId, { workerId: "test" })) };
}

/** The admin kubeconfig of the asset set the run executed (decrypted). */
export async function adminKubeconfigOf(runId: string): Promise<string> {
  const { assetSetId } = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { assetSetId: true } });
  const kubeconfig = assetSetId ? await assetOfSet({ setId: assetSetId, path: "auth/kubeconfig" }) : null;
  if (kubeconfig === null) throw new Error(`run ${runId}'s asset set has no auth/kubeconfig`);
  return kubeconfig;
}

/** The summary the step last finished with. */
export async function summaryOf(runId: string, key: string): Promise<string> {
  const events = await listRunEvents({ runId, limit: 100_000 });
  return String(events.filter((e) => e.type === "step.finished" && e.data.key === key).at(-1)?.data.summary ?? "");
}

/** Polls until fn returns a value other than a reason (a string); the last reason is in the timeout's message. */
export async function untilTrue<T>(what: string, fn: () => T | string, ms: number, everyMs = 5_000, trail?: string[]): Promise<T> {
  const start = Date.now();
  const end = start + ms;
  let why = "";
  for (;;) {
    const v = fn();
    if (typeof v !== "string") return v;
    // What it waited on, each reason once with when it was first seen (where a slow recovery's time went).
    if (v !== why) trail?.push(`${Math.round((Date.now() - start) / 1000)} s: ${v.slice(0, 160)}`);
    why = v;
    if (Date.now() > end) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}: ${why}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export type RecoveryCluster = { lab: LabState; kube: LabKube; clusterId: string; masters: string[]; nodes: number };

/** The control plane answers and every control-plane pod and node is Running/Ready, judged with kubectl on the masters. */
export function controlPlaneUp({ kube, masters, nodes }: RecoveryCluster): true | string {
  for (const host of masters) {
    const ready = kube.tryKubectl("get --raw /readyz", { host });
    if (ready.code !== 0) continue;
    const listed = kube.tryKubectl("get nodes --no-headers", { host });
    if (listed.code !== 0) return `nodes: ${listed.out.slice(0, 200)}`;
    const lines = listed.out.trim().split("\n");
    const notReady = lines.filter((l) => !/\sReady\s/.test(l));
    if (lines.length < nodes || notReady.length) return `nodes not Ready: ${notReady.join("; ") || `${lines.length} of ${nodes} listed`}`;
    const pods = kube.tryKubectl("-n kube-system get pods --no-headers", { host });
    const bad = pods.out.trim().split("\n").filter((l) => /^(kube-apiserver|kube-controller-manager|kube-scheduler|etcd)/.test(l) && !/\s(\d+)\/\1\s+Running\s/.test(l));
    if (pods.code !== 0 || bad.length) return `control-plane pods not Ready: ${bad.join("; ") || pods.out.slice(0, 200)}`;
    return true;
  }
  return "no master's API server answers /readyz";
}

export const configMap = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default" }, data: { at: new Date().toISOString() } });

const etcdctl = "crictl exec $(crictl ps -q --name '^etcd$' | head -n1) etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/etcd/ca.crt --cert=/etc/kubernetes/etcd/server.crt --key=/etc/kubernetes/etcd/server.key";

/**
 * Secrets are encrypted at rest: a Secret created through the API is stored in etcd under the
 * cluster's secretbox key (the `k8s:enc:secretbox:v1:` prefix, the value nowhere in the bytes), and the
 * API still returns it decrypted.
 */
export function secretEncryptedAtRestChecked({ kube, masters }: Pick<RecoveryCluster, "kube" | "masters">, name: string): string {
  const value = `plain-${randomBytes(12).toString("hex")}`;
  kube.kubectl(`-n default create secret generic ${name} --from-literal=value=${value}`);
  const stored = Buffer.from(kube.ssh(masters[0]!, `${etcdctl} get /registry/secrets/default/${name} --print-value-only | base64 -w0`).trim(), "base64");
  expect(stored.subarray(0, 40).toString("latin1")).toMatch(/^k8s:enc:secretbox:v1:key-\d{8}(-\d+)?:/);
  expect(stored.includes(value)).toBe(false);
  expect(Buffer.from(kube.kubectl(`-n default get secret ${name} -o jsonpath={.data.value}`).trim(), "base64").toString()).toBe(value);
  return value;
}

/**
 * The encryption key rotation run on a running cluster: it succeeds with no failed API probe while the
 * configurations change; afterwards the Secret `secret` (made by secretEncryptedAtRestChecked) is stored
 * under the new key in etcd and still reads, and every master's configuration holds the new key alone.
 * Returns the run's time in seconds.
 */
export async function keyRotationChecked({ kube, masters, clusterId }: Pick<RecoveryCluster, "kube" | "masters" | "clusterId">, secret: string): Promise<number> {
  const value = Buffer.from(kube.kubectl(`-n default get secret ${secret} -o jsonpath={.data.value}`).trim(), "base64").toString();
  const started = Date.now();
  const r = await runHere(clusterId, { type: "rotate-encryption-key", confirm: true });
  expect(r.status).toBe("succeeded");
  const seconds = (Date.now() - started) / 1000;
  const { assetSetId } = await getDb().run.findUniqueOrThrow({ where: { id: r.runId }, select: { assetSetId: true } });
  const config = (await assetOfSet({ setId: assetSetId!, path: ENCRYPTION_CONFIG_ASSET }))!;
  const key = /name: (key-\S+)/.exec(config)![1]!;
  const stored = Buffer.from(kube.ssh(masters[0]!, `${etcdctl} get /registry/secrets/default/${secret} --print-value-only | base64 -w0`).trim(), "base64");
  expect(stored.subarray(0, 60).toString("latin1").startsWith(`k8s:enc:secretbox:v1:${key}:`)).toBe(true);
  expect(Buffer.from(kube.kubectl(`-n default get secret ${secret} -o jsonpath={.data.value}`).trim(), "base64").toString()).toBe(value);
  for (const m of masters) expect(kube.ssh(m, "grep -h 'name: key-' /etc/kubernetes/*/encryption-config.yaml | sort -u").trim()).toBe(`- name: ${key}`);
  const events = await listRunEvents({ runId: r.runId, limit: 100_000 });
  const probes = events.filter((e) => e.type === "step.finished" && typeof e.data.failedProbes === "number").map((e) => `${String(e.data.key)} ${Number(e.data.failedProbes)}`);
  expect(probes).toEqual(["add/cluster 0", "write/cluster 0", "drop/cluster 0"]);
  console.log(`encryption key rotation to ${key} in ${seconds.toFixed(0)} s; ${await runTimes(r.runId)}`);
  return seconds;
}

/**
 * The hardening every cluster gets, seen from outside (docs/hardening.md): a new Secret named `secret`
 * is encrypted at rest, and then
 *   - Pod Security Admission: in a namespace without labels a pod on the host's network is refused
 *     (baseline enforced) and a plain one admitted with a warning (restricted warned); kube-system is exempt;
 *   - the audit log on the masters records who read the Secret, at Metadata level, and never its value;
 *     a master's diagnostics end with the log's last lines;
 *   - the API server serves no profiling endpoints.
 */
export async function hardeningChecked({ kube, masters, clusterId }: Pick<RecoveryCluster, "kube" | "masters" | "clusterId">, secret: string): Promise<void> {
  const value = secretEncryptedAtRestChecked({ kube, masters }, secret);

  const ns = `psa-${randomBytes(3).toString("hex")}`;
  kube.kubectl(`create namespace ${ns}`);
  // Server-side dry runs go through admission; nothing is scheduled, so no image is pulled.
  const admit = (namespace: string, spec: Record<string, unknown>) => {
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "probe", namespace }, spec: { ...spec, containers: [{ name: "c", image: "registry.invalid/probe:1" }] } };
    return kube.trySsh(masters[0]!, `printf '%s' '${JSON.stringify(pod)}' | ${ADMIN_KUBECTL} apply --dry-run=server -f - 2>&1`);
  };
  const hostNetwork = admit(ns, { hostNetwork: true });
  expect(hostNetwork.code, hostNetwork.out).not.toBe(0);
  expect(hostNetwork.out).toMatch(/violates PodSecurity "baseline:latest": host namespaces \(hostNetwork=true\)/);
  const plain = admit(ns, {});
  expect(plain.code, plain.out).toBe(0);
  expect(plain.out).toMatch(/would violate PodSecurity "restricted:latest"/);
  const system = admit("kube-system", { hostNetwork: true });
  expect(system.code, system.out).toBe(0);

  // The read above reached one master's API server (whichever held the API address): its log has it.
  // Searched on the hosts: the logs hold megabytes from the bootstrap on (rotated files included).
  const logs = `${AUDIT_LOG_DIR}/*.log`;
  const reads = masters
    .flatMap((m) => kube.ssh(m, `cat ${logs} 2>/dev/null | grep -F '"name":"${secret}"' | grep -F '"resource":"secrets"' | grep -F '"verb":"get"' || true`).split("\n"))
    .filter(Boolean);
  expect(reads.length, `audit lines for the Secret ${secret}`).toBeGreaterThanOrEqual(1);
  for (const l of reads) expect(JSON.parse(l)).toMatchObject({ kind: "Event", level: "Metadata", user: { username: "kubernetes-admin" } });
  for (const m of masters) expect(kube.ssh(m, `cat ${logs} 2>/dev/null | grep -c -F -e '${value}' -e '${Buffer.from(value).toString("base64")}' || true`).trim(), `the Secret's value in ${m}'s audit log`).toBe("0");
  const diagnostics = await runHostDiagnostics({ clusterId, host: masters[0]! });
  expect(diagnostics.sections.find((x) => x.title === "API audit log")?.text).toMatch(/"kind":"Event"/);

  // Events go through EventRateLimit (its limits are upstream's to enforce; that it runs is ours): one
  // created here, then the admission metrics of the API server that took it (the one kubectl reaches).
  kube.kubectl("create -f -", { input: JSON.stringify({ apiVersion: "v1", kind: "Event", metadata: { name: "probe", namespace: ns }, involvedObject: { kind: "Pod", name: "probe", namespace: ns }, reason: "Probe", message: "rate-limited admission", type: "Normal" }) });
  // Filtered on the master: /metrics is megabytes.
  const admitted = kube.ssh(masters[0]!, `${ADMIN_KUBECTL} get --raw /metrics | grep '^apiserver_admission_controller_admission_duration_seconds_count{' | grep -F 'name="EventRateLimit"' | grep -F 'operation="CREATE"' || true`);
  expect(admitted.trim(), "EventRateLimit in the API server's admission metrics").not.toBe("");
  kube.kubectl(`delete namespace ${ns} --wait=false`);

  const pprof = kube.tryKubectl("get --raw /debug/pprof/");
  expect(pprof.code, pprof.out).not.toBe(0);
  expect(pprof.out).toMatch(/NotFound|not found/i);
}

/**
 * Creates the ConfigMap `marker`, then takes a backup on demand and checks it: streamed back, stored
 * encrypted in `dataDir`, its checksum and revision what etcd says, nothing left on the master.
 * Returns the backup's id.
 */
export async function backupOnDemandChecked(c: RecoveryCluster, dataDir: string, marker: string): Promise<string> {
  c.kube.kubectl("apply -f -", { input: configMap(marker) });
  const revisionBefore = BigInt(JSON.parse(c.kube.ssh(c.masters[0]!, `${etcdctl} endpoint status -w json`))[0].Status.header.revision as number);
  const runId = await startBackupRun({ clusterId: c.clusterId, trigger: "manual" });
  expect(await outcome(runId, await executeRun(runId, { workerId: "test" }))).toBe("succeeded");
  const [b] = await listBackups({ clusterId: c.clusterId });
  // The snapshot's storage version: the major.minor of the etcd the cluster's profile pins ("3.6.8-0" → 3.6.x).
  const { definition } = await getDb().cluster.findUniqueOrThrow({ where: { id: c.clusterId }, select: { definition: true } });
  const minor = profileOf((JSON.parse(definition) as ClusterDefinition).spec.kubernetes.version).pins.etcd.split(".").slice(0, 2).join("\\.");
  const etcdVersion = expect.stringMatching(new RegExp(`^${minor}\\.\\d+$`));
  expect(b).toMatchObject({ trigger: "manual", member: c.masters[0], runId, etcdVersion });
  expect(BigInt(b!.revision)).toBeGreaterThanOrEqual(revisionBefore);
  // The stored bytes are the snapshot: its checksum checks out and the marker is in it, but not in the file at rest.
  const row = await getBackupOrThrow({ clusterId: c.clusterId, backupId: b!.id });
  const chunks: Buffer[] = [];
  for await (const chunk of (await openVerifiedBackup(row)).stream()) chunks.push(chunk as Buffer);
  const plain = Buffer.concat(chunks);
  expect(plain.length).toBe(b!.size);
  expect(createHash("sha256").update(plain).digest("hex")).toBe(b!.sha256);
  expect(plain.includes(Buffer.from(marker))).toBe(true);
  expect(readFileSync(`${dataDir}/${row.file}`).includes(Buffer.from(marker))).toBe(false);
  expect(c.kube.ssh(c.masters[0]!, "ls /var/lib/etcd").trim()).toBe("member");
  expect(await summaryOf(runId, "snapshot/cluster")).toMatch(new RegExp(`^backup bk_\\S+ from ${c.masters[0]}: etcd revision \\d+, \\d+ keys, [\\d.]+ (KiB|MiB) \\(sha256 [0-9a-f]{12}…\\), streamed in`));
  return b!.id;
}

/**
 * Deletes `deleted` and creates `created` (ConfigMaps), reboots every master at once and waits for the
 * control plane to come back with no one's help. Returns the seconds that took.
 */
export async function rebootMastersChecked(c: RecoveryCluster, marks: { deleted: string; created: string }): Promise<number> {
  c.kube.kubectl(`delete configmap ${marks.deleted}`);
  c.kube.kubectl("apply -f -", { input: configMap(marks.created) });
  const started = Date.now();
  await labReboot(c.lab.name, c.masters, () => undefined);
  expect(c.kube.tryKubectl("get --raw /readyz", { host: c.masters[0] }).code).not.toBe(0);
  const trail: string[] = [];
  await untilTrue("the control plane back after the reboot", () => controlPlaneUp(c), 15 * 60_000, 5_000, trail);
  const seconds = (Date.now() - started) / 1000;
  console.log(`after the reboot of ${c.masters.join(", ")}, waited on: ${trail.join(" | ")}`);
  expect(c.kube.kubectl(`get configmap ${marks.created} -o name`).trim()).toBe(`configmap/${marks.created}`);
  return seconds;
}

/** What a self-hosted control plane's reboot must show: the checkpoints started it, and handed over to the self-hosted API server. */
export async function checkpointsHandedOver(c: RecoveryCluster): Promise<void> {
  const journal = () => c.kube.ssh(c.masters[0]!, "journalctl -u bootdeck-checkpoint --no-pager");
  expect(journal()).toMatch(/checkpoint started/);
  await untilTrue("the checkpoint to hand over to the self-hosted API server", () => (/checkpoint stopped/.test(journal()) ? true : "still running"), 5 * 60_000);
}

/**
 * Restores `backupId` and checks the cluster is as it was then: `deleted` back, `created` gone, every
 * node re-registered, each member restored with its data kept beside. Returns the run and its seconds.
 */
export async function restoreChecked(c: RecoveryCluster, backupId: string, marks: { deleted: string; created?: string }): Promise<{ runId: string; seconds: number }> {
  // Set by the backup test before; a failed backup must not let a restore of some other backup pass.
  expect(backupId).toMatch(/^bk_/);
  const started = Date.now();
  const r = await runHere(c.clusterId, { type: "restore", backup: backupId, confirm: true });
  expect(r.status).toBe("succeeded");
  const seconds = (Date.now() - started) / 1000;
  expect(c.kube.kubectl(`get configmap ${marks.deleted} -o name`).trim()).toBe(`configmap/${marks.deleted}`);
  if (marks.created) expect(c.kube.tryKubectl(`get configmap ${marks.created}`).out).toMatch(/NotFound/);
  expect(await summaryOf(r.runId, "verify/cluster")).toMatch(new RegExp(`^${c.nodes} nodes Ready with their leases renewed`));
  for (const m of c.masters) expect(c.kube.ssh(m, `ls -d /var/lib/etcd.before-${r.runId}`).trim()).toBe(`/var/lib/etcd.before-${r.runId}`);
  const members = JSON.parse(c.kube.ssh(c.masters[1] ?? c.masters[0]!, `${etcdctl} member list -w json`)).members as { name: string }[];
  expect(members.map((m) => m.name).sort()).toEqual([...c.masters].sort());
  return { runId: r.runId, seconds };
}

/**
 * keepalived's state changes on `masters` since `since` (ms after it, read from their journals), and
 * its API server checks' results, which say why a master gave the address up: "up check failed" (gone
 * or stopping); "check failed (exit 28)": curl's time ran out; 22: an HTTP error such as /readyz's 500;
 * "(due to signal 15)": stopped at keepalived's own limit.
 */
function vrrpChanges(lab: LabState, masters: string[], since: number): { host: string; atMs: number; state: string }[] {
  return masters.flatMap((m) => {
    const lines = sshTo(lab, m, `journalctl -u bootdeck-keepalived --no-pager -o json --output-fields=MESSAGE --since @${Math.floor(since / 1000)}`);
    const seen: { host: string; atMs: number; state: string }[] = [];
    for (const line of lines.split("\n").filter(Boolean)) {
      const entry = JSON.parse(line) as { MESSAGE?: unknown; __REALTIME_TIMESTAMP?: string };
      const message = typeof entry.MESSAGE === "string" ? entry.MESSAGE : "";
      const change = /Entering (MASTER|BACKUP|FAULT) STATE/.exec(message)?.[1];
      const check = /bootdeck_apiserver(_up)?\)? (succeeded|failed|timed out)(?: \((?:exited with status (\d+)|due to signal (\d+))\))?/.exec(message);
      const which = check?.[1] ? "up check" : "check";
      const why = check?.[1] ? "" : check?.[3] ? ` (exit ${check[3]})` : check?.[4] ? ` (due to signal ${check[4]})` : "";
      const state = change ?? (check ? (check[2] === "succeeded" ? `${which} ok` : `${which} ${check[2]}${why}`) : undefined);
      if (!state) continue;
      const atMs = Math.round(Number(entry.__REALTIME_TIMESTAMP) / 1000) - since;
      // keepalived logs each line twice (its console and syslog): one per host, state and second.
      if (!seen.some((c) => c.state === state && Math.abs(c.atMs - atMs) < 1_000)) seen.push({ host: m, atMs, state });
    }
    return seen;
  });
}

/** Who holds the controller-manager's and the scheduler's leader leases, and since when (ms after `since`). */
function leaderLeases(kubectl: (args: string[]) => string, since: number): string {
  return ["kube-controller-manager", "kube-scheduler"]
    .map((name) => {
      try {
        const [holder, acquired] = kubectl(["--request-timeout=5s", "-n", "kube-system", "get", "lease", name, "-o", "jsonpath={.spec.holderIdentity} {.spec.acquireTime}"]).trim().split(" ");
        return `${name} on ${holder?.split("_")[0]} since ${Date.parse(acquired ?? "") - since} ms`;
      } catch (err) {
        return `${name}: not read (${(err as Error).message.split("\n")[0]})`;
      }
    })
    .join(", ");
}

/** How long after the cut the failover check probes the address and judges what it sees. */
const FAILOVER_WINDOW_MS = 20_000;

/**
 * Cuts the master holding the VIP off while kubectl (through the VIP, a new client each time), this
 * machine and every other host probe the address; each must reach the API again within 10 s, the
 * address must stay where keepalived moved it (no VRRP state change on any other master after 10 s),
 * and each series may see at most 3 stalls in the rest of the 20 s (reported with where the leader
 * leases went: a controller-manager that takes over relists everything, which slows every API server on
 * two shared cores). Every other kubelet renews its Lease, and so do the controller-manager's and the
 * scheduler's leaders. `hosts` are the cluster's hosts. Returns the figures as one line.
 */
export async function vipFailoverChecked(lab: LabState, kubectl: (args: string[]) => string, masters: string[], hosts: string[]): Promise<string> {
  const vip = labVip(lab);
  const holder = masters.find((m) => sshTo(lab, m, "ip -o addr show dev eth0").includes(`${vip}/32`));
  expect(holder).toBeDefined();
  const others = hosts.filter((h) => h !== holder);
  // /livez: the address answers (an API server serves there); /readyz: and that API server has etcd.
  const here = probeApi(vip, 6443, 100, { path: "/livez" });
  const ready = probeApi(vip, 6443, 100, { path: "/readyz" });
  const nodes = others.map((h) => ({ h, p: probeFromHost(lab, h, `https://${vip}:6443/livez`, 100) }));
  await new Promise((r) => setTimeout(r, 2_000));
  const leadersBefore = leaderLeases(kubectl, Date.now());
  const cutAt = Date.now();
  labCut(lab.name, holder!);
  let line: string;
  try {
    let kubectlBackMs: number | undefined;
    while (kubectlBackMs === undefined && Date.now() - cutAt < 30_000) {
      try {
        if (kubectl(["--request-timeout=2s", "get", "nodes", "-o", "name"]).includes("node/")) kubectlBackMs = Date.now() - cutAt;
      } catch {
        // not yet
      }
    }
    await new Promise((r) => setTimeout(r, Math.max(0, FAILOVER_WINDOW_MS - (Date.now() - cutAt))));
    const fromHere = outage(here.stop(), cutAt);
    const readyz = outage(ready.stop(), cutAt);
    const fromNodes = await Promise.all(nodes.map(async ({ h, p }) => ({ h, o: outage(await p.stop(), cutAt) })));
    const vrrp = vrrpChanges(lab, masters.filter((m) => m !== holder), cutAt);
    // Back: the address answers again and keeps answering (3 s of answers); a failed probe after that,
    // to the end of the 20 s, is a stall reported apart, not the failover's time.
    const back = (o: ReturnType<typeof outage>) =>
      o.settledMs === undefined
        ? `never 3 s of answers in a row in the window (${o.answered} of ${o.total} probes answered)`
        : `${o.settledMs} ms${o.laterFailures.length ? ` (then ${o.laterFailures.length} failed at ${o.laterFailures.join(", ")} ms)` : ""}`;
    line = [`kubectl ${kubectlBackMs} ms`, `this machine ${back(fromHere)}`, ...fromNodes.map(({ h, o }) => `${h} ${back(o)}`), `(/readyz from this machine: ${back(readyz)})`].join(", ");
    console.log(
      `failover of ${vip} after cutting ${holder}: the API answers again after ${line}\n` +
        `  keepalived: ${vrrp.map((c) => `${c.host} ${c.state} at ${c.atMs} ms${c.atMs > FAILOVER_WINDOW_MS ? " (after the measured window)" : ""}`).join(", ") || "no state change"}\n` +
        `  leader leases before the cut: ${leadersBefore}; after: ${leaderLeases(kubectl, cutAt)}`,
    );
    expect(kubectlBackMs).toBeLessThan(10_000);
    expect(fromHere.settledMs).toBeLessThan(10_000);
    for (const { h, o } of fromNodes) expect(o.settledMs, h).toBeLessThan(10_000);
    // Judged over the window the probes measured; a change read later is printed, not judged (the
    // journals are read when the probes have stopped, a varying time after the window).
    expect(vrrp.filter((c) => !c.state.includes("check") && c.atMs > 10_000 && c.atMs <= FAILOVER_WINDOW_MS), "keepalived state changes after the failover").toEqual([]);
    for (const { h, o } of [{ h: "this machine", o: fromHere }, ...fromNodes]) expect(stalls(o.laterFailures).length, `stalls seen by ${h}`).toBeLessThanOrEqual(3);
  } finally {
    labHeal(lab.name, holder!);
  }
  // Every other node's kubelet reaches the API again (its Lease renewed after the cut).
  await untilTrue(
    "every kubelet's Lease renewed after the cut",
    () => {
      const leases = JSON.parse(kubectl(["-n", "kube-node-lease", "get", "leases", "-o", "json"])) as { items: { metadata: { name: string }; spec: { renewTime: string } }[] };
      const stale = leases.items.filter((l) => l.metadata.name !== holder && Date.parse(l.spec.renewTime) < cutAt);
      return stale.length === 0 ? true : `stale: ${stale.map((l) => l.metadata.name).join(", ")}`;
    },
    60_000,
    250,
  );
  // The controllers and the scheduler go on: a leader renews each lease after the cut (one on the cut
  // master is replaced within the lease's 15 s; with every replica on one master, none would be).
  await untilTrue(
    "the controller-manager's and the scheduler's leader leases renewed after the cut",
    () => {
      let leases: { items: { metadata: { name: string }; spec: { renewTime?: string; holderIdentity?: string } }[] };
      try {
        leases = JSON.parse(kubectl(["-n", "kube-system", "get", "leases", "kube-controller-manager", "kube-scheduler", "-o", "json"]));
      } catch (err) {
        return `the leases not read: ${(err as Error).message.split("\n")[0]}`;
      }
      const stale = leases.items.filter((l) => !l.spec.renewTime || Date.parse(l.spec.renewTime) < cutAt);
      return stale.length === 0 ? true : `not renewed since the cut: ${stale.map((l) => `${l.metadata.name} (held by ${l.spec.holderIdentity ?? "nobody"})`).join(", ")}`;
    },
    60_000,
    500,
  );
  return line;
}
