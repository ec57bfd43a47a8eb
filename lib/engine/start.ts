import "server-only";
// Where runs execute. On SQLite the dashboard process runs the engine unless BOOTDECK_ENGINE=off, in
// which case only separate `bootdeck worker` processes do: a run started or retried through the
// dashboard is then left (unheld) for them, and they pick it up on their next look (within a second).
// On PostgreSQL a started run is a job in the queue (queue.ts), taken by whichever worker fetches it:
// the dashboard's own engine unless BOOTDECK_ENGINE=off, or any `bootdeck worker`.
import { getEnv } from "../env";
import { startBackupScheduler } from "./backup-schedule";
import { startNotificationChecks } from "./notification-checks";
import { startDeliveryWorker } from "../notify/queue";
import { getRunQueue } from "./queue";
import { requestCancel } from "./runs";

export function engineEnabled(): boolean {
  return getEnv().BOOTDECK_ENGINE !== "off";
}

export function startEngineFromEnv(): void {
  if (!engineEnabled()) return;
  getRunQueue()
    .startWorkerLoop()
    .catch((err: unknown) => console.error("[bootdeck engine] could not start:", err));
  startBackupScheduler();
  // Webhook deliveries and the certificate check run in every engine process, like the schedule.
  startDeliveryWorker();
  startNotificationChecks();
}

export { scheduleRun } from "./schedule-run";

/** Cancels a run: a planned one ends at once, a running one is asked to stop (and queued deliveries are taken back). */
export async function cancelRun({ runId, by }: { runId: string; by?: string }): Promise<"cancelled" | "requested"> {
  const outcome = await requestCancel({ runId, by });
  if (outcome === "requested") await getRunQueue().cancel(runId).catch((err: unknown) => console.error(`[bootdeck engine] could not take back run ${runId}'s queued jobs:`, err));
  return outcome;
}
