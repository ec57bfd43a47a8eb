// A full disk under the database (a 3 MiB tmpfs filled to the last byte) does not wedge anything: a
// running run waits, says why on its page, and goes on once space is freed, with the pause in its log;
// meanwhile a request that must write fails at once with "the database disk is full"; afterwards
// everything works without a restart. Needs root (it mounts the tmpfs); CI runs the suite as root.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, openSync, rmSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as planRoute } from "../../app/api/clusters/[id]/runs/route";
import { call, createActor, signIn, type Signed } from "../../test/http-helpers";
import { FakeClusterApi, RecordingExecutor } from "../../test/fake-cluster";
import { createTempDb, onPostgres, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { configureDb, disconnectDb, getDb } from "../db/client";
import { storageStatus } from "../db/storage";
import { resetEnvCache } from "../env";
import { listRunEvents } from "./events";
import { planRun } from "./plan-run";
import { getRunView } from "./queries";
import { executeRun } from "./runner";
import { startRun } from "./runs";
import { testKeyPair } from "../../test/ssh-key";

const root = process.getuid?.() === 0;
let temp: TempDb;
let mount: string;
let lead: Signed;
let clusterId: string;
const filler = () => path.join(mount, "filler");

beforeAll(async () => {
  if (!root) return;
  temp = await createTempDb();
  mount = mkdtempSync(path.join(tmpdir(), "bootdeck-full-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mount]);
  await disconnectDb();
  copyFileSync(temp.dbFile, path.join(mount, "bootdeck.db"));
  process.env.DATABASE_URL = `file:${path.join(mount, "bootdeck.db")}`;
  resetEnvCache();
  await configureDb();
  lead = await signIn(await createActor("lead"));
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "full", hosts: 2 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
});

afterAll(async () => {
  if (!root) return;
  await disconnectDb();
  execFileSync("umount", [mount]);
  rmSync(mount, { recursive: true, force: true });
  await temp.cleanup();
});

/** Fills the tmpfs to the last byte (after the WAL is emptied, so the next commit needs new space). */
async function fillDisk(): Promise<void> {
  await getDb().$queryRawUnsafe("PRAGMA wal_checkpoint(TRUNCATE)");
  const fd = openSync(filler(), "w");
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  }
  try {
    for (;;) writeSync(fd, chunk, 0, 512);
  } catch {
    // full to the last block
  }
  closeSync(fd);
}

// SQLite only: its file is what fills the disk here; a PostgreSQL server manages its own storage.
describe.skipIf(!root || onPostgres)("a full disk under the database", () => {
  it("the run waits and says why, requests fail at once, and everything goes on when space is back", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const rec = new RecordingExecutor();
    const run = rec.run.bind(rec);
    rec.run = async (host, argv, opts) => {
      if (opts?.step === "facts/master-2") await gate;
      return run(host, argv, opts);
    };
    const runId = await planRun({ clusterId, body: { type: "check" }, by: "lead" });
    await startRun({ runId });
    const running = executeRun(runId, { workerId: "w-full", executor: rec, api: () => new FakeClusterApi(["master-1", "master-2"]), heartbeatMs: 200 });
    for (let i = 0; i < 250 && !(await getDb().step.findFirst({ where: { runId, key: "facts/master-2", status: "running" } })); i++) await new Promise((r) => setTimeout(r, 20));

    await fillDisk();
    release();
    // The step's end cannot be written: the run waits, and its page says so.
    for (let i = 0; i < 100 && !storageStatus().full; i++) await new Promise((r) => setTimeout(r, 50));
    expect(storageStatus().full).toBe(true);
    const view = await getRunView({ id: runId });
    expect(view.status).toBe("running");
    expect(view.storage).toMatchObject({ full: true, message: expect.stringMatching(/database disk is full/) });

    // A request that must write fails at once, saying why.
    const t0 = Date.now();
    const res = await call(planRoute, { method: "POST", path: `/api/clusters/${clusterId}/runs`, params: { id: clusterId }, signed: lead, body: JSON.stringify({ type: "check" }) });
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/database disk is full/);

    // Space comes back: the run goes on by itself and records the pause.
    rmSync(filler());
    expect(await running).toBe("succeeded");
    expect(storageStatus().full).toBe(false);
    const recovered = (await listRunEvents({ runId, limit: 10_000 })).find((e) => e.type === "run.storage-recovered");
    expect(recovered?.data.message).toMatch(/database disk was full for \d+ s; the run waited and went on/);
    // And new work goes through without a restart.
    const again = await call(planRoute, { method: "POST", path: `/api/clusters/${clusterId}/runs`, params: { id: clusterId }, signed: lead, body: JSON.stringify({ type: "check" }) });
    expect(again.status).toBe(201);
  });
});
