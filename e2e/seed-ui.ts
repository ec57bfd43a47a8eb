// Seeds the browser tests' database for the pages that need no lab: clusters, runs, asset sets and users
// written straight into it. Nothing here reaches a host, and nothing the dashboard does with it can:
// the hosts are in TEST-NET-1 (192.0.2.0/24), no seeded run of a cluster whose pages open the live view
// ever got its control plane up (so the live view says "No API yet" and connects nowhere), and the
// seeded runs that are "running" hold a lease far in the future, so the engine never resumes them.
// Run with the e2e environment:
//   node --conditions=react-server --import tsx e2e/seed-ui.ts seed            → ids (JSON)
//   … e2e/seed-ui.ts fleet <count>                                             → <count> clusters with health
//   … e2e/seed-ui.ts running                                                   → a bootstrap under way (ids)
//   … e2e/seed-ui.ts accept <runId> <by>                                       → as a separate worker would: warnings
//                                                                                accepted, the run retried to success
//   … e2e/seed-ui.ts retry <runId>                                             → the same for a failed run's retry
import { randomBytes } from "node:crypto";
import { utils } from "ssh2";
import { renderAndSaveAssetSet } from "../lib/clusters/render-assets";
import { createUser } from "../lib/auth/users";
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import { disconnectDb, getDb } from "../lib/db/client";
import { appendRunEvent } from "../lib/engine/events";
import type { PlannedStep, RunPlan } from "../lib/engine/plan";
import { planRun } from "../lib/engine/plan-run";
import { createRun } from "../lib/engine/runs";
import { WARNINGS_NEED_DECISION } from "../lib/clusters/host-state";
import { newId } from "../lib/ids";

import { seededPasswords } from "./seed-users";
import { testKeyPair } from "../test/ssh-key";

/** ssh2 now and then generates an Ed25519 key its own parser refuses: draw again. */
function privateKey(): string {
  for (;;) {
    const key = testKeyPair();
    if (!(utils.parseKey(key.private) instanceof Error)) return key.private;
  }
}

const phaseIds = ["facts", "preflight", "packages", "binaries", "kubelet", "control-plane", "self-hosted", "pivot", "join", "verify"] as const;

/** A bootstrap-shaped plan for these hosts (one step per host and phase; cluster-wide steps for the rest). */
function planFor(hosts: { name: string }[]): RunPlan {
  const step = (phase: string, host: string | null): PlannedStep => ({
    key: `${phase}/${host ?? "cluster"}`,
    phase,
    action: phase,
    title: `${phase} on ${host ?? "the cluster"}`,
    host,
    files: [],
    commands: [`bootdeck-${phase} --host ${host ?? "cluster"}`],
    dependsOn: [],
    timeoutMs: 300_000,
  });
  const perHost = new Set(["facts", "preflight", "packages", "binaries", "kubelet", "join"]);
  return {
    runType: "bootstrap",
    phases: phaseIds.map((id) => ({ id, title: id, steps: perHost.has(id) ? hosts.map((h) => step(id, h.name)) : [step(id, id === "control-plane" ? hosts[0]!.name : null)] })),
  };
}

type StepPatch = { status: string; error?: string; hint?: string; startedAt?: Date; finishedAt?: Date; attempts?: number; output?: string };

async function setSteps(runId: string, patch: (key: string, phase: string, host: string | null) => StepPatch | null): Promise<void> {
  const rows = await getDb().step.findMany({ where: { runId }, select: { id: true, key: true, phase: true, host: { select: { name: true } } } });
  for (const r of rows) {
    const p = patch(r.key, r.phase, r.host?.name ?? null);
    if (p) await getDb().step.update({ where: { id: r.id }, data: { attempts: 1, ...p } });
  }
}

