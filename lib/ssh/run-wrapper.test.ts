// The run wrapper on this machine's own sh: a stop at any moment leaves none of the command's processes.
import { spawn, spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { RUN_WRAPPER } from "./scripts";

/** Pids of processes whose command line holds the marker (the [x] keeps pgrep from matching itself). */
function survivors(marker: string): string {
  const r = spawnSync("pgrep", ["-f", `${marker.slice(0, -1)}[${marker.slice(-1)}]`], { encoding: "utf8" });
  return r.stdout.trim();
}

/** Starts the wrapper around a command that forks, stops it `delayMs` after its pid line (-1: at once), and returns how it ended. */
function stopAfterPidLine(marker: string, delayMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", RUN_WRAPPER, "bootdeck-run", "sh", "-c", `sleep 300 & sleep 301; : ${marker}`], { stdio: ["ignore", "ignore", "pipe"] });
    child.on("error", reject);
    let told = false;
    child.stderr.on("data", (d: Buffer) => {
      if (told || !d.toString().includes("bootdeck-pid")) return;
      told = true;
      // What the executor does on a cancel: TERM to the wrapper's pid, as soon as it is known.
      if (delayMs < 0) child.kill("SIGTERM");
      else setTimeout(() => child.kill("SIGTERM"), delayMs);
    });
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
}

async function gone(marker: string, ms: number): Promise<string> {
  const end = Date.now() + ms;
  let left = survivors(marker);
  while (left && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    left = survivors(marker);
  }
  return left;
}

describe("the run wrapper", () => {
  it("stops the whole process tree whenever the stop arrives, even before the command has its own session", async () => {
    const leftBehind: string[] = [];
    // -1: in the same tick as the pid line (the command is then being forked or exec'ed).
    const delays = [...Array<number>(16).fill(-1), ...Array<number>(8).fill(0), 1, 1, 2, 3, 5, 8, 13, 21, 50];
    for (const delayMs of delays) {
      const marker = `bootdeck-wrapper-${process.pid}-${delayMs}-${Date.now()}`;
      const end = await stopAfterPidLine(marker, delayMs);
      expect(end.code ?? end.signal).not.toBe(0);
      const left = await gone(marker, 3_000);
      if (left) {
        leftBehind.push(`${delayMs} ms: ${left}`);
        spawnSync("pkill", ["-KILL", "-f", marker]);
      }
    }
    expect(leftBehind).toEqual([]);
  }, 60_000);
});
