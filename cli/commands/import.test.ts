import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { stringify } from "yaml";
import { exampleDefinition } from "../../lib/cluster/example";

const run = promisify(execFile);
const bin = path.resolve(__dirname, "../../bin/bootdeck");
const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-import-"));
const env = { ...process.env, BOOTDECK_DATA_DIR: dir, DATABASE_URL: `file:${dir}/bootdeck.db`, BOOTDECK_MASTER_KEY: randomBytes(32).toString("base64"), BOOTDECK_ADMIN_PASSWORD: "import-test-password" };
const bootdeck = (...args: string[]) => run(bin, args, { env }).catch((e: { code: number; stdout: string; stderr: string }) => e);

beforeAll(async () => {
  await run(bin, ["setup"], { env });
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path.join(dir, "id")]);
});

// Each case starts the CLI (the compiled bundle, bin/bootdeck) a few times, and the first start after a
// source edit builds the bundle: generous deadlines for a busy machine.
describe("bootdeck import, export, cluster delete and cluster report", { timeout: 120_000 }, () => {
  it("imports a cluster.yaml whose credential names a key file, and exports it without the key", async () => {
    const def = exampleDefinition({ name: "from-cli" });
    def.spec.credentials = [{ name: "admin-key", type: "privateKey", privateKeyFile: "id" }];
    writeFileSync(path.join(dir, "cluster.yaml"), stringify(def));
    const imported = (await bootdeck("import", path.join(dir, "cluster.yaml"))) as { stdout: string };
    expect(imported.stdout).toMatch(/created cluster from-cli \(cl_/);
    const exported = (await bootdeck("export", "from-cli")) as { stdout: string };
    expect(exported.stdout).toMatch(/fingerprint: SHA256:/);
    expect(exported.stdout).not.toContain("PRIVATE KEY");
    const again = (await bootdeck("import", path.join(dir, "cluster.yaml"))) as { code: number; stderr: string };
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
  });

  it("reports a key file it cannot read at the credential's path", async () => {
    const def = exampleDefinition({ name: "no-key" });
    def.spec.credentials = [{ name: "admin-key", type: "privateKey", privateKeyFile: "missing-key" }];
    writeFileSync(path.join(dir, "bad.yaml"), stringify(def));
    const r = (await bootdeck("import", path.join(dir, "bad.yaml"))) as { code: number; stdout: string };
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/error: spec.credentials\[0\].privateKeyFile: cannot read .*missing-key: ENOENT/);
  });

  it("import --replace says which pinned host keys it kept and which it cleared", async () => {
    const def = exampleDefinition({ name: "pinned" });
    def.spec.credentials = [{ name: "admin-key", type: "privateKey", privateKeyFile: "id" }];
    writeFileSync(path.join(dir, "pinned.yaml"), stringify(def));
    await bootdeck("import", path.join(dir, "pinned.yaml"));
    const sqlite = new Database(path.join(dir, "bootdeck.db"));
    sqlite.prepare(`UPDATE "Host" SET "hostKeyFingerprint" = 'SHA256:' || substr(replace(hex(randomblob(32)), '0', 'a'), 1, 43)`).run();
    const pins = new Map((sqlite.prepare(`SELECT name, hostKeyFingerprint FROM "Host"`).all() as { name: string; hostKeyFingerprint: string }[]).map((r) => [r.name, r.hostKeyFingerprint]));
    sqlite.close();
    def.spec.hosts = def.spec.hosts.map((h) => (h.name === "worker-2" ? { ...h, address: "192.0.2.77" } : h));
    writeFileSync(path.join(dir, "pinned.yaml"), stringify(def));
    const r = (await bootdeck("import", path.join(dir, "pinned.yaml"), "--replace")) as { stdout: string };
    expect(r.stdout).toContain(`host key of worker-2 cleared: it moved from 192.0.2.15:22 to 192.0.2.77:22 (was ${pins.get("worker-2")})`);
    expect(r.stdout).toContain("bootdeck host repin pinned worker-2");
    expect(r.stdout).toContain(`host keys kept (address and port unchanged): master-1 ${pins.get("master-1")}`);
  });

  it("cluster delete removes a saved cluster and its pinned keys once its name is given, so the next import starts fresh", async () => {
    const def = exampleDefinition({ name: "short-lived" });
    def.spec.credentials = [{ name: "admin-key", type: "privateKey", privateKeyFile: "id" }];
    writeFileSync(path.join(dir, "short-lived.yaml"), stringify(def));
    await bootdeck("import", path.join(dir, "short-lived.yaml"));
    const pinned = `SHA256:${"b".repeat(43)}`;
    const sqlite = new Database(path.join(dir, "bootdeck.db"));
    sqlite.prepare(`UPDATE "Host" SET "hostKeyFingerprint" = ? WHERE "clusterId" = (SELECT id FROM "Cluster" WHERE name = 'short-lived')`).run(pinned);

    const unconfirmed = (await bootdeck("cluster", "delete", "short-lived")) as { code: number; stderr: string };
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain("not confirmed; pass --yes");

    const deleted = (await bootdeck("cluster", "delete", "short-lived", "--yes")) as { stdout: string };
    expect(deleted.stdout).toMatch(/deleted cluster short-lived \(cl_[\w-]+\) from the database; its hosts were not touched/);
    expect(sqlite.prepare(`SELECT count(*) AS n FROM "Cluster" WHERE name = 'short-lived'`).get()).toEqual({ n: 0 });
    expect(sqlite.prepare(`SELECT details FROM "AuditEvent" WHERE action = 'cluster.delete' ORDER BY id DESC LIMIT 1`).get()).toEqual({ details: expect.stringContaining('"via":"cli"') });

    const missing = (await bootdeck("cluster", "delete", "short-lived", "--yes")) as { code: number; stderr: string };
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no cluster named "short-lived"');
    expect(await bootdeck("cluster", "delete", "short-lived", "--yes", "--if-exists")).toMatchObject({ stdout: "" });

    const again = (await bootdeck("import", path.join(dir, "short-lived.yaml"), "--replace")) as { stdout: string };
    expect(again.stdout).toMatch(/created cluster short-lived/);
    const pins = sqlite.prepare(`SELECT "hostKeyFingerprint" AS fp FROM "Host" WHERE "clusterId" = (SELECT id FROM "Cluster" WHERE name = 'short-lived')`).all();
    expect(pins.length).toBeGreaterThan(0);
    expect(pins).toEqual(pins.map(() => ({ fp: null })));
    sqlite.close();
  });

  it("cluster report records a conformance report's summary, prints what failed, and refuses a file it cannot read as a report", async () => {
    const report = path.resolve(__dirname, "../../lib/hardening/__fixtures__/ginkgo-junit.xml");
    const r = (await bootdeck("cluster", "report", "from-cli", report)) as { stdout: string };
    expect(r.stdout).toContain("recorded for from-cli: Kubernetes e2e suite: 46 passed, 1 failed, 3 not run");
    expect(r.stdout).toContain("  failed: [sig-network] Proxy version v1 should proxy through a service and a pod");
    writeFileSync(path.join(dir, "notes.txt"), "all green\n");
    const bad = (await bootdeck("cluster", "report", "from-cli", path.join(dir, "notes.txt"))) as { code: number; stderr: string };
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("bootdeck cluster: Not a report Bootdeck reads: give ginkgo's or sonobuoy's JUnit XML");
    const missing = (await bootdeck("cluster", "report", "from-cli", path.join(dir, "nowhere.xml"))) as { code: number; stderr: string };
    expect(missing.stderr).toMatch(/cannot read .*nowhere\.xml: ENOENT/);
    const sqlite = new Database(path.join(dir, "bootdeck.db"));
    expect(sqlite.prepare(`SELECT kind, passed, failed, "uploadedBy" FROM "ClusterReport"`).all()).toEqual([{ kind: "conformance", passed: 46, failed: 1, uploadedBy: expect.any(String) }]);
    sqlite.close();
  });
});
