// Upstream's own checker on what /metrics serves: `promtool check metrics` (Prometheus v0.316.0, built
// from the Go module proxy into the lab's component cache on first use, like the lab's other
// upstream programs) finds no error and no lint problem in an exposition with every metric present,
// and `promtool check rules` accepts the example alert rules of docs/metrics.md.
// Needs Go (docs/lab-cluster.md); runs with the integration tests, without a lab:
// BOOTDECK_TEST_LAB=none npx vitest run --project integration lib/metrics/promtool.integration.test.ts
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ensureComponent } from "../../lab/upstream/build";
import { promtoolComponent } from "../../lab/upstream/components";
import { call } from "../../test/http-helpers";
import { seedMetrics } from "../../test/metrics-fixture";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { GET } from "../../app/metrics/route";
import { resetEnvCache } from "../env";
import { viewerOpened } from "../engine/viewers";

const TOKEN = "promtool-token-0123456789abcdef0123456789";
let db: TempDb;
let promtool: string;

beforeAll(async () => {
  // Built when missing (several minutes once); a missing Go fails here with what to install.
  const built = await ensureComponent(promtoolComponent(), (l) => console.log(`[promtool] ${l}`));
  promtool = built.binaries.promtool!.path;
  db = await createTempDb();
  process.env.BOOTDECK_METRICS_TOKEN = TOKEN;
  resetEnvCache();
  await seedMetrics();
}, 60 * 60_000);
afterAll(async () => {
  delete process.env.BOOTDECK_METRICS_TOKEN;
  resetEnvCache();
  await db?.cleanup();
});

it("promtool check metrics passes on GET /metrics", async () => {
  const close = viewerOpened("run");
  const res = await call(GET as never, { method: "GET", path: "/metrics", headers: { authorization: `Bearer ${TOKEN}` } });
  close();
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).toContain("bootdeck_cluster_backup_age_seconds{");
  const version = spawnSync(promtool, ["--version"], { encoding: "utf8" });
  expect(version.stdout).toContain("promtool");
  const check = spawnSync(promtool, ["check", "metrics"], { input: text, encoding: "utf8" });
  expect({ status: check.status, stdout: check.stdout, stderr: check.stderr }).toEqual({ status: 0, stdout: "", stderr: "" });
});

it("promtool check rules passes on the example alert rules of docs/metrics.md", () => {
  const doc = readFileSync(path.resolve(__dirname, "../../docs/metrics.md"), "utf8");
  const rules = /## Example alert rules[\s\S]*?```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
  expect(rules).toContain("alert: BootdeckBackupStale");
  const file = path.join(mkdtempSync(path.join(tmpdir(), "bootdeck-rules-")), "rules.yml");
  writeFileSync(file, rules!);
  const check = spawnSync(promtool, ["check", "rules", file], { encoding: "utf8" });
  expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: "" });
  expect(check.stdout).toMatch(/SUCCESS: 9 rules found/);
});
