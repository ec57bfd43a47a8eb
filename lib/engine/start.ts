import "server-only";
import { getEnv } from "../env";
import { getEngineWorker } from "./worker";
import { startBackupScheduler } from "../backups/schedule";

export function startEngineFromEnv(): void {
  if (getEnv().BOOTDECK_ENGINE === "off") return;
  getEngineWorker().start();
  startBackupScheduler();
}
