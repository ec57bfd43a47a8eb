// Webhook notifications against real HTTP receivers (node:http on 127.0.0.1): a failed run reaches
// the receiver signed, with the documented body, and a check's unreachable host is told apart; one
// endpoint's deliveries arrive in order, a 500 is retried with backoff before the next is sent;
// a receiver that never answers times out, is retried, and holds up neither the run nor another
// endpoint; a delivery that keeps failing is given up; a redelivery sends the same bytes; a
// certificate expiring within an endpoint's window is told once, and so is a backup schedule that
// cannot start its backups; a run's status decides its event; the log is pruned after 30 days; the
// secret is sealed at rest.
// On SQLite, and on PostgreSQL with BOOTDECK_TEST_DATABASE_URL set.
import { decryptSecret, secretContexts } from "../secrets/cipher";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeClusterApi, RecordingExecutor, type Reply } from "../../test/fake-cluster";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { testKeyPair } from "../../test/ssh-key";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { newId } from "../ids";
import { planRun } from "../engine/plan-run";
import { executeRun } from "../engine/runner";
import { appendRunEvent } from "../engine/events";
import { startRun } from "../engine/runs";
import { SshError } from "../ssh/errors";
import { startDueBackups } from "../engine/backup-schedule";
import { checkCertificateExpiry, pruneDeliveryLog } from "../engine/notification-checks";
import type { DeliveryPolicy } from "./deliver";
import { createWebhook, listDeliveries } from "./endpoints";
import { queuePing, queueRedelivery } from "./outbox";
import { DeliveryWorker } from "./queue";
import { BODY_SCHEMA, SIGNATURE_HEADER, type WebhookBody } from "./schemas";
import { verifySignature } from "./sign";

const HOSTS = ["master-1", "master-2", "master-3", "worker-1"];
const SECRET = "s3cret-for-the-receiver-0123456789";
let db: TempDb;
let clusterId: string;
const servers: Server[] = [];
const workers: DeliveryWorker[] = [];

type Received = { headers: IncomingMessage["headers"]; body: string; json: WebhookBody };
type Receiver = { url: string; received: Received[]; hanging: ServerResponse[] };

/** A receiver on 127.0.0.1 that records every request and answers what `answer` says (null: never). */
async function receiver(answer: (n: number, r: Received) => number | null = () => 204): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const r = { headers: req.headers, body, json: JSON.parse(body) as WebhookBody };
      received.push(r);
      const status = answer(received.length, r);
      if (status === null) return void hanging.push(res);
      res.writeHead(status, { "content-type": "text/plain" }).end(status >= 300 ? "receiver says no" : "ok");
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, hanging };
}

const policy = (over: Partial<DeliveryPolicy> = {}): DeliveryPolicy => ({ timeoutMs: 2_000, backoff: { attempts: 3, baseMs: 200, maxMs: 1_000, jitter: 0 }, ...over });

function worker(p = policy()): DeliveryWorker {
  const w = new DeliveryWorker({ workerId: `test-${workers.length}`, policy: p, pollMs: 50 });
  workers.push(w);
  w.start();
  return w;
}

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function endpoint(url: string, events: Parameters<typeof createWebhook>[0]["events"], extra: Partial<Parameters<typeof createWebhook>[0]> = {}): Promise<string> {
  return createWebhook({ name: `hook-${newId("wh").slice(3, 11)}`, url, format: "json", events, certificateDays: 14, secret: SECRET, enabled: true, ...extra }, "test");
}

/** A check of the cluster that ends as `reply` makes its steps end, run by the engine with test doubles. */
async function check(reply: (step: string) => Reply): Promise<{ runId: string; outcome: string }> {
  const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
  await startRun({ runId });
  const executor = new RecordingExecutor((call) => reply(call.step));
  const outcome = await executeRun(runId, { workerId: "engine-1", executor, api: () => new FakeClusterApi(HOSTS), heartbeatMs: 50 });
  return { runId, outcome };
}

