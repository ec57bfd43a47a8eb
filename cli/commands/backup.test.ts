// bootdeck backup target / test-target / export-key through the compiled command line: the secret key
// is read from a file and never printed, a target nothing answers at is reported as unreachable, and
// the backup key comes out once in the form a new dashboard takes, audited.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { exampleDefinition } from "../../lib/cluster/example";

const run = promisify(execFile);
const bin = path.resolve(__dirname, "../../bin/bootdeck");
const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-backup-cli-"));
const env = { ...process.env, BOOTDECK_DATA_DIR: dir, DATABASE_URL: `file:${dir}/bootdeck.db`, BOOTDECK_MASTER_KEY: randomBytes(32).toString("base64"), BOOTDECK_ADMIN_PASSWORD: "backup-cli-test-password" };
type Result = { code?: number; stdout: string; stderr: string };
const bootdeck = (...args: string[]) => run(bin, args, { env }).then((r) => ({ ...r, code: 0 }) as Result, (e: Result) => e);

beforeAll(async () => {
  await run(bin, ["setup"], { env });
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path.join(dir, "id")]);
  const def = exampleDefinition({ name: "far" });
  def.spec.credentials = [{ name: "admin-key", type: "privateKey", privateKeyFile: "id" }];
  writeFileSync(path.join(dir, "cluster.yaml"), stringify(def));
  await run(bin, ["import", path.join(dir, "cluster.yaml")], { env });
  writeFileSync(path.join(dir, "s3-secret"), "cli-secret-never-printed\n", { mode: 0o600 });
}, 180_000);

describe("bootdeck backup and the cluster's bucket", { timeout: 120_000 }, () => {
  it("sets the target from flags and a secret-key file, shows it without the secret, and tests it", async () => {
    const set = await bootdeck("backup", "target", "far", "--endpoint", "http://127.0.0.1:9", "--bucket", "far-backups", "--prefix", "site-a", "--access-key-id", "AKIDCLI", "--secret-key-file", path.join(dir, "s3-secret"));
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/far: every backup is copied to bucket far-backups at http:\/\/127\.0\.0\.1:9 under "site-a\/cl_[A-Za-z0-9_-]{16}\/" \(path-style, access key AKIDCLI\)/);
    const shown = await bootdeck("backup", "target", "far");
    expect(`${shown.stdout}${shown.stderr}`).not.toContain("cli-secret-never-printed");
    const tested = await bootdeck("backup", "test-target", "far");
    expect(tested.code).toBe(1);
    expect(tested.stdout).toMatch(/^unreachable: listing the bucket: the endpoint http:\/\/127\.0\.0\.1:9 cannot be reached/);
  });

  it("refuses a first target without its secret key", async () => {
    const db = new Database(path.join(dir, "bootdeck.db"));
    db.prepare('DELETE FROM "BackupTarget"').run();
    db.close();
    const r = await bootdeck("backup", "target", "far", "--bucket", "far-backups", "--access-key-id", "AKIDCLI");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the secret key is required the first time a target is set/);
  });

  it("prints the backup key once asked, the same each time, and audits it", async () => {
    const a = await bootdeck("backup", "export-key", "far");
    expect(a.code).toBe(0);
    expect(a.stdout.trim()).toMatch(/^bdk1:[A-Za-z0-9+/]{43}=$/);
    expect(a.stderr).toMatch(/Store it away from this machine/);
    expect((await bootdeck("backup", "export-key", "far")).stdout).toBe(a.stdout);
    const db = new Database(path.join(dir, "bootdeck.db"), { readonly: true });
    const n = db.prepare(`SELECT count(*) AS n FROM "AuditEvent" WHERE action = 'backup.export-key'`).get() as { n: number };
    db.close();
    expect(n.n).toBe(2);
  });
});
