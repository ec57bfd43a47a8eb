// BOOTDECK_ENGINE=off: the dashboard process runs no run itself, not even one started or retried
// through its own API; the run is left, unheld, for `bootdeck worker` processes to pick up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as retry } from "../app/api/runs/[id]/retry/route";
import { POST as start } from "../app/api/runs/[id]/start/route";
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import { getDb } from "../lib/db/client";
import { planRun } from "../lib/engine/plan-run";
import { listResumableRuns } from "../lib/engine/runs";
import { getEngineWorker } from "../lib/engine/worker";
import { resetEnvCache } from "../lib/env";
import { call, createActor, signIn, type Signed } from "./http-helpers";
import { createTempDb, type TempDb } from "./temp-db";
import { testKeyPair } from "./ssh-key";

let db: TempDb;
let clusterId: string;
let lead: Signed;

beforeAll(async () => {
  db = await createTempDb();
  process.env.BOOTDECK_ENGINE = "off";
  resetEnvCache();
  lead = await signIn(await createActor("lead"));
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "engine-off", hosts: 2 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
});
afterAll(async () => {
  delete process.env.BOOTDECK_ENGINE;
  resetEnvCache();
  await db?.cleanup();
});

describe("with BOOTDECK_ENGINE=off", () => {
  it("a run started through the dashboard is left for the workers", async () => {
    const runId = await planRun({ clusterId, body: { type: "check" }, by: "lead" });
    const res = await call(start, { method: "POST", path: `/api/runs/${runId}/start`, params: { id: runId }, signed: lead });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(getEngineWorker().runs).toEqual([]);
    const run = await getDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect(run).toMatchObject({ status: "running", workerId: null });
    expect(await listResumableRuns({ workerId: "w_elsewhere_1", staleMs: 15_000 })).toContain(runId);
    await getDb().run.update({ where: { id: runId }, data: { status: "failed", finishedAt: new Date() } });
    await getDb().step.updateMany({ where: { runId, key: "facts/worker-1" }, data: { status: "failed" } });
    await getDb().cluster.update({ where: { id: clusterId }, data: { activeRunId: null } });
  });

  it("so is a run retried through the dashboard", async () => {
    const runId = (await getDb().run.findFirstOrThrow({ where: { clusterId, status: "failed" } })).id;
    const res = await call(retry, { method: "POST", path: `/api/runs/${runId}/retry`, params: { id: runId }, signed: lead, body: "{}" });
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(getEngineWorker().runs).toEqual([]);
    expect(await getDb().run.findUniqueOrThrow({ where: { id: runId } })).toMatchObject({ status: "running", workerId: null });
  });
});
