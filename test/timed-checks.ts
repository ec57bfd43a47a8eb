// Two checks of the bootstrap suite are judged in seconds on a loaded machine: the API address's
// failover and the API's gaps while certificates rotate. The test command (scripts/test.sh) runs lab
// suites side by side with it, so the suite and the command hand the machine over through two files:
// before those checks the suite waits until the suites beside it say they are done, and once the checks
// are over it says so, which lets the next suites beside it start. Without the variables (the suite run
// by itself) nothing waits.
import { existsSync, writeFileSync } from "node:fs";

/** Waits until the file the suites beside this one create when done exists; returns how long it waited (ms). */
export async function untilAloneOnTheMachine(maxMs = 20 * 60_000): Promise<number> {
  const file = process.env.BOOTDECK_TEST_SIDE_DONE;
  const started = Date.now();
  if (!file) return 0;
  while (!existsSync(file)) {
    if (Date.now() - started > maxMs) throw new Error(`the suites beside this one did not finish within ${maxMs / 60_000} min (no ${file}): checks judged in seconds would share the machine with them`);
    await new Promise((r) => setTimeout(r, 2_000));
  }
  return Date.now() - started;
}

/** Says the checks judged in seconds are over: the suites waiting beside this one may start. Safe to call twice. */
export function timedChecksOver(): void {
  const file = process.env.BOOTDECK_TEST_TIMED_DONE;
  if (file) writeFileSync(file, `${new Date().toISOString()}\n`);
}
