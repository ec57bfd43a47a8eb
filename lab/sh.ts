// Running host-side commands for the lab (root namespace). Argument arrays only; no shell strings.
import { spawn, spawnSync } from "node:child_process";

export class LabCommandError extends Error {}

/** Runs a command and returns its stdout; throws with stderr on a non-zero exit. */
export function run(cmd: string, args: readonly string[], opts: { input?: string; allowFail?: boolean } = {}): string {
  const r = spawnSync(cmd, args, { input: opts.input, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new LabCommandError(`${cmd}: ${r.error.message}`);
  if (r.status !== 0 && !opts.allowFail) {
    throw new LabCommandError(`${cmd} ${args.join(" ")} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim()}`);
  }
  return r.stdout;
}

export function tryRun(cmd: string, args: readonly string[]): boolean {
  const r = spawnSync(cmd, args, { stdio: "ignore" });
  return r.status === 0;
}

/** Runs a long command streaming its output lines to `onLine` (for the base image build). */
export function runStreaming(cmd: string, args: readonly string[], onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let tail: string[] = [];
    const feed = (buf: Buffer) => {
      for (const line of buf.toString("utf8").split("\n")) {
        if (!line.trim()) continue;
        tail = [...tail.slice(-20), line];
        onLine(line);
      }
    };
    child.stdout.on("data", feed);
    child.stderr.on("data", feed);
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new LabCommandError(`${cmd} failed (exit ${code}):\n${tail.join("\n")}`)),
    );
  });
}

export function which(cmd: string): boolean {
  return tryRun("sh", ["-c", 'command -v "$1" >/dev/null', "which", cmd]);
}
