import "server-only";
// Webhook endpoints: create, change, delete, list with their last outcome, and each endpoint's
// delivery log. The secret is sealed with the master key when written and opened only to sign a
// delivery (deliver.ts); no view carries it.
import { getDb } from "../db/client";
import { conflict, notFound } from "../errors";
import { newId } from "../ids";
import { encryptSecret, secretContexts } from "../secrets/cipher";
import type { CreateWebhookBody, DeliveryStatus, DeliveryView, NotificationEvent, UpdateWebhookBody, WebhookFormat, WebhookView } from "./schemas";

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === "P2002";

export async function createWebhook(body: CreateWebhookBody, by: string): Promise<string> {
  const id = newId("wh");
  try {
    await getDb().webhookEndpoint.create({
      data: { id, name: body.name, url: body.url, format: body.format, events: JSON.stringify(body.events), certificateDays: body.certificateDays, enabled: body.enabled, secretCipher: encryptSecret(body.secret, secretContexts.webhookSecret(id)), updatedBy: by },
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`A webhook named "${body.name}" exists already`);
    throw err;
  }
  return id;
}

/** Changes an endpoint; returns the names of the fields that changed (the secret's value never). */
export async function updateWebhook(id: string, body: UpdateWebhookBody, by: string): Promise<string[]> {
  const db = getDb();
  const before = await db.webhookEndpoint.findUnique({ where: { id } });
  if (!before) throw notFound("Webhook");
  const data: Record<string, unknown> = { updatedBy: by };
  const changed: string[] = [];
  const set = (field: string, value: unknown, old: unknown) => {
    if (value === undefined || JSON.stringify(value) === JSON.stringify(old)) return;
    data[field] = value;
    changed.push(field);
  };
  set("name", body.name, before.name);
  set("url", body.url, before.url);
  set("format", body.format, before.format);
  set("events", body.events && JSON.stringify(body.events), before.events);
  set("certificateDays", body.certificateDays, before.certificateDays);
  set("enabled", body.enabled, before.enabled);
  if (body.secret !== undefined) {
    data.secretCipher = encryptSecret(body.secret, secretContexts.webhookSecret(id));
    changed.push("secret");
  }
  try {
    await db.webhookEndpoint.update({ where: { id }, data });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`A webhook named "${body.name}" exists already`);
    throw err;
  }
  return changed;
}

export async function deleteWebhook(id: string): Promise<{ name: string; url: string }> {
  const db = getDb();
  const e = await db.webhookEndpoint.findUnique({ where: { id }, select: { name: true, url: true } });
  if (!e) throw notFound("Webhook");
  await db.webhookEndpoint.delete({ where: { id } });
  return e;
}

export async function listWebhooks(): Promise<WebhookView[]> {
  const db = getDb();
  const rows = await db.webhookEndpoint.findMany({ orderBy: { name: "asc" } });
  const [pending, newest] = await Promise.all([
    db.webhookDelivery.groupBy({ by: ["endpointId"], where: { status: { in: ["pending", "delivering"] } }, _count: { _all: true } }),
    Promise.all(rows.map((r) => db.webhookDelivery.findFirst({ where: { endpointId: r.id }, orderBy: { seq: "desc" }, select: { status: true, event: true, createdAt: true, responseStatus: true } }))),
  ]);
  return rows.map((r, i) => {
    const last = newest[i];
    return {
      id: r.id,
      name: r.name,
      url: r.url,
      format: r.format as WebhookFormat,
      events: JSON.parse(r.events) as NotificationEvent[],
      certificateDays: r.certificateDays,
      enabled: r.enabled,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
      updatedBy: r.updatedBy,
      last: last ? { status: last.status as DeliveryStatus, event: last.event, at: last.createdAt.toISOString(), responseStatus: last.responseStatus } : null,
      pending: pending.find((p) => p.endpointId === r.id)?._count._all ?? 0,
    };
  });
}

export async function getWebhook(id: string): Promise<WebhookView> {
  const found = (await listWebhooks()).find((w) => w.id === id);
  if (!found) throw notFound("Webhook");
  return found;
}

/** An endpoint's deliveries, newest first, with every attempt. */
export async function listDeliveries(endpointId: string, { limit = 100 }: { limit?: number } = {}): Promise<DeliveryView[]> {
  const db = getDb();
  if (!(await db.webhookEndpoint.findUnique({ where: { id: endpointId }, select: { id: true } }))) throw notFound("Webhook");
  const rows = await db.webhookDelivery.findMany({ where: { endpointId }, orderBy: { seq: "desc" }, take: limit, include: { attemptLog: { orderBy: { at: "asc" } } } });
  return rows.map((d) => ({
    id: d.id,
    seq: d.seq,
    eventId: d.eventId,
    event: d.event,
    status: d.status as DeliveryStatus,
    attempts: d.attempts,
    nextAttemptAt: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
    responseStatus: d.responseStatus,
    responseMs: d.responseMs,
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
    redeliveryOf: d.redeliveryOf,
    attemptLog: d.attemptLog.map((a) => ({ at: a.at.toISOString(), durationMs: a.durationMs, responseStatus: a.responseStatus, error: a.error, responseBody: a.responseBody })),
    body: d.body,
  }));
}

/** The delivery, when it belongs to the endpoint (404 otherwise). */
export async function assertDelivery(endpointId: string, deliveryId: string): Promise<{ event: string; eventId: string }> {
  const d = await getDb().webhookDelivery.findFirst({ where: { id: deliveryId, endpointId }, select: { event: true, eventId: true } });
  if (!d) throw notFound("Delivery");
  return d;
}
