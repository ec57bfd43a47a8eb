import { getEngineWorker } from "../../lib/engine/worker";
import type { Command } from "./command";

export const worker: Command = {
  async run(argv) {
    if (argv.includes("--help")) {
      console.log("Usage: bootdeck worker\n\nRuns started runs and resumes runs whose worker stopped, against the same database as the dashboard.");
      return 0;
    }
    const w = getEngineWorker();
    w.start();
    console.log(`engine worker ${w.workerId} is running; Ctrl-C stops it (its runs resume on the next worker)`);
    // The engine's timers do not hold the process open (they must not keep a dashboard from exiting),
    // so an idle worker would exit at once: this one waits for a signal.
    const idle = setInterval(() => undefined, 60_000);
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    clearInterval(idle);
    w.stop();
    return 0;
  },
};
