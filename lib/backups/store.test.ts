// Stored backups, retention, the schedule and its outcome, against a real SQLite file and data directory.
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { newId } from "../ids";
import { reconcileScheduledRuns, SKIP_RETRY_MS, startDueBackups } from "../engine/backup-schedule";
import { openSealedWriter } from "./sealed-file";
import { applyRetention, backupRelPath, dataPath, getBackupOrThrow, getBackupPolicy, listBackups, openVerifiedBackup, recordBackup, setBackupPolicy, sweepOrphanBackupFiles } from "./store";
import { testKeyPair } from "../../test/ssh-key";

let db: TempDb;
let clusterId: string;
const key = testKeyPair().private;

beforeAll(async () => {
  db = await createTempDb();
  ({ id: clusterId } = await createCluster({ definition: exampleDefinition({ name: "backups", hosts: 4 }), secrets: { "admin-key": { privateKey: key } } }));
});
afterAll(() => db.cleanup());

async function storeBackup(cid: string, createdAt: Date, content = `snapshot ${createdAt.toISOString()}`): Promise<string> {
  const id = newId("bk");
  const w = openSealedWriter(dataPath(backupRelPath(cid, id)), id);
  w.stream.write(content);
  const sealed = await w.finish();
  await recordBackup({ id, clusterId: cid, runId: null, trigger: "schedule", sealed, facts: { member: "master-1", revision: "18446744073709551000", totalKeys: 7, etcdVersion: "3.6.0" } });
  await getDb().backup.update({ where: { id }, data: { createdAt } });
  return id;
}

const days = (n: number) => new Date(Date.now() - n * 86_400_000);

describe("retention", () => {
  it("keeps the newest N, deletes older ones past the age limit (files too), never the newest, and audits each", async () => {
    await setBackupPolicy({ clusterId, body: { enabled: false, intervalMinutes: 60, keepLast: 2, keepDays: 10 }, by: "test" });
    const ids = [await storeBackup(clusterId, days(40)), await storeBackup(clusterId, days(20)), await storeBackup(clusterId, days(5)), await storeBackup(clusterId, days(3)), await storeBackup(clusterId, days(1))];
    const removed = await applyRetention({ clusterId });
    // The newest two stay; days(5) is past keepLast but young enough; days(20) and days(40) go.
    expect(removed.sort()).toEqual([ids[0], ids[1]].sort());
    expect((await listBackups({ clusterId })).map((b) => b.id)).toEqual([ids[4], ids[3], ids[2]]);
    for (const id of removed) expect(existsSync(dataPath(backupRelPath(clusterId, id!)))).toBe(false);
    const audit = await getDb().auditEvent.findMany({ where: { action: "backup.expire" } });
    expect(audit.map((a) => a.target).sort()).toEqual(removed.sort());
    // The revision (a uint64 beyond 2^53) is kept exactly.
    expect((await listBackups({ clusterId }))[0]?.revision).toBe("18446744073709551000");

    await setBackupPolicy({ clusterId, body: { enabled: false, intervalMinutes: 60, keepLast: 1, keepDays: 1 }, by: "test" });
    await getDb().backup.updateMany({ where: { clusterId }, data: { createdAt: days(100) } });
    await applyRetention({ clusterId });
    expect(await listBackups({ clusterId })).toHaveLength(1);
  });

  it("hands out a backup only after it authenticates and matches its checksum", async () => {
    const id = await storeBackup(clusterId, new Date(), "the plain snapshot");
    const row = await getBackupOrThrow({ clusterId, backupId: id });
    const opened = await openVerifiedBackup(row);
    const chunks: Buffer[] = [];
    for await (const c of opened.stream()) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe("the plain snapshot");
    await expect(openVerifiedBackup({ ...row, sha256: "0".repeat(64) })).rejects.toThrow(/is not what was stored/);
    await expect(openVerifiedBackup({ ...row, file: "backups/nope.snapshot" })).rejects.toThrow(/missing from the data directory/);
  });

  it("records a snapshot past 2 GiB with its exact size (etcd databases grow to 8 GiB)", async () => {
    const id = newId("bk");
    const w = openSealedWriter(dataPath(backupRelPath(clusterId, id)), id);
    const sealed = await w.finish();
    const size = 6 * 2 ** 30 + 12_345;
    await recordBackup({ id, clusterId, runId: null, trigger: "manual", sealed: { ...sealed, size, storedSize: size + 16 }, facts: { member: "master-1", revision: "42", totalKeys: 1, etcdVersion: "3.6.8" } });
    expect((await listBackups({ clusterId })).find((b) => b.id === id)).toMatchObject({ size, storedSize: size + 16 });
    expect(await getBackupOrThrow({ clusterId, backupId: id })).toMatchObject({ size, storedSize: size + 16 });
    await getDb().backup.delete({ where: { id } });
    rmSync(dataPath(backupRelPath(clusterId, id)));
  });

  it("sweeps files no backup refers to: a deleted cluster's directory, and old leftovers (not files being written)", async () => {
    const gone = path.join(db.dir, "backups", "cl_deletedclusterxxxx");
    mkdirSync(gone, { recursive: true });
    writeFileSync(path.join(gone, "bk_x.snapshot"), "x");
    const old = path.join(db.dir, "backups", clusterId, "bk_left.snapshot.part");
    const fresh = path.join(db.dir, "backups", clusterId, "bk_now.snapshot.part");
    writeFileSync(old, "x");
    writeFileSync(fresh, "x");
    utimesSync(old, days(1), days(1));
    const removed = await sweepOrphanBackupFiles();
    expect(removed.sort()).toEqual([path.join("backups", "cl_deletedclusterxxxx"), path.join("backups", clusterId, "bk_left.snapshot.part")].sort());
    expect(existsSync(fresh)).toBe(true);
    expect((await listBackups({ clusterId })).every((b) => existsSync(dataPath(backupRelPath(clusterId, b.id))))).toBe(true);
  });
});