async function finished(runId: string, status: string, message: string, startedAt: Date, finishedAt: Date): Promise<void> {
  await getDb().run.update({ where: { id: runId }, data: { status, startedAt, finishedAt, summary: JSON.stringify({ message }) } });
  await appendRunEvent({ runId, type: "run.started" });
  await appendRunEvent({ runId, type: "run.finished", data: { status, summary: { message } } });
}

async function seed(): Promise<void> {
  const db = getDb();
  const admin = await db.user.findUnique({ where: { username: "admin" }, select: { id: true } });
  for (const [username, role, displayName] of [["lee", "lead", "Lee Lead"], ["sam", "support", "Sam Support"]] as const)
    if (!(await db.user.findUnique({ where: { username } }))) await createUser({ username, displayName, role, password: role === "lead" ? seededPasswords.lead : seededPasswords.support });

  const suffix = randomBytes(3).toString("hex");
  const def = exampleDefinition({ name: `ui-${suffix}`, hosts: 3 });
  def.spec.hosts = [
    { name: "master-1", address: "192.0.2.61", role: "master" },
    { name: "worker-1", address: "192.0.2.62", role: "worker" },
    { name: "worker-2", address: "192.0.2.63", role: "worker" },
  ];
  const { id: clusterId } = await createCluster({ definition: def, secrets: { "admin-key": { privateKey: privateKey() } } });
  // A real asset set (ECDSA-P256, the default: fast), so planned files can be read and certificates expire somewhere.
  await renderAndSaveAssetSet({ clusterId, options: {} });
  await db.host.update({ where: { clusterId_name: { clusterId, name: "worker-2" } }, data: { facts: JSON.stringify({ os: "Debian GNU/Linux 12 (bookworm)", osId: "debian", kernel: "6.1.0-28-amd64", arch: "x86_64", hostname: "worker-2", init: "systemd", cpus: 2, memKb: 4_000_000, addresses: [{ iface: "eth0", cidr: "192.0.2.63/24" }], clockOffsetS: 0.01, gatheredAt: new Date(Date.now() - 3_600_000).toISOString() }) } });
  const hosts = def.spec.hosts;
  const t0 = Date.now() - 30 * 60_000;
  const at = (s: number) => new Date(t0 + s * 1000);

  // 1. A planned bootstrap with the real plan (its files come from the asset set above).
  const plannedRunId = await planRun({ clusterId, body: { type: "bootstrap" }, createdById: admin?.id });

  // 2. A bootstrap stopped by preflight warnings: it needs a decision (admin or lead).
  const decisionRunId = await createRun({ clusterId, type: "bootstrap", plan: planFor(hosts), createdById: admin?.id });
  await setSteps(decisionRunId, (_key, phase, host) =>
    phase === "facts"
      ? { status: "done", startedAt: at(60), finishedAt: at(61) }
      : phase === "preflight" && host
        ? { status: "failed", error: `preflight on ${host}: warnings ${WARNINGS_NEED_DECISION}: cgroup v1 (the kubelet 1.35 and later refuse it)`, hint: "boot with cgroup v2 — or, if they are acceptable here, accept the warnings and retry", startedAt: at(61), finishedAt: at(62) }
        : { status: "skipped", error: "skipped: an earlier step failed" },
  );
  await finished(decisionRunId, "needs-decision", `needs a decision: preflight warnings on 3 of 3 hosts (${hosts.map((h) => h.name).join(", ")}) wait for an admin or lead to accept them`, at(60), at(62));

  // 3. A check that failed on worker-2, after the bootstrap above (the host page's last failure).
  const checkPlan: RunPlan = { runType: "check", phases: planFor(hosts).phases.slice(0, 2).map((p) => ({ ...p, steps: p.steps.filter((s) => s.host) })) };
  const failedCheckId = await createRun({ clusterId, type: "check", plan: checkPlan, createdById: admin?.id });
  await setSteps(failedCheckId, (key, _phase, host) =>
    key === "preflight/worker-2"
      ? { status: "failed", error: "preflight failed on worker-2: swap is on", hint: "swapoff -a, and remove the swap line from /etc/fstab", startedAt: at(10), finishedAt: at(11), output: "swap: 1 device\nports: ok" }
      : { status: "done", startedAt: at(host === "worker-2" ? 0 : 1), finishedAt: at(5), output: "ok" },
  );
  await finished(failedCheckId, "failed", "failed on 1 of 3 hosts: worker-2", at(0), at(11));

  // 5. Another cluster with a successful bootstrap: the phase times the ETA goes by. Its pages are
  //    never opened (it would be "bootstrapped", and the live view would try its hosts).
  const other = exampleDefinition({ name: `ui-history-${suffix}`, hosts: 3 });
  other.spec.hosts = hosts.map((h, i) => ({ ...h, address: `192.0.2.${71 + i}` }));
  const { id: historyClusterId } = await createCluster({ definition: other, secrets: { "admin-key": { privateKey: privateKey() } } });
  const historyRunId = await createRun({ clusterId: historyClusterId, type: "bootstrap", plan: planFor(hosts) });
  await getDb().run.update({ where: { id: historyRunId }, data: { status: "succeeded", startedAt: at(0), finishedAt: at(100), summary: JSON.stringify({ message: "all 3 hosts done" }) } });
  for (const [phase, ms] of [["facts", 400], ["preflight", 200], ["packages", 300], ["binaries", 1_600], ["kubelet", 17_000], ["control-plane", 40_000], ["self-hosted", 5_000], ["pivot", 21_000], ["join", 13_000], ["verify", 1_000]] as const) {
    const started = await appendRunEvent({ runId: historyRunId, type: "phase.started", data: { phase } });
    const ended = await appendRunEvent({ runId: historyRunId, type: "phase.finished", data: { phase } });
    await getDb().runEvent.update({ where: { runId_seq: { runId: historyRunId, seq: ended.seq } }, data: { createdAt: new Date(Date.parse(started.at) + ms) } });
  }

  // 6. A cluster as `bootdeck import` leaves it: no asset set yet (its first "Bootstrap cluster" renders).
  // RSA-4096 keys take seconds to generate, long enough to see the render's progress (ECDSA takes ms).
  const fresh = exampleDefinition({ name: `ui-fresh-${suffix}`, hosts: 3 });
  fresh.spec.pki = { encryptionAlgorithm: "RSA-4096" };
  fresh.spec.hosts = hosts.map((h, i) => ({ ...h, address: `192.0.2.${81 + i}` }));
  const { id: freshClusterId } = await createCluster({ definition: fresh, secrets: { "admin-key": { privateKey: privateKey() } } });

  console.log(JSON.stringify({ clusterId, clusterName: def.metadata.name, plannedRunId, failedCheckId, decisionRunId, historyClusterId, freshClusterId, freshClusterName: fresh.metadata.name }));
}

