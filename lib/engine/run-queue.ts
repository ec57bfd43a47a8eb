// The interface both run queues implement (queue.ts: the SQLite leases; pg-queue.ts: pg-boss).
export interface RunQueue {
  readonly kind: "lease" | "pg-boss";
  readonly workerId: string;
  /** The runs this process is executing now. */
  readonly runs: string[];
  /** Hands a started (or retried) run to the workers. */
  enqueueRun(runId: string): Promise<void>;
  /** This process starts executing runs (the dashboard unless BOOTDECK_ENGINE=off, `bootdeck worker`). */
  startWorkerLoop(): Promise<void>;
  /** After a cancel was requested: deliveries still queued are taken back so that the run ends now. */
  cancel(runId: string): Promise<void>;
  /** Stops taking runs; with `handOver`, stops the runs in flight without ending them so another worker resumes them at once. */
  stop(options?: { handOver?: boolean; graceMs?: number }): Promise<void>;
  /** Waits for the runs this process is executing (CLI and tests). */
  drain(): Promise<void>;
  /** Started runs waiting for a worker to take them (the metrics' queue depth). */
  depth(): Promise<number>;
}
