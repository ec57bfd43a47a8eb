import "server-only";
// One attempt at one delivery: claim it (a guarded update, so of several workers exactly one sends
// it), POST the stored body signed with the endpoint's secret, record the attempt, and either mark it
// delivered or schedule the next attempt with the engine's backoff (lib/ssh/backoff.ts). A receiver
// gets `timeoutMs` for the whole answer; redirects are not followed (the URL an admin configured is
// the only place a body goes).
import { getDb } from "../db/client";
import { decryptSecret, secretContexts } from "../secrets/cipher";
import { backoffDelay, type BackoffOptions } from "../ssh/backoff";
import { SIGNATURE_HEADER } from "./schemas";
import { signBody } from "./sign";

export type DeliveryPolicy = {
  /** How long a receiver has to answer, headers and body. */
  timeoutMs: number;
  /** Attempts in all, and the pause before each retry. */
  backoff: BackoffOptions;
};

/** Ten attempts over 70 to 85 minutes: 10 s, 20 s, 40 s … up to 43 min apart (less the jitter). */
export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = { timeoutMs: 10_000, backoff: { attempts: 10, baseMs: 10_000, maxMs: 60 * 60_000, jitter: 0.2 } };

const RESPONSE_BODY_BYTES = 1024;
/** A claimed delivery whose worker went silent this long after its timeout is taken again. */
const CLAIM_SLACK_MS = 30_000;

export type AttemptResult = { outcome: "delivered" | "retry" | "failed" | "not-claimed" | "released"; status?: number; error?: string; durationMs?: number };

/** Claims a delivery that is due (or whose claim expired) for `workerId`. */
export async function claimDelivery(deliveryId: string, workerId: string, policy: DeliveryPolicy, now = new Date()): Promise<boolean> {
  const r = await getDb().webhookDelivery.updateMany({
    where: { id: deliveryId, OR: [{ status: "pending", nextAttemptAt: { lte: now } }, { status: "delivering", lockedUntil: { lt: now } }] },
    data: { status: "delivering", lockedBy: workerId, lockedUntil: new Date(now.getTime() + policy.timeoutMs + CLAIM_SLACK_MS) },
  });
  return r.count === 1;
}

/** Sends a delivery this worker claimed and records the outcome. `signal` ends it early at a shutdown (not counted as an attempt). */
export async function attemptDelivery(deliveryId: string, workerId: string, policy: DeliveryPolicy, signal?: AbortSignal): Promise<AttemptResult> {
  const db = getDb();
  const d = await db.webhookDelivery.findUnique({ where: { id: deliveryId }, include: { endpoint: { select: { id: true, url: true, secretCipher: true } } } });
  if (!d || d.status !== "delivering" || d.lockedBy !== workerId) return { outcome: "not-claimed" };
  const at = new Date();
  const started = performance.now();
  let status: number | undefined;
  let error: string | undefined;
  let responseBody: string | undefined;
  try {
    const url = new URL(d.endpoint.url);
    // Checked when saved; checked again so that nothing but http(s) is ever fetched.
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`refused: ${url.protocol} is not http or https`);
    let secret: string;
    try {
      secret = decryptSecret(d.endpoint.secretCipher, secretContexts.webhookSecret(d.endpoint.id));
    } catch (err) {
      throw new Error(`could not open the endpoint's signing secret (${err instanceof Error ? err.message : String(err)}); nothing was sent`);
    }
    const timeout = AbortSignal.timeout(policy.timeoutMs);
    const res = await fetch(url, {
      method: "POST",
      body: d.body,
      redirect: "manual",
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      headers: {
        "content-type": "application/json",
        "user-agent": "Bootdeck-Webhooks/1",
        [SIGNATURE_HEADER]: signBody(secret, d.body),
        "x-bootdeck-event": d.event,
        "x-bootdeck-delivery": d.id,
        "x-bootdeck-event-id": d.eventId,
        ...(d.redeliveryOf ? { "x-bootdeck-redelivery": d.redeliveryOf } : {}),
      },
    });
    status = res.status;
    responseBody = await readSome(res, RESPONSE_BODY_BYTES);
    if (status >= 300 && status < 400) error = `the receiver answered ${status} (a redirect, which is not followed: configure the URL it points to)`;
    else if (status >= 300) error = `the receiver answered ${status}`;
  } catch (err) {
    if (signal?.aborted) {
      // A shutdown: give the delivery back without counting the attempt; another worker sends it now.
      await db.webhookDelivery.updateMany({ where: { id: deliveryId, lockedBy: workerId, status: "delivering" }, data: { status: "pending", lockedBy: null, lockedUntil: null } });
      return { outcome: "released" };
    }
    error = err instanceof Error && /^(refused|could not open)/.test(err.message) ? err.message : describeFetchError(err, policy.timeoutMs);
  }
  const durationMs = Math.round(performance.now() - started);
  const ok = error === undefined;
  const attempts = d.attempts + 1;
  const giveUp = !ok && attempts >= policy.backoff.attempts;
  const nextAttemptAt = ok || giveUp ? at : new Date(Date.now() + backoffDelay(attempts, policy.backoff));
  await db.$transaction(async (tx) => {
    const mine = await tx.webhookDelivery.updateMany({
      where: { id: deliveryId, lockedBy: workerId, status: "delivering" },
      data: {
        status: ok ? "delivered" : giveUp ? "failed" : "pending",
        attempts,
        nextAttemptAt,
        lockedBy: null,
        lockedUntil: null,
        responseStatus: status ?? null,
        responseMs: durationMs,
        lastError: error ?? null,
        deliveredAt: ok ? new Date() : null,
      },
    });
    // Its claim ran out and another worker has it now: that one records its own attempt.
    if (mine.count === 1) await tx.webhookAttempt.create({ data: { deliveryId, at, durationMs, responseStatus: status ?? null, error: error ?? null, responseBody: responseBody || null } });
  });
  return { outcome: ok ? "delivered" : giveUp ? "failed" : "retry", status, error, durationMs };
}

async function readSome(res: Response, limit: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, limit).toString("utf8");
}

function describeFetchError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError") return `no answer within ${timeoutMs / 1000} s`;
  const cause = e.cause?.code ?? e.cause?.message;
  return `could not reach the receiver: ${e.message ?? String(err)}${cause ? ` (${cause})` : ""}`;
}
