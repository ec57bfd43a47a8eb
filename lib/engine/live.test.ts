// The live pods and nodes watcher of a cluster whose API cannot be reached: it retries every few
// seconds, and the credential's use is audited once for the live session, not on every retry.
import { afterAll, beforeAll, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { getDb } from "../db/client";
import { newId } from "../ids";
import { createCluster } from "../clusters/repository";
import { subscribeClusterLive } from "./live";
import { testKeyPair } from "../../test/ssh-key";

let db: TempDb;
beforeAll(async () => {
  db = await createTempDb();
});
afterAll(async () => {
  const all = (globalThis as { bootdeckLive?: Map<string, { close(): Promise<void> }> }).bootdeckLive;
  await Promise.all([...(all?.values() ?? [])].map((l) => l.close()));
  await db?.cleanup();
});

test("an unreachable cluster's live view records a secret.use row once per live session", async () => {
  const def = exampleDefinition({ name: "unreachable", hosts: 2 });
  // Loopback addresses on a closed port: every attempt is refused at once, and no packet leaves the machine.
  def.spec.hosts.forEach((h, i) => (h.address = `127.0.0.${i + 2}`));
  def.spec.ssh = { ...def.spec.ssh!, port: 1 };
  const { id: clusterId } = await createCluster({ definition: def, secrets: { "admin-key": { privateKey: testKeyPair().private } } });
  await getDb().assetSet.create({ data: { id: newId("as"), clusterId, version: 1 } });
  // A bootstrap brought its control plane up once: from then on the live view tries to reach the API.
  const runId = newId("run");
  await getDb().run.create({ data: { id: runId, clusterId, type: "bootstrap", status: "succeeded" } });
  await getDb().step.create({ data: { id: newId("step"), runId, phase: "control-plane", key: "control-plane/master-1/start", ordinal: 1, title: "Start the temporary control plane", status: "done" } });
  const states: string[] = [];
  const unsubscribe = subscribeClusterLive(clusterId, (m) => {
    if (m.type === "api" || m.type === "snapshot") states.push(m.api.state);
  });
  // Three restarts (every 3 s) while unreachable, as the page would sit open.
  await new Promise((r) => setTimeout(r, 10_000));
  unsubscribe();
  expect(states).toContain("unreachable");
  const uses = await getDb().auditEvent.findMany({ where: { action: "secret.use" } });
  expect(uses.map((u) => JSON.parse(u.details).purpose)).toEqual(["live status"]);
}, 30_000);
