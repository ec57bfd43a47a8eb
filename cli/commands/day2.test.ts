// bootdeck nodes and bootdeck upgrade: usage, and refusals that say why before anything is planned.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const bin = path.resolve(__dirname, "../../bin/bootdeck");
const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-day2-cli-"));
const env = { ...process.env, BOOTDECK_DATA_DIR: dir, DATABASE_URL: `file:${dir}/bootdeck.db`, BOOTDECK_MASTER_KEY: randomBytes(32).toString("base64"), BOOTDECK_ADMIN_PASSWORD: "day2-cli-test-password" };
const bootdeck = (...args: string[]) =>
  run(bin, args, { env }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

beforeAll(async () => {
  await run(bin, ["setup"], { env });
});

describe("bootdeck nodes and upgrade", { timeout: 120_000 }, () => {
  it("print their usage when asked, and exit 2 without what they need", async () => {
    expect((await bootdeck("nodes", "--help")).stdout).toMatch(/bootdeck nodes remove CLUSTER HOST\.\.\. \[--no-reset\]/);
    expect((await bootdeck("nodes", "add")).code).toBe(2);
    expect((await bootdeck("upgrade", "lab-dev")).code).toBe(2);
  });

  it("refuse an unknown cluster, a bad batch size and an unknown run, saying why", async () => {
    const unknown = await bootdeck("nodes", "add", "nowhere", "worker-9", "--yes");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no cluster named nowhere/);
    const batch = await bootdeck("upgrade", "nowhere", "--version", "v1.37.2", "--workers", "200%", "--yes");
    expect(batch.code).toBe(2);
    expect(batch.stderr).toMatch(/batches\.workers: must be a count such as 2 or a percentage such as 10%/);
    const pause = await bootdeck("upgrade", "pause", "run_AAAAAAAAAAAAAAAA");
    expect(pause.code).toBe(1);
    expect(pause.stderr).toMatch(/Run was not found/);
  });
});
