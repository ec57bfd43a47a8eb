import "server-only";
// Queues notifications: one WebhookDelivery per enabled endpoint subscribed to the event, its body
// rendered and numbered for that endpoint. A run's notification is queued inside the transaction that
// records the run's end (events.ts), so it exists exactly when the run's end does — nothing sends it
// there; the delivery worker (queue.ts) does, later, whatever the receiver does.
import { getDb } from "../db/client";
import { getEnv } from "../env";
import type { Prisma } from "../generated/prisma/client";
import { newId } from "../ids";
import { renderBody, type EventFacts } from "./body";
import { notificationEvents, type NotificationEvent, type WebhookFormat } from "./schemas";
import { wakeDeliveries } from "./wake";

type Tx = Prisma.TransactionClient;
type Endpoint = { id: string; events: string; format: string; certificateDays: number };

/** Never throws: this runs inside the transaction that ends a run, which must commit whatever an endpoint holds. */
const eventsOf = (e: Endpoint): string[] => {
  try {
    const v: unknown = JSON.parse(e.events);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
};

const subscribed = (e: Endpoint, facts: EventFacts): boolean => {
  if (!eventsOf(e).includes(facts.type)) return false;
  return facts.type !== "certificate.expiring" || (facts.certificate?.daysLeft ?? Infinity) <= e.certificateDays;
};

async function queueFor(tx: Tx, endpoint: Endpoint, facts: EventFacts, extra: { dedupeKey?: string; redeliveryOf?: string } = {}): Promise<string> {
  const { lastSeq } = await tx.webhookEndpoint.update({ where: { id: endpoint.id }, data: { lastSeq: { increment: 1 } }, select: { lastSeq: true } });
  const id = newId("whd");
  await tx.webhookDelivery.create({
    data: {
      id,
      endpointId: endpoint.id,
      seq: lastSeq,
      eventId: facts.id,
      event: facts.type,
      body: renderBody(endpoint.format as WebhookFormat, facts, lastSeq, getEnv().BOOTDECK_PUBLIC_URL),
      dedupeKey: extra.dedupeKey ?? null,
      redeliveryOf: extra.redeliveryOf ?? null,
    },
  });
  return id;
}

/** Inside the caller's transaction: a delivery for every endpoint that wants this event. Wake the worker after the commit. */
export async function queueNotificationIn(tx: Tx, facts: EventFacts): Promise<number> {
  const endpoints = await tx.webhookEndpoint.findMany({ where: { enabled: true }, select: { id: true, events: true, format: true, certificateDays: true } });
  let n = 0;
  for (const e of endpoints.filter((x) => subscribed(x, facts))) {
    await queueFor(tx, e, facts);
    n++;
  }
  return n;
}

/**
 * A condition seen on every check (a certificate that expires soon, a failing schedule): queued once
 * per endpoint and `dedupeKey`, however many processes check and however often.
 */
export async function queueNotification(facts: EventFacts, { dedupeKey }: { dedupeKey?: string } = {}): Promise<number> {
  const db = getDb();
  const endpoints = await db.webhookEndpoint.findMany({ where: { enabled: true }, select: { id: true, events: true, format: true, certificateDays: true } });
  let n = 0;
  for (const e of endpoints.filter((x) => subscribed(x, facts))) {
    if (dedupeKey && (await db.webhookDelivery.findFirst({ where: { endpointId: e.id, dedupeKey }, select: { id: true } }))) continue;
    try {
      await db.$transaction((tx) => queueFor(tx, e, facts, { dedupeKey }));
      n++;
    } catch (err) {
      // Another process queued the same one first (the unique endpoint + dedupeKey).
      if ((err as { code?: string }).code !== "P2002") throw err;
    }
  }
  if (n) wakeDeliveries();
  return n;
}

/** A "Send a test delivery": a ping to one endpoint, whatever it subscribes to. */
export async function queuePing(endpointId: string, by: string): Promise<string> {
  const db = getDb();
  const id = await db.$transaction(async (tx) => {
    const e = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id: endpointId }, select: { id: true, events: true, format: true, certificateDays: true } });
    return queueFor(tx, e, { id: newId("evt"), type: "ping", occurredAt: new Date().toISOString(), summary: `Test delivery sent by ${by}`, cluster: null, path: "/webhooks" });
  });
  wakeDeliveries();
  return id;
}

