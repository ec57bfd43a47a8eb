import "server-only";
// Where runs execute. The dashboard process runs the engine unless BOOTDECK_ENGINE=off, in which case
// only separate `bootdeck worker` processes do: a run started or retried through the dashboard is then
// left (unheld) for them, and they pick it up on their next look (within a second).
import { getEnv } from "../env";
import { getEngineWorker } from "./worker";
import { startBackupScheduler } from "../backups/schedule";

export function engineEnabled(): boolean {
  return getEnv().BOOTDECK_ENGINE !== "off";
}

export function startEngineFromEnv(): void {
  if (!engineEnabled()) return;
  getEngineWorker().start();
  startBackupScheduler();
}

/** Hands a started (or retried) run to this process's engine, if it runs one; says whether it did. */
export function scheduleRun(runId: string): boolean {
  if (!engineEnabled()) return false;
  getEngineWorker().schedule(runId);
  return true;
}