/**
 * A bootstrap under way in a cluster of its own, its times relative to now (the ETA depends on them):
 * facts to kubelet done, the control plane waiting for 15 s. Its lease is held by a worker that does not
 * exist and never expires, so the engine leaves it alone; it never got a control plane, so its live
 * view says "No API yet" and connects nowhere. The ETA goes by the phase times of the successful run
 * of the seeded history cluster.
 */
async function running(): Promise<void> {
  const db = getDb();
  const admin = await db.user.findUnique({ where: { username: "admin" }, select: { id: true } });
  const def = exampleDefinition({ name: `ui-eta-${randomBytes(3).toString("hex")}`, hosts: 3 });
  def.spec.hosts = [
    { name: "master-1", address: "192.0.2.91", role: "master" },
    { name: "worker-1", address: "192.0.2.92", role: "worker" },
    { name: "worker-2", address: "192.0.2.93", role: "worker" },
  ];
  const { id: clusterId } = await createCluster({ definition: def, secrets: { "admin-key": { privateKey: privateKey() } } });
  const hosts = def.spec.hosts;
    const runningRunId = await createRun({ clusterId, type: "bootstrap", plan: planFor(hosts), createdById: admin?.id });
  const now = Date.now();
  await setSteps(runningRunId, (_key, phase) => {
    const i = phaseIds.indexOf(phase as (typeof phaseIds)[number]);
    if (i < 5) return { status: "done", startedAt: new Date(now - 60_000 + i * 8_000), finishedAt: new Date(now - 60_000 + i * 8_000 + 6_000) };
    if (i === 5) return { status: "waiting", startedAt: new Date(now - 15_000) };
    return null;
  });
  await db.run.update({ where: { id: runningRunId }, data: { status: "running", startedAt: new Date(now - 60_000), workerId: "w_e2e-seed", heartbeatAt: new Date(now + 7 * 24 * 3600_000) } });
  await appendRunEvent({ runId: runningRunId, type: "run.started" });

  console.log(JSON.stringify({ clusterId, runId: runningRunId }));
}

