// An admin releases a stuck run from the run page's API or the command line: it fails as "released by
// <who>: <why>", the cluster is free, and the audit trail says who did it. Nobody else may.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as release } from "../app/api/runs/[id]/release/route";
import { run as runCommand } from "../cli/commands/run";
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import { getDb } from "../lib/db/client";
import { planRun } from "../lib/engine/plan-run";
import { startRun } from "../lib/engine/runs";
import { call, createActor, signIn, type Actor } from "./http-helpers";
import { createTempDb, type TempDb } from "./temp-db";
import { testKeyPair } from "./ssh-key";

let db: TempDb;
let clusterId: string;
let admin: Actor;

beforeAll(async () => {
  db = await createTempDb();
  admin = await createActor("admin");
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "stuck", hosts: 2 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
});
afterAll(async () => db?.cleanup());

/** A running run whose worker died long ago. */
async function stuckRun(): Promise<string> {
  const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
  await startRun({ runId });
  await getDb().run.update({ where: { id: runId }, data: { workerId: "w_gone_1", heartbeatAt: new Date(Date.now() - 3_600_000) } });
  return runId;
}

describe("releasing a stuck run", () => {
  it("through the API: admins only, confirmed, audited", async () => {
    const runId = await stuckRun();
    const lead = await signIn(await createActor("lead"));
    expect((await call(release, { method: "POST", path: `/api/runs/${runId}/release`, params: { id: runId }, signed: lead, body: JSON.stringify({ confirm: true }) })).status).toBe(403);
    const signed = await signIn(admin);
    expect((await call(release, { method: "POST", path: `/api/runs/${runId}/release`, params: { id: runId }, signed, body: "{}" })).status).toBe(422);
    const res = await call(release, { method: "POST", path: `/api/runs/${runId}/release`, params: { id: runId }, signed, body: JSON.stringify({ confirm: true, reason: "worker host died" }) });
    expect(res.status).toBe(200);
    const run = await getDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe("failed");
    expect(JSON.parse(run.summary!).message).toBe(`released by ${admin.username}: worker host died`);
    expect((await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId } })).activeRunId).toBeNull();
    const audit = await getDb().auditEvent.findFirstOrThrow({ where: { action: "run.release", target: runId } });
    expect(audit.username).toBe(admin.username);
    expect(JSON.parse(audit.details)).toMatchObject({ reason: "worker host died", previousWorker: "w_gone_1" });
    // Only a running run can be released.
    expect((await call(release, { method: "POST", path: `/api/runs/${runId}/release`, params: { id: runId }, signed, body: JSON.stringify({ confirm: true }) })).status).toBe(409);
  });

  it("from the command line, audited as cli:<login>", async () => {
    const runId = await stuckRun();
    expect(await runCommand.run(["release", runId, "--yes", "--reason", "wedged"])).toBe(0);
    const run = await getDb().run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe("failed");
    expect(JSON.parse(run.summary!).message).toMatch(/^released by cli:.+: wedged$/);
    const audit = await getDb().auditEvent.findFirstOrThrow({ where: { action: "run.release", target: runId } });
    expect(audit.username).toMatch(/^cli:/);
    expect(JSON.parse(audit.details)).toMatchObject({ via: "cli", reason: "wedged" });
  });
});
