import { startBackupScheduler } from "../../lib/engine/backup-schedule";
import { getRunQueue } from "../../lib/engine/queue";
import { startNotificationChecks } from "../../lib/engine/notification-checks";
import { startDeliveryWorker } from "../../lib/notify/queue";
import { shutdown } from "../../lib/shutdown";
import type { Command } from "./command";

export const worker: Command = {
  async run(argv) {
    if (argv.includes("--help")) {
      console.log("Usage: bootdeck worker\n\nRuns started runs and resumes runs whose worker stopped, against the same database as the dashboard.");
      return 0;
    }
    const w = getRunQueue();
    await w.startWorkerLoop();
    // Scheduled backups are started by every engine process (a guarded claim picks one).
    startBackupScheduler();
    // So are webhook deliveries (a guarded claim per delivery) and the certificate check.
    startDeliveryWorker();
    startNotificationChecks();
    console.log(`engine worker ${w.workerId} is running (${w.kind === "pg-boss" ? "PostgreSQL: runs are pg-boss jobs" : "SQLite: leases"}); Ctrl-C or SIGTERM stops it and hands its runs over (another worker resumes them at once)`);
    // The engine's timers do not hold the process open (they must not keep a dashboard from exiting),
    // so an idle worker would exit at once: this one waits for a signal, then hands its runs over.
    const idle = setInterval(() => undefined, 60_000);
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    clearInterval(idle);
    await shutdown();
    console.log(`engine worker ${w.workerId} stopped; its runs were handed over`);
    return 0;
  },
};
