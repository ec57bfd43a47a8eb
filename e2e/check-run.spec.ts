// A check run from the browser against real lab hosts: plan, review the commands, confirm, watch the
// steps fill in live, and see every host key pinned. Needs root (the lab); the suite runs as root.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { e2eEnv } from "./env";
import { signIn } from "./pages/login-page";

const lab = "e2e";
const root = path.resolve(__dirname, "..");
const bootdeck = (...args: string[]) => execFileSync(path.join(root, "bin/bootdeck"), args, { env: { ...process.env, ...e2eEnv }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

test.describe.configure({ mode: "serial", timeout: 300_000 });

test.beforeAll(() => {
  // A lab left behind by an interrupted run is cleaned first (down is safe to repeat).
  bootdeck("lab", "down", "--name", lab);
  bootdeck("lab", "up", "--masters", "1", "--workers", "2", "--name", lab);
  const yaml = execFileSync(process.execPath, ["--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, "lab/write-cluster-yaml.ts"), lab], { encoding: "utf8" });
  const file = path.join(e2eEnv.BOOTDECK_DATA_DIR!, "lab-e2e.cluster.yaml");
  writeFileSync(file, yaml);
  bootdeck("import", file, "--replace");
});

test.afterAll(() => {
  bootdeck("lab", "down", "--name", lab);
});

test("an admin checks the lab's hosts: plan, confirm, live progress, pinned keys", async ({ page }) => {
  await signIn(page);
  await page.getByTestId("cluster-row-lab-e2e").getByRole("link", { name: "lab-e2e", exact: true }).click();
  await page.getByTestId("plan-check").click();
  await expect(page.getByTestId("run-status")).toHaveText("planned");
  await expect(page.getByText("Nothing has been sent to any host yet")).toBeVisible();
  await expect(page.getByTestId("run-start")).toHaveText(/^Confirm and start: \d+ steps on 3 hosts$/);
  await page.getByTestId("plan-toggle-facts/master-1").click();
  await expect(page.getByTestId("plan-step-facts/master-1").locator("pre").first()).toContainText("bootdeck-facts");
  await page.screenshot({ path: path.join("test-results", "screenshots", "10-check-plan.png"), fullPage: true });

  await page.getByTestId("run-start").click();
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 120_000 });
  for (const host of ["master-1", "worker-1", "worker-2"]) {
    await expect(page.getByTestId(`cell-${host}-facts`)).toHaveAttribute("data-status", "done");
    await expect(page.getByTestId(`cell-${host}-preflight`)).toHaveAttribute("data-status", "done");
  }
  await expect(page.getByTestId("run-summary")).toHaveText("all 3 hosts done");
  await page.screenshot({ path: path.join("test-results", "screenshots", "11-check-done.png"), fullPage: true });

  await page.getByRole("link", { name: "lab-e2e" }).click();
  await expect(page.getByTestId("detail-hosts")).toContainText("SHA256:");
  await expect(page.getByTestId("detail-hosts")).not.toContainText("not yet seen");
  await expect(page.getByTestId("run-history")).toContainText("succeeded");
});