/** `count` clusters with what the fleet list shows: nodes seen, a last run, an asset set's expiry, backups. */
async function fleet(count: number): Promise<void> {
  const db = getDb();
  const key = privateKey();
  const statuses = ["succeeded", "succeeded", "succeeded", "failed", "needs-decision", "succeeded", "cancelled"];
  const t = Date.now();
  for (let i = 0; i < count; i++) {
    const name = `fleet-${String(i + 1).padStart(3, "0")}`;
    if (await db.cluster.findUnique({ where: { name }, select: { id: true } })) continue;
    const def = exampleDefinition({ name, hosts: 6 });
    def.spec.hosts = def.spec.hosts.map((h, j) => ({ ...h, address: `192.0.2.${(j % 6) + 100}` }));
    if (i % 10 === 3) def.spec.kubernetes.version = "v1.35.4";
    const { id } = await createCluster({ definition: def, secrets: { "admin-key": { privateKey: key } } });
    const ready = i % 13 === 5 ? 5 : 6;
    const status = statuses[i % statuses.length]!;
    // A cluster whose only bootstrap failed was never seen running.
    if (status !== "failed") await db.nodesSeen.create({ data: { clusterId: id, ready, total: 6, seenAt: new Date(t - (i % 50) * 60_000) } });
    // Certificates: most a year out, a few within the month, one expired.
    const days = i === 7 ? -2 : i % 17 === 2 ? 12 : 300 - (i % 40);
    await db.assetSet.create({ data: { id: `as_${randomBytes(12).toString("base64url").slice(0, 16)}`, clusterId: id, version: 1, notAfter: new Date(t + days * 86_400_000) } });
    if (i % 9 === 8) continue; // never run, never backed up
    // Backups: a day's worth, the newest 1–5 h old; fleet-002's 30 h (over a day, no schedule), and
    // fleet-003's 3 h against its hourly schedule. Rows only: the list reads no snapshot file.
    const newestH = i === 1 ? 30 : 1 + (i % 5);
    for (const h of [newestH, newestH + 12]) await backupRow(id, new Date(t - h * 3_600_000));
    // The next scheduled backup is a day away: the server's schedule starts no run on these TEST-NET hosts.
    if (i === 2) await db.backupPolicy.create({ data: { clusterId: id, enabled: true, intervalMinutes: 60, lastStatus: "succeeded", lastSuccessAt: new Date(t - newestH * 3_600_000), lastAttemptAt: new Date(t - newestH * 3_600_000), nextDueAt: new Date(t + 86_400_000), updatedBy: "seed" } });
    const runId = await createRun({ clusterId: id, type: "bootstrap", plan: { runType: "bootstrap", phases: [] } });
    await db.run.update({ where: { id: runId }, data: { status, startedAt: new Date(t - 3_600_000), finishedAt: new Date(t - 3_500_000 + i * 1000), summary: JSON.stringify({ message: status === "succeeded" ? "all 6 hosts done" : status }) } });
  }
  console.log(JSON.stringify({ clusters: count }));
}

