// Day two from the cluster page, up to the plan to review (nothing is started, no host is contacted;
// the runs themselves are tested on the lab in lib/engine/day2.integration.test.ts): none of it before
// the cluster was bootstrapped; then select hosts and add them (a master brings the etcd phases), remove them (admins, after saying so), plan an upgrade;
// a lead may add and upgrade but is offered no removal.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { stringify } from "yaml";
import { exampleDefinition } from "../lib/cluster/example";
import { e2eEnv } from "./env";
import { signIn } from "./pages/login-page";

const root = path.resolve(__dirname, "..");
const bootdeck = (args: string[], env: Record<string, string> = {}) => execFileSync(path.join(root, "bin/bootdeck"), args, { env: { ...process.env, ...e2eEnv, ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const leadPassword = "e2e-lead-Vq8#mZ2p";
/** Marks a cluster bootstrapped (e2e/seed-bootstrapped.ts). */
const seed = (args: string[]) =>
  execFileSync(process.execPath, ["--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, "e2e/seed-bootstrapped.ts"), ...args], { env: { ...process.env, ...e2eEnv }, stdio: ["ignore", "pipe", "pipe"] });

test.describe.configure({ mode: "serial", timeout: 180_000 });

test.beforeAll(() => {
  const def = exampleDefinition({ name: "day2-e2e", hosts: 6 });
  // No host is reachable at these addresses: nothing here may contact one.
  const file = path.join(e2eEnv.BOOTDECK_DATA_DIR!, "day2-e2e.cluster.yaml");
  const key = path.join(e2eEnv.BOOTDECK_DATA_DIR!, "day2-e2e.key");
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key]);
  writeFileSync(file, stringify({ ...def, spec: { ...def.spec, credentials: [{ name: "admin-key", type: "privateKey", privateKeyFile: key }] } }));
  bootdeck(["import", file, "--replace"]);
  try {
    bootdeck(["user", "add", "day2-lead", "--role", "lead"], { BOOTDECK_USER_PASSWORD: leadPassword });
  } catch {
    // already there from an earlier run against the same data directory
  }
});

test("an admin plans adding a master and a worker, removing a worker and an upgrade from the cluster page", async ({ page }) => {
  await signIn(page);
  await page.getByTestId("cluster-row-day2-e2e").getByRole("link", { name: "day2-e2e", exact: true }).click();
  // The list navigates on the client: the cluster page's address once it is there.
  await page.waitForURL(/\/clusters\/cl_[^/]+$/);
  const clusterUrl = page.url();
  // The running cluster's PKI comes from its asset set: render one first.
  await page.getByTestId("assets-tab").click();
  await page.getByTestId("render-start").click();
  await expect(page.getByTestId("render-progress")).toContainText("Saved as version 1", { timeout: 60_000 });

  // Not bootstrapped yet: nothing that acts on a running cluster is offered, and the page says why.
  await page.goto(clusterUrl);
  await expect(page.getByTestId("day2-not-yet")).toHaveText(/^Not bootstrapped yet: .*Bootstrap it first/);
  await page.getByTestId("day2-select-worker-2").check();
  for (const id of ["day2-add", "day2-upgrade", "backup-now", "plan-recover", "plan-rotate", "plan-rotate-key", "read-live-certs", "join-worker-2", "kubeconfig-download"]) await expect(page.getByTestId(id), id).toBeDisabled();
  // Each panel says why in words, not only in a tooltip.
  for (const id of ["backups-not-yet", "certificates-not-yet", "kubeconfig-not-yet"]) await expect(page.getByTestId(id), id).toHaveText(/^Not bootstrapped yet/);
  // The one primary action is the bootstrap; what waits for it does not look like the next step.
  await expect(page.getByTestId("backup-now")).not.toHaveClass(/btn-primary/);
  // Once it runs (bootstrapped elsewhere: the test's hosts do not exist), all of it is offered.
  seed(["day2-e2e"]);

  await page.goto(clusterUrl);
  await expect(page.getByTestId("day2-not-yet")).toHaveCount(0);
  await expect(page.getByTestId("backup-now")).toHaveClass(/btn-primary/);
  // A bootstrap is not the next step of a running cluster: the button asks first and plans nothing.
  await expect(page.getByTestId("plan-bootstrap")).not.toHaveClass(/btn-primary/);
  await page.getByTestId("plan-bootstrap").click();
  await expect(page.getByTestId("bootstrap-again")).toContainText("bootstrapped already");
  await page.getByTestId("bootstrap-again-cancel").click();
  await expect(page.getByTestId("bootstrap-again")).toHaveCount(0);
  expect(page.url()).toBe(clusterUrl);
  await page.getByTestId("day2-select-master-3").check();
  await page.getByTestId("day2-select-worker-2").check();
  await expect(page.getByTestId("day2-add")).toHaveText("Add 2 to the cluster (1 master: etcd grows one member at a time)");
  await page.getByTestId("day2-add").click();
  await expect(page.getByTestId("run-status")).toHaveText("planned");
  await expect(page.getByTestId("plan-phase-guard")).toContainText("every member healthy");
  await expect(page.getByTestId("plan-phase-etcd")).toContainText("learner");
  await page.getByTestId("plan-step-etcd/master-3").getByRole("button").click();
  await expect(page.getByTestId("plan-step-etcd/master-3").locator("pre").first()).toContainText("add-learner master-3 https://192.0.2.13:2380");
  await page.screenshot({ path: path.join("test-results", "screenshots", "40-add-master-plan.png"), fullPage: true });

  await page.goto(clusterUrl);
  await page.getByTestId("day2-select-worker-3").check();
  await page.getByTestId("day2-remove").click();
  await page.getByTestId("day2-remove-confirm").click();
  await expect(page.getByTestId("run-status")).toHaveText("planned");
  await expect(page.getByTestId("plan-phase-drain")).toBeVisible();
  await expect(page.getByTestId("plan-phase-record")).toContainText("forgets the removed hosts");

  await page.goto(clusterUrl);
  await expect(page.getByTestId("day2-upgrade-version")).toHaveValue("v1.37.2");
  await page.getByTestId("day2-upgrade").click();
  await expect(page.getByTestId("run-status")).toHaveText("planned");
  await expect(page.getByTestId("plan-phase-kubelets")).toContainText("masters 1 at a time, then workers 10% at a time");
  await page.screenshot({ path: path.join("test-results", "screenshots", "41-upgrade-plan.png"), fullPage: true });

  // The encryption key's rotation, from the Hardening panel: planned for review, the key never shown.
  await page.goto(clusterUrl);
  await page.getByTestId("plan-rotate-key").click();
  await expect(page.getByTestId("run-status")).toHaveText("planned");
  await expect(page.getByTestId("plan-phase-add")).toContainText(/reads with the new key key-\d{8}(-\d+)? too/);
  await expect(page.getByTestId("plan-phase-rewrite")).toContainText("Every Secret written back as it is");
  await expect(page.getByTestId("plan-phase-drop")).toBeVisible();
  expect(await page.content()).not.toMatch(/secret: [A-Za-z0-9+/]{43}=/);
});

// (The server refuses a lead's removal whatever the page offers: test/authorization-matrix.test.ts.)
test("a lead may add hosts and upgrade, but is offered no removal", async ({ page }) => {
  await signIn(page, "day2-lead", leadPassword);
  await page.getByTestId("cluster-row-day2-e2e").getByRole("link", { name: "day2-e2e", exact: true }).click();
  await expect(page.getByTestId("day2-add")).toBeVisible();
  await expect(page.getByTestId("day2-upgrade")).toBeVisible();
  await expect(page.getByTestId("day2-remove")).toHaveCount(0);
});
