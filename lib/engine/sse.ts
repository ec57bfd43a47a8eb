import "server-only";
// Server-Sent Events for one run: replay from Last-Event-ID, then follow. New events are read from
// the database (so a worker in another process is heard too), woken early by this process's bus and,
// on PostgreSQL, by NOTIFY from whichever process committed them (events.ts);
// comments keep idle connections open. A run that failed, stopped for a decision or was cancelled is
// not over for its viewers: a retry or accepted warnings start it again in place, so the stream keeps
// following it. It ends after a success, when the run is deleted, when the session no longer allows
// reading, or when the signal ends it (the viewer left, or the server is shutting down: the browser
// reconnects to the next process with Last-Event-ID and loses nothing).
import { SESSION_RECHECK_BATCH_MS, SESSION_RECHECK_IDLE_MS, type SessionRecheck } from "../auth/session-recheck";
import { databaseKind, getDb } from "../db/client";
import { notFound } from "../http/errors";
import { viewerOpened } from "./viewers";
import { listenForRunEvents, listRunEvents, onRunChange, type StoredRunEvent } from "./events";

// SQLite: a primary-key read of Run.lastSeq every 100 ms finds events appended by another process (a
// separate engine worker) quickly; the events themselves are read only when there are new ones.
// PostgreSQL: NOTIFY wakes the stream; the read every 5 s only covers a LISTEN session being reopened.
const POLL_MS = 100;
const POSTGRES_POLL_MS = 5_000;
const KEEPALIVE_MS = 15_000;

/** `session` is asked again before each batch and while idle: the stream ends once it no longer allows reading. */
export async function runEventStream({ runId, afterSeq, signal, session }: { runId: string; afterSeq: number; signal: AbortSignal; session: SessionRecheck }): Promise<ReadableStream<Uint8Array>> {
  if (!(await getDb().run.findUnique({ where: { id: runId }, select: { id: true } }))) throw notFound("Run");
  const encoder = new TextEncoder();
  let last = afterSeq;
  let wake: (() => void) | undefined;
  const pollMs = databaseKind() === "postgres" ? POSTGRES_POLL_MS : POLL_MS;
  await listenForRunEvents();
  // A wake that comes while the stream is reading is kept, so the next wait does not sleep through it.
  let woken = false;
  const unsubscribe = onRunChange(runId, () => {
    woken = true;
    wake?.();
  });
  // One listener for the stream's life (not one per poll, which would pile up).
  signal.addEventListener("abort", () => wake?.(), { once: true });
  const format = (e: StoredRunEvent) => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

  let viewerClosed: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      viewerClosed = viewerOpened("run");
      let lastWrite = Date.now();
      let allowed = true;
      try {
        controller.enqueue(encoder.encode("retry: 2000\n\n"));
        while (!signal.aborted && allowed) {
          const events = await listRunEvents({ runId, afterSeq: last, limit: 500 });
          if (events.length > 0 && !(await session.ok(SESSION_RECHECK_BATCH_MS))) break;
          for (const e of events) {
            controller.enqueue(encoder.encode(format(e)));
            last = e.seq;
            lastWrite = Date.now();
          }
          if (events.some((e) => e.type === "run.finished" && e.data.status === "succeeded")) break;
          if (events.length === 500) continue;
          if (Date.now() - lastWrite >= KEEPALIVE_MS) {
            controller.enqueue(encoder.encode(": keep-alive\n\n"));
            lastWrite = Date.now();
          }
          for (;;) {
            await new Promise<void>((resolve) => {
              if (woken) return resolve();
              const t = setTimeout(resolve, pollMs);
              wake = () => {
                clearTimeout(t);
                resolve();
              };
            });
            woken = false;
            if (signal.aborted || Date.now() - lastWrite >= KEEPALIVE_MS) break;
            if (!(await session.ok(SESSION_RECHECK_IDLE_MS))) {
              allowed = false;
              break;
            }
            const run = await getDb().run.findUnique({ where: { id: runId }, select: { lastSeq: true, status: true } });
            if (!run) return; // deleted with its cluster: nothing more will come
            if (run.lastSeq > last) break;
            // Opened after the end of a successful run: everything is sent and nothing follows a success.
            // (The status is stored just before run.finished is logged: wait for that event.)
            if (run.status === "succeeded" && (await getDb().runEvent.findUnique({ where: { runId_seq: { runId, seq: last } }, select: { type: true } }))?.type === "run.finished") return;
          }
        }
      } catch {
        // The client went away mid-write; nothing to do.
      } finally {
        unsubscribe();
        viewerClosed?.();
        try {
          controller.close();
        } catch {
          /* already closed */
        }
      }
    },
    cancel() {
      unsubscribe();
      viewerClosed?.();
    },
  });
}
