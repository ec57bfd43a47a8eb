import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const bin = path.resolve(__dirname, "../../bin/bootdeck");
const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-user-"));
const env = { ...process.env, BOOTDECK_DATA_DIR: dir, DATABASE_URL: `file:${dir}/bootdeck.db`, BOOTDECK_MASTER_KEY: randomBytes(32).toString("base64"), BOOTDECK_ADMIN_PASSWORD: "user-test-admin-password" };
type Result = { code: number; stdout: string; stderr: string };
const bootdeck = (args: string[], extra: Record<string, string> = {}): Promise<Result> =>
  run(bin, args, { env: { ...env, ...extra } }).then(
    (r) => ({ code: 0, ...r }),
    (e: Result) => e,
  );

beforeAll(async () => {
  await run(bin, ["setup"], { env });
});

// Each case starts the CLI (the compiled bundle, bin/bootdeck) a few times, and the first start after a
// source edit builds the bundle: generous deadlines for a busy machine.
describe("bootdeck user", { timeout: 120_000 }, () => {
  it("refuses a common or trivial password from BOOTDECK_USER_PASSWORD", async () => {
    const r = await bootdeck(["user", "add", "weak", "--role", "lead"], { BOOTDECK_USER_PASSWORD: "aaaaaaaaaa" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/user add: password is too easy to guess/);
    expect((await bootdeck(["user", "list"])).stdout).not.toMatch(/^weak /m);
  });

  it("deletes an account, but never the last enabled admin", async () => {
    expect((await bootdeck(["user", "add", "gone", "--role", "support"])).code).toBe(0);
    const del = await bootdeck(["user", "delete", "gone"]);
    expect(del.stdout).toContain('user delete: "gone" is deleted');
    expect((await bootdeck(["user", "list"])).stdout).not.toMatch(/^gone /m);
    const last = await bootdeck(["user", "delete", "admin"]);
    expect(last.code).toBe(1);
    expect(last.stderr).toMatch(/last enabled admin/);
  });

  it("setup refuses a weak BOOTDECK_ADMIN_PASSWORD with the reason", async () => {
    const fresh = mkdtempSync(path.join(tmpdir(), "bootdeck-user-setup-"));
    const r = await bootdeck(["setup"], { BOOTDECK_DATA_DIR: fresh, DATABASE_URL: `file:${fresh}/bootdeck.db`, BOOTDECK_ADMIN_PASSWORD: "password123" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^setup: BOOTDECK_ADMIN_PASSWORD is too easy to guess/m);
    expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/);
  });
});
