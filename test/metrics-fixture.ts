// A database with something in every metric: finished and running runs with timed phases, failed
// steps on a host, a stored backup with its schedule paused, an asset set with a known expiry, nodes
// seen by the live view, and a queued webhook delivery. For lib/metrics tests.
import { openSealedWriter } from "../lib/backups/sealed-file";
import { backupRelPath, dataPath, recordBackup } from "../lib/backups/store";
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import { getDb } from "../lib/db/client";
import { appendRunEvent } from "../lib/engine/events";
import { createRun } from "../lib/engine/runs";
import { newId } from "../lib/ids";
import { createWebhook } from "../lib/notify/endpoints";
import { queuePing } from "../lib/notify/outbox";
import { testKeyPair } from "./ssh-key";

export type MetricsFixture = { clusterId: string; waitingRunId: string; backupAt: Date; notAfter: Date; now: Date };

export async function seedMetrics(name = "metered"): Promise<MetricsFixture> {
  const db = getDb();
  const now = new Date();
  const { id: clusterId } = await createCluster({ definition: exampleDefinition({ name, hosts: 4 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } });
  const worker = await db.host.findFirstOrThrow({ where: { clusterId, name: "worker-1" } });
  const at = (s: number) => new Date(now.getTime() - 3_600_000 + s * 1000);
  // A check that took 95 s: facts 0–5 s, preflight 5–95 s, worker-1's preflight failing twice.
  const run = await createRun({ clusterId, type: "check", plan: { runType: "check", phases: [] } });
  for (const [i, [phase, host, from, to]] of ([["facts", worker.id, 0, 5], ["preflight", worker.id, 5, 95], ["preflight", null, 6, 40]] as const).entries())
    await db.step.create({ data: { id: newId("step"), runId: run, hostId: host, phase, key: `${phase}/${i}`, ordinal: i, title: phase, status: phase === "preflight" && host ? "failed" : "done", startedAt: at(from), finishedAt: at(to) } });
  for (let i = 0; i < 2; i++) await appendRunEvent({ runId: run, type: "step.failed", hostId: worker.id, data: { key: "preflight/1", error: "swap is on" } });
  await db.run.update({ where: { id: run }, data: { status: "failed", startedAt: at(0), finishedAt: at(95) } });
  // Deployed (its certificates are on its hosts, so their expiry counts): a restore succeeded on it.
  const restored = await createRun({ clusterId, type: "restore", plan: { runType: "restore", phases: [] } });
  await db.run.update({ where: { id: restored }, data: { status: "succeeded", startedAt: at(200), finishedAt: at(230) } });
  // A started bootstrap no worker has taken yet (on PostgreSQL, queue it: a run waits there as a job).
  const waiting = await createRun({ clusterId, type: "bootstrap", plan: { runType: "bootstrap", phases: [] } });
  await db.run.update({ where: { id: waiting }, data: { status: "running", startedAt: now } });
  // The newest backup is two hours old; its schedule is paused.
  const backupAt = new Date(now.getTime() - 2 * 3_600_000);
  const backupId = newId("bk");
  const sealed = openSealedWriter(dataPath(backupRelPath(clusterId, backupId)), backupId);
  sealed.stream.write("snapshot bytes");
  await recordBackup({ id: backupId, clusterId, runId: null, trigger: "schedule", sealed: await sealed.finish(), facts: { member: "master-1", revision: "7", totalKeys: 3, etcdVersion: "3.6.8" } });
  await db.backup.update({ where: { id: backupId }, data: { createdAt: backupAt } });
  await db.backupPolicy.create({ data: { clusterId, enabled: false, intervalMinutes: 60, lastSuccessAt: backupAt, nextDueAt: new Date(backupAt.getTime() + 3_600_000) } });
  const notAfter = new Date(now.getTime() + 40 * 86_400_000);
  await db.assetSet.create({ data: { id: newId("as"), clusterId, version: 1, notAfter } });
  await db.nodesSeen.create({ data: { clusterId, ready: 3, total: 4, seenAt: now } });
  const hook = await createWebhook({ name: `${name}-hook`, url: "http://127.0.0.1:9/never", format: "json", events: ["run.failed"], certificateDays: 14, secret: "0123456789abcdef0123", enabled: true }, "test");
  await queuePing(hook, "test");
  return { clusterId, waitingRunId: waiting, backupAt, notAfter, now };
}
