import "server-only";
// Shutting a process down cleanly. On SIGTERM (or SIGINT) the dashboard and `bootdeck worker`:
// 1. end every open event stream (the runs' and the clusters' pods and nodes), so the HTTP server's
//    close does not wait for viewers (browsers reconnect to the next process and resume from
//    Last-Event-ID);
// 2. stop the engine's runs without ending them and give their leases up, so another worker (or the
//    restarted process) takes them over at once; the backup schedule and the certificate check stop
//    ticking here, and webhook deliveries in flight are given back.
// Next.js exits by itself once its server has closed; a lease it had no time to give up is taken over
// at once anyway by a process of this machine that sees the holder's pid gone.
import { stopBackupScheduler } from "./engine/backup-schedule";
import { getRunQueue } from "./engine/queue";
import { stopNotificationChecks } from "./engine/notification-checks";
import { stopDeliveryWorker } from "./notify/queue";

const holder = globalThis as unknown as { bootdeckShutdown?: { controller: AbortController; installed: boolean; done?: Promise<void> } };
const state = (holder.bootdeckShutdown ??= { controller: new AbortController(), installed: false });

/** Aborted when this process starts shutting down. */
export function shutdownSignal(): AbortSignal {
  return state.controller.signal;
}

/** A stream's signal: the request's, ended early by a shutdown. */
export function streamSignal(req: Request): AbortSignal {
  return AbortSignal.any([req.signal, shutdownSignal()]);
}

/** Ends the streams and hands the engine's runs over; resolves when the runs have let go (or after `graceMs`). */
export function shutdown({ graceMs = 5_000 }: { graceMs?: number } = {}): Promise<void> {
  state.done ??= (async () => {
    state.controller.abort(new Error("the server is shutting down"));
    // No scheduled backup starts here any more (the next process's scheduler takes the schedule over).
    stopBackupScheduler();
    stopNotificationChecks();
    // Deliveries in flight are given back (not counted as attempts) for the next process to send.
    await Promise.all([getRunQueue().stop({ handOver: true, graceMs }), stopDeliveryWorker()]);
  })();
  return state.done;
}

/** Installs the signal handlers once per process. `exit` ends the process after the shutdown (the CLI's worker; Next.js exits by itself). */
export function handleShutdownSignals({ exit }: { exit: boolean }): void {
  if (state.installed) return;
  state.installed = true;
  for (const sig of ["SIGTERM", "SIGINT"] as const)
    process.once(sig, () => {
      void shutdown().finally(() => {
        if (exit) process.exit(sig === "SIGTERM" ? 143 : 130);
      });
    });
}
