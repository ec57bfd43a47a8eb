import { afterAll, beforeAll, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { createActor } from "../../test/http-helpers";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { createRun } from "../engine/runs";
import { auditIds, resolveAuditTargets } from "./targets";
import { testKeyPair } from "../../test/ssh-key";
import { getDb } from "../db/client";

let db: TempDb;
beforeAll(async () => {
  db = await createTempDb();
});
afterAll(async () => db?.cleanup());

test("audit targets read as names with links; what was deleted says so", async () => {
  const key = testKeyPair();
  const { id: clusterId } = await createCluster({ definition: exampleDefinition({ name: "audited" }), secrets: { "admin-key": { privateKey: key.private } } });
  const runId = await createRun({ clusterId, type: "check", plan: { runType: "check", phases: [] } });
  const { userId } = await createActor("support", "sam");
  const targets = await resolveAuditTargets([clusterId, runId, userId, "cl_gone0000000000000", "run_gone000000000000", null].map((target) => ({ target, details: {} })));
  expect(targets.get(clusterId)).toEqual({ label: "cluster audited", href: `/clusters/${clusterId}` });
  expect(targets.get(runId)).toEqual({ label: "check run of audited", href: `/clusters/${clusterId}/runs/${runId}` });
  expect(targets.get(userId)).toEqual({ label: "user sam", href: "/users" });
  expect(targets.get("cl_gone0000000000000")).toEqual({ label: "a deleted cluster", href: null });
  expect(targets.get("run_gone000000000000")).toEqual({ label: "a deleted run", href: null });
});

test("ids in an event's details are named too; other values are left alone", async () => {
  const key = testKeyPair();
  const { id: clusterId } = await createCluster({ definition: exampleDefinition({ name: "detailed" }), secrets: { "admin-key": { privateKey: key.private } } });
  const cred = await getDb().credential.findFirstOrThrow({ where: { clusterId } });
  const event = { target: cred.id, details: { clusterId, credential: "admin-key", purpose: "ssh", hosts: ["run_notanid0000000"] } };
  expect(auditIds(event)).toEqual([cred.id, clusterId]);
  const targets = await resolveAuditTargets([event]);
  expect(targets.get(cred.id)).toEqual({ label: "credential admin-key of detailed", href: `/clusters/${clusterId}` });
  expect(targets.get(clusterId)).toEqual({ label: "cluster detailed", href: `/clusters/${clusterId}` });
  expect(targets.size).toBe(2);
});