/** A stored backup's row as a backup run writes it, without its file (nothing here downloads it). */
async function backupRow(clusterId: string, createdAt: Date): Promise<void> {
  const id = newId("bk");
  await getDb().backup.create({
    data: { id, clusterId, trigger: "schedule", member: "master-1", file: `backups/${clusterId}/${id}.snapshot`, keyCipher: "-", nonce: "-", tag: "-", sha256: "0".repeat(64), size: 4096, storedSize: 4124, revision: "1000", totalKeys: 100, etcdVersion: "3.6.0", createdAt },
  });
}

/**
 * What a separate `bootdeck worker` would write when someone retries a failed run elsewhere, or accepts
 * its warnings (`acceptedBy`): the event, the retry, the steps not done passing, the run succeeded.
 * Only the database is written (the page hears it through its event stream); nothing reaches a host.
 */
async function retryElsewhere(runId: string, acceptedBy?: string): Promise<void> {
  const db = getDb();
  const steps = await db.step.findMany({ where: { runId }, orderBy: { ordinal: "asc" }, select: { id: true, key: true, status: true, hostId: true } });
  const done = `all ${new Set(steps.flatMap((s) => (s.hostId ? [s.hostId] : []))).size} hosts done`;
  if (acceptedBy) await appendRunEvent({ runId, type: "run.warnings-accepted", data: { by: acceptedBy } });
  const again = steps.filter((s) => s.status !== "done");
  await db.$transaction([
    db.step.updateMany({ where: { id: { in: again.map((s) => s.id) } }, data: { status: "pending", error: null, hint: null, finishedAt: null } }),
    db.run.update({ where: { id: runId }, data: { status: "running", finishedAt: null, summary: null, workerId: "w_e2e-seed", heartbeatAt: new Date(Date.now() + 7 * 24 * 3600_000) } }),
  ]);
  await appendRunEvent({ runId, type: "run.retried", data: { step: null, host: null, steps: again.map((s) => s.key) } });
  await appendRunEvent({ runId, type: "run.started", data: { retry: true } });
  for (const s of again) {
    await db.step.update({ where: { id: s.id }, data: { status: "running", startedAt: new Date(), attempts: { increment: 1 } } });
    await appendRunEvent({ runId, type: "step.started", stepId: s.id, data: { key: s.key, attempt: 2 } });
    await new Promise((r) => setTimeout(r, 150));
    await db.step.update({ where: { id: s.id }, data: { status: "done", finishedAt: new Date() } });
    await appendRunEvent({ runId, type: "step.finished", stepId: s.id, data: { key: s.key, durationMs: 150 } });
  }
  await db.run.update({ where: { id: runId }, data: { status: "succeeded", finishedAt: new Date(), workerId: null, summary: JSON.stringify({ message: done }) } });
  await appendRunEvent({ runId, type: "run.finished", data: { status: "succeeded", summary: { message: done } } });
}

async function main(cmd: string | undefined, args: string[]): Promise<void> {
  try {
    if (cmd === "seed") await seed();
    else if (cmd === "fleet") await fleet(Number(args[0] ?? 200));
    else if (cmd === "running") await running();
    else if (cmd === "accept") await retryElsewhere(args[0]!, args[1] ?? "lee");
    else if (cmd === "retry") await retryElsewhere(args[0]!);
    else throw new Error(`unknown command ${cmd ?? "(none)"}: seed | fleet <count> | running | accept <runId> <by> | retry <runId>`);
  } finally {
    await disconnectDb();
  }
}

if (process.argv[1]?.endsWith("seed-ui.ts")) {
  const [cmd, ...args] = process.argv.slice(2);
  main(cmd, args).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
