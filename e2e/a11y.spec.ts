// Accessibility of the main pages with axe-core (WCAG 2.1 A and AA rules): no serious or critical
// violation, in the light and in the dark palette. On data written by e2e/seed-ui.ts; nothing reaches a host.
import { execFileSync } from "node:child_process";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { e2eEnv } from "./env";
import { signIn } from "./pages/login-page";

const root = path.resolve(__dirname, "..");
const seedUi = (...args: string[]) =>
  execFileSync(process.execPath, ["--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, "e2e/seed-ui.ts"), ...args], {
    env: { ...process.env, ...e2eEnv },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

type Seeded = { clusterId: string; plannedRunId: string; failedCheckId: string; decisionRunId: string };
let s: Seeded;
let running: { clusterId: string; runId: string };

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  s = JSON.parse(seedUi("seed")) as Seeded;
  running = JSON.parse(seedUi("running")) as { clusterId: string; runId: string };
});

/** Serious and critical violations on the page as it is now, one line each (rule, impact, where). */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.slice(0, 3).map((n) => `${v.id} (${v.impact}): ${n.target.join(" ")} — ${n.failureSummary?.split("\n")[1]?.trim() ?? v.help}`));
}

const pages: { name: string; url: () => string; ready: string }[] = [
  { name: "cluster list", url: () => "/clusters", ready: "cluster-table" },
  { name: "cluster", url: () => `/clusters/${s.clusterId}`, ready: "detail-hosts" },
  { name: "plan review", url: () => `/clusters/${s.clusterId}/runs/${s.plannedRunId}`, ready: "plan-review" },
  { name: "failed run", url: () => `/clusters/${s.clusterId}/runs/${s.failedCheckId}`, ready: "step-details" },
  { name: "run that needs a decision", url: () => `/clusters/${s.clusterId}/runs/${s.decisionRunId}`, ready: "run-decision" },
  { name: "run under way", url: () => `/clusters/${running.clusterId}/runs/${running.runId}`, ready: "run-grid" },
  { name: "host", url: () => `/clusters/${s.clusterId}/hosts/worker-2`, ready: "host-page" },
  { name: "assets", url: () => `/clusters/${s.clusterId}/assets`, ready: "asset-files" },
  { name: "new cluster wizard", url: () => "/clusters/new", ready: "cluster-wizard" },
  { name: "audit log", url: () => "/audit", ready: "audit-table" },
  { name: "users", url: () => "/users", ready: "current-user" },
  { name: "webhooks", url: () => "/webhooks", ready: "webhook-create" },
];

test("the sign-in page", async ({ page }) => {
  await page.goto("/login");
  await expect(page.getByTestId("login-submit")).toBeVisible();
  expect(await violations(page)).toEqual([]);
});

for (const scheme of ["light", "dark"] as const) {
  test(`the main pages, ${scheme}: no serious or critical violation`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await signIn(page);
    const found: string[] = [];
    for (const p of pages) {
      await page.goto(p.url());
      await expect(page.getByTestId(p.ready).first()).toBeVisible();
      // Let the page settle (queries answered, times formatted); streams stay open, so no "network idle".
      await page.waitForTimeout(300);
      found.push(...(await violations(page)).map((v) => `${p.name}: ${v}`));
    }
    expect(found, `axe-core, ${scheme}`).toEqual([]);
  });
}