describe("the schedule", () => {
  let scheduled: string;
  beforeAll(async () => {
    ({ id: scheduled } = await createCluster({ definition: exampleDefinition({ name: "scheduled", hosts: 4 }), secrets: { "admin-key": { privateKey: key } } }));
  });

  it("starts a due backup once however many processes tick, and records its outcome", async () => {
    const policy = await setBackupPolicy({ clusterId: scheduled, body: { enabled: true, intervalMinutes: 60, keepLast: 3, keepDays: 7 }, by: "test" });
    expect(new Date(policy.nextDueAt!).getTime()).toBeLessThanOrEqual(Date.now());
    const now = new Date();
    const [a, b] = await Promise.all([startDueBackups(now), startDueBackups(now)]);
    const started = [...a!, ...b!];
    expect(started).toHaveLength(1);
    const run = await getDb().run.findUniqueOrThrow({ where: { id: started[0]! } });
    expect(run).toMatchObject({ type: "backup", status: "running", createdById: null });
    const plan = JSON.parse(run.plan) as { phases: { steps: { params: Record<string, string>; exec: { id: string; host: string }[] }[] }[] };
    expect(plan.phases[0]?.steps[0]?.params.trigger).toBe("schedule");
    expect(plan.phases[0]?.steps[0]?.exec.filter((e) => e.id === "save").map((e) => e.host)).toEqual(["master-1", "master-2", "master-3"]);
    let p = await getBackupPolicy({ clusterId: scheduled });
    expect(p).toMatchObject({ lastRunId: started[0], lastStatus: "running" });
    expect(new Date(p.nextDueAt!).getTime()).toBe(now.getTime() + 60 * 60_000);
    expect(await startDueBackups(new Date(now.getTime() + 61 * 60_000))).toEqual([]); // one run at a time per schedule

    // The run fails: the schedule says why, and counts it.
    await getDb().step.updateMany({ where: { runId: started[0] }, data: { status: "failed", error: "no master could take a snapshot: master-1: no running etcd container" } });
    await getDb().run.update({ where: { id: started[0] }, data: { status: "failed", finishedAt: new Date() } });
    await getDb().cluster.update({ where: { id: scheduled }, data: { activeRunId: null } });
    await reconcileScheduledRuns();
    p = await getBackupPolicy({ clusterId: scheduled });
    expect(p).toMatchObject({ lastStatus: "failed", failures: 1 });
    expect(p.health).toEqual({ state: "failing", message: "the last scheduled backup failed: no master could take a snapshot: master-1: no running etcd container" });
    expect(await getDb().auditEvent.count({ where: { action: "backup.schedule-failed", target: started[0] } })).toBe(1);
  });

  it("counts a backup that could not start because another run held the cluster, and tries again soon", async () => {
    const holder = (await getDb().run.findFirstOrThrow({ where: { clusterId: scheduled } })).id;
    await getDb().cluster.update({ where: { id: scheduled }, data: { activeRunId: holder } });
    const later = new Date(Date.now() + 2 * 3_600_000);
    expect(await startDueBackups(later)).toEqual([]);
    const p = await getBackupPolicy({ clusterId: scheduled });
    expect(p).toMatchObject({ lastStatus: "skipped", failures: 2 });
    expect(p.lastError).toMatch(/Another run .* is in progress/);
    expect(new Date(p.nextDueAt!).getTime()).toBe(later.getTime() + SKIP_RETRY_MS);
    expect(p.health.state).toBe("failing");
    await getDb().cluster.update({ where: { id: scheduled }, data: { activeRunId: null } });
  });

  it("a success clears the failures", async () => {
    const [runId] = await startDueBackups(new Date(Date.now() + 3 * 3_600_000));
    expect(runId).toBeTruthy();
    await getDb().run.update({ where: { id: runId }, data: { status: "succeeded", finishedAt: new Date() } });
    await reconcileScheduledRuns();
    const p = await getBackupPolicy({ clusterId: scheduled });
    expect(p).toMatchObject({ lastStatus: "succeeded", failures: 0, lastError: null });
    expect(p.health.state).toBe("ok");
  });
});
