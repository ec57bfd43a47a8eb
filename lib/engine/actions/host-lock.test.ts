// The host-side run lock is a real lock: of many runs that try to take a free host at the same moment,
// exactly one gets it (the check and the write happen under flock), the others are refused naming it,
// and only the holder's release frees it. Runs the real scripts under /bin/sh against a temporary
// directory standing in for /var/lib/bootdeck.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { HOST_LOCK_FILE, LOCKED_EXIT, REMOVE_SCRIPT, UNLOCK_SCRIPT } from "./host-scripts";

const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lockFile = path.join(dir, "run.lock");
// A busy host, at its worst: reading the lock stalls (a `cat` that waits for a "go" file) until every
// run has started, so all of them are between reading the holder and writing it at once, unless
// something keeps them from being there together.
const bin = path.join(dir, "bin");
const go = path.join(dir, "go");
mkdirSync(bin);
writeFileSync(path.join(bin, "cat"), `#!/bin/sh\nwhile [ ! -e ${go} ]; do sleep 0.02; done\nexec /bin/cat "$@"\n`);
chmodSync(path.join(bin, "cat"), 0o755);
const here = (script: string) => script.replaceAll(HOST_LOCK_FILE, lockFile).replaceAll("/var/lib/bootdeck", dir);

function sh(script: string, args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn("/bin/sh", ["-c", here(script), "bootdeck", ...args], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    let stderr = "";
    p.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    p.on("close", (code) => resolve({ code: code ?? -1, stderr }));
  });
}

describe("the host lock", () => {
  it("lets exactly one of 20 runs that start at once take a free host", async () => {
    const runs = Array.from({ length: 20 }, (_, i) => `run_${String(i).padStart(16, "0")}`);
    const pending = runs.map((r) => sh(REMOVE_SCRIPT, [r]));
    await new Promise((r) => setTimeout(r, 1_500));
    writeFileSync(go, "");
    const results = await Promise.all(pending);
    const winners = runs.filter((_, i) => results[i]!.code === 0);
    expect(winners).toHaveLength(1);
    expect(readFileSync(lockFile, "utf8").trim()).toBe(winners[0]);
    for (const [i, r] of results.entries()) if (runs[i] !== winners[0]) expect(r).toMatchObject({ code: LOCKED_EXIT, stderr: expect.stringContaining(`bootdeck-locked-by ${winners[0]}`) });
    // The holder goes on taking it for its later scripts.
    expect((await sh(REMOVE_SCRIPT, [winners[0]!])).code).toBe(0);
  });

  it("is released only by its holder, and the file stays (every locker flocks the same inode)", async () => {
    const holder = readFileSync(lockFile, "utf8").trim();
    expect((await sh(UNLOCK_SCRIPT, ["run_someoneelse00000"])).code).toBe(0);
    expect(readFileSync(lockFile, "utf8").trim()).toBe(holder);
    expect((await sh(UNLOCK_SCRIPT, [holder])).code).toBe(0);
    expect(existsSync(lockFile)).toBe(true);
    expect(readFileSync(lockFile, "utf8")).toBe("");
    expect((await sh(REMOVE_SCRIPT, ["run_next000000000000"])).code).toBe(0);
    expect(readFileSync(lockFile, "utf8").trim()).toBe("run_next000000000000");
  });
});
