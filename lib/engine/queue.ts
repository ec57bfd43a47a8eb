import "server-only";
// How runs reach the processes that execute them. Two implementations behind one interface:
// - SQLite: the engine's own leases (worker.ts, runs.ts, lease.ts). A started run is run by this
//   process's engine, or found within a second by a `bootdeck worker` sweeping for unheld, stale or
//   orphaned runs.
// - PostgreSQL: pg-boss (pg-queue.ts). A started run is a job; workers fetch jobs, a dead worker's job
//   goes back to the queue and another worker takes it, failures are retried with back-off, a cancel
//   takes queued deliveries back.
// Either way the writes of whoever executes a run are guarded by Run.workerId (lease.ts): a worker that
// no longer holds its run writes nothing.
import { databaseKind, getDb } from "../db/client";
import { getEnv } from "../env";
import type { RunnerOptions } from "./runner";
import { PgBossRunQueue } from "./pg-queue";
import type { RunQueue } from "./run-queue";
import { getEngineWorker, type EngineWorker } from "./worker";

export type { RunQueue } from "./run-queue";

/** The SQLite implementation: this process's lease worker. */
export class LeaseRunQueue implements RunQueue {
  readonly kind = "lease";
  constructor(private readonly worker: EngineWorker = getEngineWorker()) {}

  get workerId(): string {
    return this.worker.workerId;
  }
  get runs(): string[] {
    return this.worker.runs;
  }
  async enqueueRun(runId: string): Promise<void> {
    // With BOOTDECK_ENGINE=off the run stays unheld and a `bootdeck worker` takes it on its next sweep.
    if (getEnv().BOOTDECK_ENGINE !== "off") this.worker.schedule(runId);
  }
  async startWorkerLoop(): Promise<void> {
    this.worker.start();
  }
  async cancel(): Promise<void> {
    // The holder reads cancelRequested every second; an unheld run is ended by the next worker that takes it.
  }
  stop(options?: { handOver?: boolean; graceMs?: number }): Promise<void> {
    return this.worker.stop(options);
  }
  drain(): Promise<void> {
    return this.worker.drain();
  }
  async depth(): Promise<number> {
    return getDb().run.count({ where: { status: "running", workerId: null } });
  }
}

const holder = globalThis as unknown as { bootdeckRunQueue?: RunQueue };

/** This process's run queue, chosen by the database. */
export function getRunQueue(): RunQueue {
  if (holder.bootdeckRunQueue) return holder.bootdeckRunQueue;
  if (databaseKind() === "postgres") {
    holder.bootdeckRunQueue = new PgBossRunQueue({ url: getEnv().databaseUrl });
  } else holder.bootdeckRunQueue = new LeaseRunQueue();
  return holder.bootdeckRunQueue;
}

/** Tests: a queue of their own (with a fake executor), or none to go back to the default. */
export function setRunQueue(queue: RunQueue | undefined): void {
  holder.bootdeckRunQueue = queue;
}

export type QueueRunnerOptions = Pick<RunnerOptions, "executor" | "api" | "heartbeatMs">;