beforeAll(async () => {
  db = await createTempDb();
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "notified", hosts: HOSTS.length }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
}, 60_000);
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop({ graceMs: 100 })));
  for (const s of servers.splice(0)) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  // Every test starts with no endpoint, so it sees only its own deliveries.
  await getDb().webhookEndpoint.deleteMany();
});
afterAll(async () => db?.cleanup());

describe("a failed run", () => {
  it("reaches the receiver signed with the endpoint's secret, in the documented schema", async () => {
    const rx = await receiver();
    const id = await endpoint(rx.url, ["run.failed", "host.unreachable"]);
    const { runId, outcome } = await check((step) => (step === "facts/worker-1" ? { exitCode: 3 } : undefined));
    expect(outcome).toBe("failed");
    worker();
    const got = await until("the delivery", () => rx.received[0]);
    expect(verifySignature(SECRET, got.body, got.headers[SIGNATURE_HEADER.toLowerCase()] as string)).toBe(true);
    expect(verifySignature("another secret entirely", got.body, got.headers[SIGNATURE_HEADER.toLowerCase()] as string)).toBe(false);
    expect(got.headers[SIGNATURE_HEADER.toLowerCase()]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(got.headers["x-bootdeck-event"]).toBe("run.failed");
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.json).toMatchObject({
      schema: BODY_SCHEMA,
      type: "run.failed",
      sequence: 1,
      cluster: { id: clusterId, name: "notified" },
      run: { id: runId, type: "check", status: "failed", failedHosts: ["worker-1"] },
    });
    expect(got.json.summary).toMatch(/^check run failed: failed on 1 of 4 hosts: worker-1/);
    expect(got.json.id).toMatch(/^evt_/);
    const d = await until("the delivery recorded", async () => (await listDeliveries(id)).find((x) => x.status === "delivered"));
    expect(d).toMatchObject({ attempts: 1, responseStatus: 204, id: got.headers["x-bootdeck-delivery"] });
    expect(d.attemptLog).toHaveLength(1);
    expect(d.attemptLog[0]!.durationMs).toBeGreaterThanOrEqual(0);
    // A run's end is told once: the failed command was no unreachable host.
    expect(rx.received).toHaveLength(1);
  });

  it("of a check whose host does not answer also tells that the host was unreachable", async () => {
    const rx = await receiver();
    await endpoint(rx.url, ["run.failed", "host.unreachable"]);
    const unreachable = new SshError({ kind: "unreachable", host: "worker-1", address: "10.0.0.12", cause: "EHOSTUNREACH" });
    const { runId } = await check((step) => (step === "facts/worker-1" ? { error: unreachable } : undefined));
    worker();
    await until("two deliveries", () => rx.received.length >= 2);
    // In the order they happened: the host's step failed before the run ended.
    expect(rx.received.map((r) => [r.json.type, r.json.sequence])).toEqual([
      ["host.unreachable", 1],
      ["run.failed", 2],
    ]);
    expect(rx.received[0]!.json.host).toMatchObject({ name: "worker-1", runId });
    expect(rx.received[0]!.json.host!.error).toContain("unreachable");
  });

  it("is not sent to an endpoint that did not subscribe to it, nor to a disabled one", async () => {
    const rx = await receiver();
    const other = await receiver();
    await endpoint(rx.url, ["run.succeeded"]);
    await endpoint(other.url, ["run.failed"], { enabled: false });
    await check((step) => (step === "facts/worker-1" ? { exitCode: 3 } : undefined));
    await check(() => undefined);
    worker();
    await until("the success", () => rx.received[0]);
    expect(rx.received.map((r) => r.json.type)).toEqual(["run.succeeded"]);
    expect(other.received).toEqual([]);
  });
});