/** Sends a delivery's body again, as a new delivery at the end of the endpoint's queue. */
export async function queueRedelivery(deliveryId: string): Promise<string> {
  const db = getDb();
  const id = await db.$transaction(async (tx) => {
    const d = await tx.webhookDelivery.findUniqueOrThrow({ where: { id: deliveryId }, select: { endpointId: true, eventId: true, event: true, body: true } });
    const { lastSeq } = await tx.webhookEndpoint.update({ where: { id: d.endpointId }, data: { lastSeq: { increment: 1 } }, select: { lastSeq: true } });
    const newIdValue = newId("whd");
    // The same bytes (same event id, same sequence inside): a receiver that saw it already knows it by its id.
    await tx.webhookDelivery.create({ data: { id: newIdValue, endpointId: d.endpointId, seq: lastSeq, eventId: d.eventId, event: d.event, body: d.body, redeliveryOf: deliveryId } });
    return newIdValue;
  });
  wakeDeliveries();
  return id;
}

/** Run events that are notifications: a run's end (succeeded, failed, waiting for a decision) and, in a check, a host that did not answer. */
export async function queueRunEventNotificationsIn(tx: Tx, e: { runId: string; type: string; hostId: string | null; data: Record<string, unknown>; at: string }): Promise<number> {
  if (e.type === "run.finished") {
    const status = String(e.data.status);
    const type = `run.${status}` as NotificationEvent;
    if (!notificationEvents.includes(type)) return 0;
    const run = await tx.run.findUnique({ where: { id: e.runId }, select: { type: true, clusterId: true, startedAt: true, cluster: { select: { name: true } } } });
    if (!run) return 0;
    const summary = (e.data.summary ?? {}) as { message?: string; failedHosts?: string[] };
    const message = summary.message ?? status;
    const duration = run.startedAt ? (new Date(e.at).getTime() - run.startedAt.getTime()) / 1000 : null;
    return queueNotificationIn(tx, {
      id: newId("evt"),
      type,
      occurredAt: e.at,
      summary: `${run.type} run ${status === "needs-decision" ? "needs a decision" : status}: ${message}`,
      cluster: { id: run.clusterId, name: run.cluster.name },
      path: `/clusters/${run.clusterId}/runs/${e.runId}`,
      run: { id: e.runId, type: run.type, status, message, startedAt: run.startedAt?.toISOString() ?? null, finishedAt: e.at, durationSeconds: duration, failedHosts: summary.failedHosts ?? [] },
    });
  }
  if (e.type === "step.failed" && e.data.unreachable === true && e.hostId) {
    const run = await tx.run.findUnique({ where: { id: e.runId }, select: { type: true, clusterId: true, cluster: { select: { name: true } } } });
    if (run?.type !== "check") return 0;
    const host = await tx.host.findUnique({ where: { id: e.hostId }, select: { name: true, address: true } });
    if (!host) return 0;
    const error = String(e.data.error ?? "did not answer");
    return queueNotificationIn(tx, {
      id: newId("evt"),
      type: "host.unreachable",
      occurredAt: e.at,
      summary: `${host.name} did not answer during a check: ${error.split("\n")[0]}`,
      cluster: { id: run.clusterId, name: run.cluster.name },
      path: `/clusters/${run.clusterId}/runs/${e.runId}`,
      host: { name: host.name, address: host.address, error, runId: e.runId },
    });
  }
  return 0;
}

