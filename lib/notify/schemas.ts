// Webhook notifications as the API, the pages and the receivers see them: the events an endpoint can
// subscribe to, the request bodies of the endpoints API, and the body every delivery carries (the
// stable schema documented in docs/notifications.md). Browser-safe.
import { z } from "zod";

/** The events an admin can subscribe an endpoint to. */
export const notificationEvents = ["run.succeeded", "run.failed", "run.needs-decision", "backup.failing", "certificate.expiring", "host.unreachable"] as const;
export type NotificationEvent = (typeof notificationEvents)[number];
/** Sent only by "Send a test delivery"; needs no subscription. */
export type DeliveredEvent = NotificationEvent | "ping";

export const eventLabels: Record<NotificationEvent, string> = {
  "run.succeeded": "A run succeeded",
  "run.failed": "A run failed",
  "run.needs-decision": "A run waits for a decision",
  "backup.failing": "A backup schedule is failing",
  "certificate.expiring": "A certificate expires soon",
  "host.unreachable": "A host did not answer during a check",
};

export const webhookFormats = ["json", "slack"] as const;
export type WebhookFormat = (typeof webhookFormats)[number];

export const SIGNATURE_HEADER = "X-Bootdeck-Signature-256";
export const BODY_SCHEMA = "bootdeck.webhook/v1";

/**
 * A receiver's URL: http or https only (no file:, data:, gopher: or anything else fetch or a proxy
 * might understand), no user name or password in it (they would be stored in clear), no fragment.
 */
export const webhookUrl = z
  .string()
  .trim()
  .max(2000, "must be at most 2000 characters")
  .refine((s) => URL.canParse(s), "must be an absolute URL (https://…)")
  .refine((s) => URL.canParse(s) && ["http:", "https:"].includes(new URL(s).protocol), "must be an http:// or https:// URL")
  .refine((s) => !URL.canParse(s) || (!new URL(s).username && !new URL(s).password), "must not contain a user name or password: the receiver checks the signature instead")
  .refine((s) => !URL.canParse(s) || !new URL(s).hash, "must not contain a #fragment");

const name = z
  .string()
  .trim()
  .min(1, "is required")
  .max(64, "must be at most 64 characters")
  .regex(/^[^\p{Cc}\p{Cf}\p{Cs}<>]*$/u, "may not contain control characters or < >");
/** The HMAC key the receiver checks signatures with; written once, never read back. */
const secret = z.string().min(16, "must be at least 16 characters (openssl rand -hex 32)").max(256).regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces");
const events = z
  .array(z.enum(notificationEvents))
  .min(1, "choose at least one event")
  .max(notificationEvents.length)
  .refine((e) => new Set(e).size === e.length, "lists an event twice");
const certificateDays = z.number().int().min(1, "must be at least 1 day").max(365, "must be at most 365 days");

export const createWebhookBody = z.strictObject({
  name,
  url: webhookUrl,
  format: z.enum(webhookFormats).default("json"),
  events,
  certificateDays: certificateDays.default(14),
  secret,
  enabled: z.boolean().default(true),
});
export type CreateWebhookBody = z.output<typeof createWebhookBody>;

export const updateWebhookBody = z
  .strictObject({ name: name.optional(), url: webhookUrl.optional(), format: z.enum(webhookFormats).optional(), events: events.optional(), certificateDays: certificateDays.optional(), secret: secret.optional(), enabled: z.boolean().optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), "nothing to change");
export type UpdateWebhookBody = z.output<typeof updateWebhookBody>;

export const webhookIdParams = z.strictObject({ id: z.string().regex(/^wh_[A-Za-z0-9_-]{16}$/) });
export const deliveryIdParams = z.strictObject({ id: z.string().regex(/^wh_[A-Za-z0-9_-]{16}$/), deliveryId: z.string().regex(/^whd_[A-Za-z0-9_-]{16}$/) });

export type WebhookView = {
  id: string;
  name: string;
  url: string;
  format: WebhookFormat;
  events: NotificationEvent[];
  certificateDays: number;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
  updatedBy: string | null;
  /** The newest delivery's outcome, for the list. */
  last: { status: DeliveryStatus; event: string; at: string; responseStatus: number | null } | null;
  pending: number;
};

export type DeliveryStatus = "pending" | "delivering" | "delivered" | "failed";

export type DeliveryView = {
  id: string;
  seq: number;
  eventId: string;
  event: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  responseStatus: number | null;
  responseMs: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  redeliveryOf: string | null;
  attemptLog: { at: string; durationMs: number; responseStatus: number | null; error: string | null; responseBody: string | null }[];
  /** The body exactly as it is signed and sent. */
  body: string;
};

export const webhookQueryKeys = {
  list: () => ["webhooks"] as const,
  deliveries: (id: string) => ["webhooks", id, "deliveries"] as const,
};

// The body of a delivery in the json format (docs/notifications.md). Fields are only ever added.
export type WebhookBody = {
  schema: typeof BODY_SCHEMA;
  /** The event's id: the same for every endpoint it went to and for every redelivery. */
  id: string;
  type: DeliveredEvent;
  occurredAt: string;
  /** Counts up by one per delivery to this endpoint: a receiver sees order and gaps. */
  sequence: number;
  /** One line for people. */
  summary: string;
  /** The dashboard page it is about, when BOOTDECK_PUBLIC_URL is set. */
  url: string | null;
  cluster: { id: string; name: string } | null;
  run?: { id: string; type: string; status: string; message: string; startedAt: string | null; finishedAt: string | null; durationSeconds: number | null; failedHosts: string[] };
  backup?: { outcome: "failed" | "skipped"; error: string; failures: number; lastSuccessAt: string | null; runId: string | null };
  certificate?: { notAfter: string; daysLeft: number; assetSetVersion: number };
  host?: { name: string; address: string; error: string; runId: string };
};
