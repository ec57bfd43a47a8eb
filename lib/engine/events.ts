import "server-only";
// The run's append-only event log. Every event gets the next sequence number of its run inside the
// same transaction that stores it, so seq is gap-free and monotonic even with several writers; the
// seq doubles as the SSE event id. Listeners in this process hear an event after it is committed; on
// PostgreSQL, listeners in every process hear it too (NOTIFY in the same transaction, pg-notify.ts).
import { EventEmitter } from "node:events";
import { databaseKind, getDb } from "../db/client";
import { getEnv } from "../env";
import type { Prisma } from "../generated/prisma/client";
import { queueRunEventNotificationsIn } from "../notify/outbox";
import { wakeDeliveries } from "../notify/wake";
import { crashAfter } from "./crash-points";
import { RUN_EVENT_CHANNEL, RunEventListener } from "./pg-notify";

export type RunEventInput = {
  runId: string;
  type: string;
  hostId?: string | null;
  stepId?: string | null;
  data?: Record<string, unknown>;
};

export type StoredRunEvent = { runId: string; seq: number; type: string; hostId: string | null; stepId: string | null; data: Record<string, unknown>; at: string };

const bus = new EventEmitter();
bus.setMaxListeners(0);

/** Appends an event in its own transaction. The engine's writes use `appendRunEventIn` inside its lease-guarded ones. */
export async function appendRunEvent(input: RunEventInput): Promise<StoredRunEvent> {
  const event = await getDb().$transaction((tx) => appendRunEventIn(tx, input));
  publishRunEvent(event);
  return event;
}

/** Appends an event inside the caller's transaction; publish it (`publishRunEvent`) once that commits. */
export async function appendRunEventIn(tx: Prisma.TransactionClient, input: RunEventInput): Promise<StoredRunEvent> {
  const run = await tx.run.update({ where: { id: input.runId }, data: { lastSeq: { increment: 1 } }, select: { lastSeq: true } });
  const row = await tx.runEvent.create({
    data: { runId: input.runId, seq: run.lastSeq, type: input.type, hostId: input.hostId ?? null, stepId: input.stepId ?? null, data: JSON.stringify(input.data ?? {}) },
  });
  // Delivered to every LISTENing process when (and only if) this transaction commits.
  if (databaseKind() === "postgres") await tx.$executeRawUnsafe(`SELECT pg_notify('${RUN_EVENT_CHANNEL}', $1)`, `${input.runId}:${run.lastSeq}`);
  const stored = toStored(row);
  // Every run's end (and a check's unreachable host) passes here: its webhook deliveries commit with it.
  if (NOTIFYING.has(stored.type)) await queueRunEventNotificationsIn(tx, stored);
  return stored;
}

/** The run events that may be notifications (outbox.ts decides). */
const NOTIFYING = new Set(["run.finished", "step.failed"]);

/** Wakes this process's listeners with a committed event. */
export function publishRunEvent(event: StoredRunEvent): void {
  bus.emit(event.runId, event);
  if (NOTIFYING.has(event.type)) wakeDeliveries();
  crashAfter(event);
}

export async function listRunEvents({ runId, afterSeq = 0, limit = 1000 }: { runId: string; afterSeq?: number; limit?: number }): Promise<StoredRunEvent[]> {
  const rows = await getDb().runEvent.findMany({ where: { runId, seq: { gt: afterSeq } }, orderBy: { seq: "asc" }, take: limit });
  return rows.map(toStored);
}

const WAKE = "wake";
const holder = globalThis as unknown as { bootdeckRunEventListener?: RunEventListener };

/** On PostgreSQL, this process's LISTEN session (opened by the first follower). Resolves once it listens. */
export function listenForRunEvents(): Promise<void> {
  if (databaseKind() !== "postgres") return Promise.resolve();
  holder.bootdeckRunEventListener ??= new RunEventListener(
    getEnv().databaseUrl,
    (runId) => bus.emit(`${WAKE}:${runId}`),
    () => bus.emit(WAKE),
  );
  return holder.bootdeckRunEventListener.start().catch((err: unknown) => {
    console.error("[bootdeck] could not LISTEN for run events (streams fall back to reading every few seconds):", err);
  });
}

/** Tests: closes this process's LISTEN session. */
export async function stopListeningForRunEvents(): Promise<void> {
  await holder.bootdeckRunEventListener?.stop();
  holder.bootdeckRunEventListener = undefined;
}

/**
 * Calls `listener` when the run may have new events: one was committed in this process, or (PostgreSQL)
 * in any process, or the LISTEN session was lost and opened again. Returns the unsubscribe function.
 */
export function onRunChange(runId: string, listener: () => void): () => void {
  void listenForRunEvents();
  const local = () => listener();
  bus.on(runId, local);
  bus.on(`${WAKE}:${runId}`, local);
  bus.on(WAKE, local);
  return () => {
    bus.off(runId, local);
    bus.off(`${WAKE}:${runId}`, local);
    bus.off(WAKE, local);
  };
}

/** Live events of one run in this process; returns the unsubscribe function. */
export function onRunEvent(runId: string, listener: (e: StoredRunEvent) => void): () => void {
  bus.on(runId, listener);
  return () => bus.off(runId, listener);
}

function toStored(row: { runId: string; seq: number; type: string; hostId: string | null; stepId: string | null; data: string; createdAt: Date }): StoredRunEvent {
  return { runId: row.runId, seq: row.seq, type: row.type, hostId: row.hostId, stepId: row.stepId, data: JSON.parse(row.data) as Record<string, unknown>, at: row.createdAt.toISOString() };
}