describe("a run's end", () => {
  it("is told by its status: needs-decision as waiting for a decision, cancelled not at all", async () => {
    const rx = await receiver();
    const id = await endpoint(rx.url, ["run.succeeded", "run.failed", "run.needs-decision"]);
    const runId = await planRun({ clusterId, body: { type: "check" }, by: "test" });
    const message = "needs a decision: preflight warnings on 1 of 4 hosts (worker-1) wait for an admin or lead to accept them";
    await appendRunEvent({ runId, type: "run.finished", data: { status: "cancelled", summary: { message: "cancelled by a user" } } });
    await appendRunEvent({ runId, type: "run.finished", data: { status: "needs-decision", summary: { message, failedHosts: ["worker-1"] } } });
    worker();
    await until("the decision", () => rx.received[0]);
    expect(rx.received[0]!.json).toMatchObject({ type: "run.needs-decision", summary: `check run needs a decision: ${message}`, run: { id: runId, status: "needs-decision", failedHosts: ["worker-1"] } });
    expect(await listDeliveries(id)).toHaveLength(1);
  });
});

describe("one endpoint's deliveries", () => {
  it("arrive in order: a 500 is retried after a pause, and the next waits for it", async () => {
    const rx = await receiver((n) => (n === 1 ? 500 : 200));
    const id = await endpoint(rx.url, ["run.failed"]);
    for (let i = 0; i < 3; i++) await queuePing(id, `tester ${i}`);
    worker();
    await until("four requests", () => rx.received.length >= 4);
    expect(rx.received.map((r) => r.json.sequence)).toEqual([1, 1, 2, 3]);
    expect(rx.received.map((r) => r.json.summary)).toEqual(["Test delivery sent by tester 0", "Test delivery sent by tester 0", "Test delivery sent by tester 1", "Test delivery sent by tester 2"]);
    // Every attempt signs the same bytes.
    expect(rx.received[0]!.body).toBe(rx.received[1]!.body);
    const log = await listDeliveries(id);
    const first = log.find((d) => d.seq === 1)!;
    expect(first).toMatchObject({ status: "delivered", attempts: 2, responseStatus: 200 });
    expect(first.attemptLog.map((a) => [a.responseStatus, a.error])).toEqual([
      [500, "the receiver answered 500"],
      [200, null],
    ]);
    expect(first.attemptLog[0]!.responseBody).toBe("receiver says no");
    // The retry waited for the backoff's first pause (200 ms, no jitter here).
    expect(new Date(first.attemptLog[1]!.at).getTime() - new Date(first.attemptLog[0]!.at).getTime()).toBeGreaterThanOrEqual(200);
  });

  it("are given up after the policy's attempts, and the next one goes out", async () => {
    const rx = await receiver((n) => (n <= 3 ? 503 : 200));
    const id = await endpoint(rx.url, ["run.failed"]);
    await queuePing(id, "first");
    await queuePing(id, "second");
    worker();
    await until("the second delivered", async () => (await listDeliveries(id)).find((d) => d.seq === 2 && d.status === "delivered"));
    const first = (await listDeliveries(id)).find((d) => d.seq === 1)!;
    expect(first).toMatchObject({ status: "failed", attempts: 3, responseStatus: 503, lastError: "the receiver answered 503" });
    expect(rx.received.map((r) => r.json.sequence)).toEqual([1, 1, 1, 2]);
  });

  it("can be sent again: a redelivery carries the same body and event id under a new delivery id", async () => {
    const rx = await receiver();
    const id = await endpoint(rx.url, ["run.failed"]);
    const original = await queuePing(id, "someone");
    worker();
    await until("the ping", () => rx.received[0]);
    const again = await queueRedelivery(original);
    await until("the redelivery", () => rx.received[1]);
    expect(rx.received[1]!.body).toBe(rx.received[0]!.body);
    expect(rx.received[1]!.headers["x-bootdeck-delivery"]).toBe(again);
    expect(rx.received[1]!.headers["x-bootdeck-redelivery"]).toBe(original);
    expect(rx.received[1]!.headers["x-bootdeck-event-id"]).toBe(rx.received[0]!.json.id);
  });

  it("are never sent across a redirect", async () => {
    const target = await receiver();
    const rx = await receiver();
    const redirecting = createServer((_req, res) => res.writeHead(307, { location: target.url }).end());
    servers.push(redirecting);
    await new Promise<void>((r) => redirecting.listen(0, "127.0.0.1", r));
    const id = await endpoint(`http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/`, ["run.failed"]);
    await queuePing(id, "x");
    worker(policy({ backoff: { attempts: 1, baseMs: 100, maxMs: 100, jitter: 0 } }));
    const d = await until("the attempt", async () => (await listDeliveries(id)).find((x) => x.status === "failed"));
    expect(d.lastError).toMatch(/answered 307 \(a redirect, which is not followed/);
    expect(target.received).toEqual([]);
    expect(rx.received).toEqual([]);
  });
});

describe("a receiver that never answers", () => {
  it("times out and is retried, without holding up the run or another endpoint", async () => {
    const dead = await receiver(() => null);
    const live = await receiver();
    const deadId = await endpoint(dead.url, ["run.failed", "run.succeeded"]);
    await endpoint(live.url, ["run.failed", "run.succeeded"]);
    worker(policy({ timeoutMs: 8_000 }));
    // Two runs end while the dead receiver holds its first delivery's connection open.
    const first = await check((step) => (step === "facts/worker-1" ? { exitCode: 3 } : undefined));
    await until("the dead receiver holding the first delivery", () => dead.hanging.length === 1);
    const second = await check(() => undefined);
    expect([first.outcome, second.outcome]).toEqual(["failed", "succeeded"]);
    // Both runs ended while the dead receiver had not answered once, and the live one has both events.
    const stuck = (await listDeliveries(deadId)).find((d) => d.seq === 1)!;
    expect(stuck).toMatchObject({ status: "delivering", attempts: 0 });
    await until("both events at the live receiver", () => live.received.length === 2);
    expect(live.received.map((r) => r.json.type)).toEqual(["run.failed", "run.succeeded"]);
    expect(dead.received).toHaveLength(1);
    // Then the attempt times out and the same delivery is tried again (the second waits behind it).
    await until("the timeout recorded", async () => (await listDeliveries(deadId)).find((d) => d.seq === 1 && d.attempts >= 1));
    await until("a second attempt", () => dead.received.length >= 2);
    expect(dead.received.map((r) => r.json.sequence)).toEqual([1, 1]);
    const timedOut = (await listDeliveries(deadId)).find((d) => d.seq === 1)!;
    expect(timedOut.attemptLog[0]).toMatchObject({ responseStatus: null, error: "no answer within 8 s" });
    expect(timedOut.attemptLog[0]!.durationMs).toBeGreaterThanOrEqual(7_900);
  });
});

describe("a certificate expiring", () => {
  it("is told once per endpoint, and only to endpoints whose window it is in; a cluster never deployed has none to tell", async () => {
    const near = await receiver();
    const far = await receiver();
    const nearId = await endpoint(near.url, ["certificate.expiring"], { certificateDays: 30 });
    await endpoint(far.url, ["certificate.expiring"], { certificateDays: 5 });
    const notAfter = new Date(Date.now() + 10.5 * 86_400_000);
    await getDb().assetSet.create({ data: { id: newId("as"), clusterId, version: 1, notAfter } });
    const planned = (await createCluster({ definition: exampleDefinition({ name: "only-planned", hosts: HOSTS.length }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
    await getDb().assetSet.create({ data: { id: newId("as"), clusterId: planned, version: 1, notAfter } });
    expect(await checkCertificateExpiry()).toBe(0);
    // Deployed: a bootstrap succeeded on its hosts.
    await getDb().run.create({ data: { id: newId("run"), clusterId, type: "bootstrap", status: "succeeded", plan: "{}", definition: "{}", finishedAt: new Date() } });
    await checkCertificateExpiry();
    await checkCertificateExpiry();
    worker();
    await until("the warning", () => near.received[0]);
    expect(near.received[0]!.json).toMatchObject({ type: "certificate.expiring", cluster: { id: clusterId }, certificate: { notAfter: notAfter.toISOString(), daysLeft: 10, assetSetVersion: 1 } });
    expect(await listDeliveries(nearId)).toHaveLength(1);
    expect(far.received).toEqual([]);
  });
});

describe("a backup schedule failing", () => {
  it("is told when a scheduled backup cannot start, once per streak", async () => {
    const rx = await receiver();
    const id = await endpoint(rx.url, ["backup.failing"]);
    // Another run holds the cluster, so the due backup is skipped (and tried again in a few minutes).
    await getDb().cluster.update({ where: { id: clusterId }, data: { activeRunId: "run_heldbyanother00" } });
    try {
      const due = new Date(Date.now() - 1000);
      await getDb().backupPolicy.upsert({ where: { clusterId }, create: { clusterId, enabled: true, intervalMinutes: 60, nextDueAt: due }, update: { enabled: true, nextDueAt: due, failures: 0, lastStatus: null } });
      expect(await startDueBackups()).toEqual([]);
      await getDb().backupPolicy.update({ where: { clusterId }, data: { nextDueAt: new Date(Date.now() - 1000) } });
      expect(await startDueBackups()).toEqual([]);
      worker();
      const got = await until("the warning", () => rx.received[0]);
      expect(got.json).toMatchObject({ type: "backup.failing", cluster: { id: clusterId }, backup: { outcome: "skipped", failures: 1, runId: null } });
      expect(got.json.summary).toMatch(/^scheduled backup could not start: Another run \(run_heldbyanother00\) is in progress/);
      // The second skip of the same streak is not told again.
      expect((await getDb().backupPolicy.findUniqueOrThrow({ where: { clusterId } })).failures).toBe(2);
      expect(await listDeliveries(id)).toHaveLength(1);
    } finally {
      await getDb().cluster.update({ where: { id: clusterId }, data: { activeRunId: null } });
      await getDb().backupPolicy.update({ where: { clusterId }, data: { enabled: false } });
    }
  });
});

describe("the delivery log", () => {
  it("keeps finished deliveries for 30 days, and what still waits for ever", async () => {
    const id = await endpoint("https://hooks.example/x", ["run.failed"]);
    const [old, waiting, recent] = [await queuePing(id, "a"), await queuePing(id, "b"), await queuePing(id, "c")];
    const longAgo = new Date(Date.now() - 31 * 86_400_000);
    await getDb().webhookDelivery.update({ where: { id: old }, data: { status: "delivered", createdAt: longAgo } });
    await getDb().webhookDelivery.update({ where: { id: waiting }, data: { createdAt: longAgo } });
    await getDb().webhookDelivery.update({ where: { id: recent }, data: { status: "failed" } });
    expect(await pruneDeliveryLog()).toBe(1);
    expect((await listDeliveries(id)).map((d) => d.id).sort()).toEqual([waiting, recent].sort());
  });
});

describe("an endpoint's secret", () => {
  it("is sealed with the master key in the database, bound to its endpoint", async () => {
    const id = await endpoint("https://hooks.example/x", ["run.failed"]);
    const row = await getDb().webhookEndpoint.findUniqueOrThrow({ where: { id } });
    expect(row.secretCipher).toMatch(/^v2:/);
    expect(row.secretCipher).not.toContain(SECRET);
    expect(decryptSecret(row.secretCipher, secretContexts.webhookSecret(id))).toBe(SECRET);
    // Moved to another endpoint's row, it does not open.
    expect(() => decryptSecret(row.secretCipher, secretContexts.webhookSecret("wh_other"))).toThrow(/does not authenticate/);
  });
});
