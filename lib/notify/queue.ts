import "server-only";
// The delivery worker, one per engine process (the dashboard unless BOOTDECK_ENGINE=off, every
// `bootdeck worker`), the same on SQLite and PostgreSQL. The WebhookDelivery table is the queue: a
// delivery is claimed with a guarded update, which both databases make atomic, so of several workers
// exactly one sends it, and a worker that dies leaves a claim that expires.
//
// Order: an endpoint's deliveries go one at a time, oldest first — the next waits until the one before
// it was delivered or given up, so a receiver sees events in the order they happened, retries
// included. Isolation: each endpoint has at most one delivery in flight and the worker sends for up to
// `concurrency` endpoints at once, each bounded by the policy's timeout, so a slow or dead receiver
// holds up nothing but its own queue, and never a run (a run only inserts rows, in its own
// transaction; see outbox.ts).
//
// Why not pg-boss on PostgreSQL, as runs are: the order per endpoint and the delivery log live in this
// table anyway; a job per delivery would be a second copy of its state to keep in step with the first.
import { getDb } from "../db/client";
import { localWorkerId } from "../worker-id";
import { attemptDelivery, claimDelivery, DEFAULT_DELIVERY_POLICY, type DeliveryPolicy } from "./deliver";
import { onDeliveriesQueued } from "./wake";

const POLL_MS = 1_000;

export type DeliveryWorkerOptions = { workerId?: string; policy?: DeliveryPolicy; concurrency?: number; pollMs?: number };

export class DeliveryWorker {
  readonly workerId: string;
  readonly policy: DeliveryPolicy;
  private readonly concurrency: number;
  private readonly pollMs: number;
  /** endpointId → the attempt in flight. */
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly shutdown = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private looking = false;
  private again = false;

  constructor(options: DeliveryWorkerOptions = {}) {
    this.workerId = options.workerId ?? localWorkerId();
    this.policy = options.policy ?? DEFAULT_DELIVERY_POLICY;
    this.concurrency = options.concurrency ?? 8;
    this.pollMs = options.pollMs ?? POLL_MS;
  }

  start(): void {
    if (this.timer || this.shutdown.signal.aborted) return;
    this.timer = setInterval(() => this.look(), this.pollMs);
    this.timer.unref();
    this.unsubscribe = onDeliveriesQueued(() => this.look());
    this.look();
  }

  /** Stops looking; deliveries in flight are given back (not counted as attempts) unless they finish within `graceMs`. */
  async stop({ graceMs = 2_000 }: { graceMs?: number } = {}): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
    const all = Promise.allSettled([...this.inFlight.values()]);
    const finished = await Promise.race([all.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), graceMs).unref())]);
    this.shutdown.abort();
    if (!finished) await all;
  }

  /** Looks for due deliveries now (coalesced: one look at a time, another right after when asked meanwhile). */
  look(): void {
    if (this.shutdown.signal.aborted) return;
    if (this.looking) {
      this.again = true;
      return;
    }
    this.looking = true;
    void this.dispatch()
      .catch((err: unknown) => console.error("[bootdeck webhooks] could not look for deliveries:", err))
      .finally(() => {
        this.looking = false;
        if (this.again) {
          this.again = false;
          this.look();
        }
      });
  }

  private async dispatch(): Promise<void> {
    if (this.inFlight.size >= this.concurrency) return;
    const now = new Date();
    for (const head of await dueHeads(now, [...this.inFlight.keys()])) {
      if (this.inFlight.size >= this.concurrency || this.shutdown.signal.aborted) return;
      if (this.inFlight.has(head.endpointId) || !(await claimDelivery(head.id, this.workerId, this.policy, now))) continue;
      const attempt = attemptDelivery(head.id, this.workerId, this.policy, this.shutdown.signal)
        .then(() => undefined)
        .catch((err: unknown) => console.error(`[bootdeck webhooks] delivery ${head.id} failed unexpectedly:`, err))
        .finally(() => {
          this.inFlight.delete(head.endpointId);
          // The endpoint's next delivery may be due now.
          this.look();
        });
      this.inFlight.set(head.endpointId, attempt);
    }
  }
}

/**
 * The oldest undelivered delivery of each enabled endpoint, when it may be sent now: pending and due,
 * or claimed by a worker whose claim ran out. An endpoint whose oldest one is in flight (here or in
 * another process) or waiting for its retry sends nothing else meanwhile.
 */
export async function dueHeads(now: Date, skipEndpoints: string[] = []): Promise<{ id: string; endpointId: string }[]> {
  const db = getDb();
  const heads = await db.webhookDelivery.groupBy({
    by: ["endpointId"],
    where: { status: { in: ["pending", "delivering"] }, endpoint: { enabled: true }, endpointId: { notIn: skipEndpoints } },
    _min: { seq: true },
  });
  if (!heads.length) return [];
  const rows = await db.webhookDelivery.findMany({
    where: {
      OR: heads.map((h) => ({ endpointId: h.endpointId, seq: h._min.seq ?? -1 })),
      AND: [{ OR: [{ status: "pending", nextAttemptAt: { lte: now } }, { status: "delivering", lockedUntil: { lt: now } }] }],
    },
    select: { id: true, endpointId: true, nextAttemptAt: true },
    orderBy: { nextAttemptAt: "asc" },
  });
  return rows;
}

/** Deliveries not yet delivered or given up (the metrics' queue depth). */
export async function deliveryQueueDepth(): Promise<number> {
  return getDb().webhookDelivery.count({ where: { status: { in: ["pending", "delivering"] } } });
}

const holder = globalThis as unknown as { bootdeckDeliveryWorker?: DeliveryWorker };

/** Starts this process's delivery worker (once). */
export function startDeliveryWorker(options?: DeliveryWorkerOptions): DeliveryWorker {
  holder.bootdeckDeliveryWorker ??= new DeliveryWorker(options);
  holder.bootdeckDeliveryWorker.start();
  return holder.bootdeckDeliveryWorker;
}

export async function stopDeliveryWorker(): Promise<void> {
  const w = holder.bootdeckDeliveryWorker;
  holder.bootdeckDeliveryWorker = undefined;
  await w?.stop();
}
