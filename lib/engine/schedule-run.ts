import "server-only";
import { getRunQueue } from "./queue";

/** Hands a started (or retried) run to the workers: this process's engine, or the queue. */
export async function scheduleRun(runId: string): Promise<void> {
  try {
    await getRunQueue().enqueueRun(runId);
  } catch (err) {
    // The run is started in the database: a worker finds it anyway (SQLite's sweep, the queue's reconcile).
    console.error(`[bootdeck engine] could not queue run ${runId}; a worker will find it:`, err);
  }
}
