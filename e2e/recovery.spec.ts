// The cluster page's backups and certificates, and the cluster list's alerts, with seeded data (no lab):
// a failing schedule and certificates close to their end are plain to see, their times labelled with
// the one zone the dashboard shows; admins download and restore, support engineers see the same facts
// without the buttons.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { e2eEnv } from "./env";
import { signIn } from "./pages/login-page";

const root = path.resolve(__dirname, "..");
const node = (script: string, env: Record<string, string> = {}) =>
  execFileSync(process.execPath, ["--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, script)], { env: { ...process.env, ...e2eEnv, ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

let seeded: { clusterId: string; backupId: string };
const supportPassword = "support-e2e-Password-7q";

test.describe.configure({ mode: "serial" });
// A zone other than the machine's, so that "local" is told apart from UTC.
test.use({ timezoneId: "Asia/Kolkata" });

test.beforeAll(() => {
  seeded = JSON.parse(node("e2e/seed-recovery.ts")) as typeof seeded;
  execFileSync(path.join(root, "bin/bootdeck"), ["user", "add", "dr-support", "--role", "support"], { env: { ...process.env, ...e2eEnv, BOOTDECK_USER_PASSWORD: supportPassword }, stdio: "ignore" });
});

test("an admin sees the failing schedule and expiring certificates, downloads a backup and plans a restore", async ({ page }) => {
  await signIn(page);
  await expect(page.getByTestId("cluster-alerts-dr-ui")).toContainText("backups failing");
  await expect(page.getByTestId("cluster-alerts-dr-ui")).toContainText(/expires in 19 days|expires in 20 days/);
  await page.getByTestId("cluster-row-dr-ui").getByRole("link", { name: "dr-ui", exact: true }).click();
  const schedule = page.getByTestId("backup-schedule");
  await expect(schedule).toHaveAttribute("data-state", "failing");
  await expect(schedule).toContainText("Backups are failing: the last scheduled backup failed (2 attempts in a row): no master could take a snapshot");
  const row = page.getByTestId(`backup-${seeded.backupId}`);
  await expect(row).toContainText("48213");
  await expect(row).toContainText("master-2");
  // Times in the dashboard's one zone, labelled: UTC, or the browser's zone after the header's toggle.
  const taken = row.getByTestId("backup-taken");
  await expect(taken).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
  await expect(page.getByTestId("asset-certs").locator("tbody tr").first()).toContainText(/\d{4}-\d{2}-\d{2} UTC \(expires in (19|20) days\)/);
  await page.getByTestId("tz-toggle").click();
  await expect(taken).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} GMT\+5:30$/);
  await expect(page.getByTestId("asset-certs").locator("tbody tr").first()).toContainText(/\d{4}-\d{2}-\d{2} GMT\+5:30 \(expires in/);
  await page.getByTestId("tz-toggle").click();
  const download = await page.request.get(`/api/clusters/${seeded.clusterId}/backups/${seeded.backupId}/download`);
  expect(download.status()).toBe(200);
  expect(await download.text()).toBe("etcd snapshot bytes for the browser test");
  expect(download.headers()["content-disposition"]).toMatch(/attachment; filename="dr-ui-etcd-48213-\d{8}T\d{6}Z\.db"/);
  await expect(page.getByTestId("cert-warning")).toContainText(/certificates? end within 30 days/);
  await expect(page.getByTestId("asset-certs").locator('tr[data-warn="yes"]').first()).toBeVisible();
  await expect(page.getByTestId("plan-rotate")).toBeVisible();
  // Hardening at a glance, from the same asset set: the key's name and age, never the key.
  await expect(page.getByTestId("hardening-secrets-at-rest")).toHaveAttribute("data-ok", "true");
  await expect(page.getByTestId("hardening-secrets-at-rest")).toContainText(/encrypted \(secretbox, key key-\d{8}, \d+ days? old\)/);
  await expect(page.getByTestId("hardening-api-audit-log")).toContainText("/var/log/kubernetes/audit/audit.log on every master, rotated at 100 MB, 10 files, 30 days");
  await expect(page.getByTestId("hardening-pod-security")).toContainText("baseline enforced, restricted warned, restricted audited; exempt: kube-system");
  await expect(page.getByTestId("hardening-profiling")).toHaveAttribute("data-ok", "true");
  // Judged by other suites: none yet; a conformance run's JUnit uploaded shows its counts and what
  // failed; a file that is no report is named as such, and nothing changes.
  await expect(page.getByTestId("report-conformance")).toContainText("none recorded: run upstream's conformance suite");
  await page.getByTestId("report-file").setInputFiles(path.join(root, "lib/hardening/__fixtures__/ginkgo-junit.xml"));
  await expect(page.getByTestId("report-conformance")).toContainText("Kubernetes e2e suite: 46 passed, 1 failed, 3 not run");
  await expect(page.getByTestId("report-conformance")).toHaveAttribute("data-ok", "false");
  await page.getByTestId("report-conformance").getByText("What failed (1)").click();
  await expect(page.getByTestId("report-conformance")).toContainText("Proxy version v1 should proxy through a service and a pod");
  await page.getByTestId("report-file").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("all green") });
  await expect(page.getByTestId("reports").getByRole("alert")).toContainText("Not a report Bootdeck reads");
  await expect(page.getByTestId("report-cis")).toContainText("none recorded");
  // The bucket: none yet (said plainly); set one nothing answers at, and its test names the problem.
  await expect(page.getByTestId("backup-target")).toContainText("none: backups live on this dashboard's disk only");
  await expect(page.getByTestId(`copies-${seeded.backupId}`)).toHaveText("here");
  await page.getByTestId("target-edit").click();
  await page.getByTestId("target-endpoint").fill("http://127.0.0.1:9");
  await page.getByTestId("target-bucket").fill("dr-ui-backups");
  await page.getByTestId("target-accessKeyId").fill("AKIDE2E");
  await page.getByTestId("target-secretAccessKey").fill("e2e-secret-key");
  await page.getByTestId("target-save").click();
  await expect(page.getByTestId("target-where")).toContainText(`s3://dr-ui-backups/${seeded.clusterId}/ at http://127.0.0.1:9`);
  await page.getByTestId("target-test").click();
  await expect(page.getByTestId("target-test-result")).toHaveAttribute("data-problem", "unreachable");
  await expect(page.getByTestId("target-test-result")).toContainText("Endpoint unreachable: listing the bucket: the endpoint http://127.0.0.1:9 cannot be reached");
  await page.getByTestId(`restore-${seeded.backupId}`).click();
  await expect(page.getByTestId("run-status")).toHaveText("planned");
  await expect(page.getByTestId("plan-heading-upload")).toContainText(/Copy backup bk_\S+ \(etcd revision 48213\) to every master/);
  await page.screenshot({ path: path.join("test-results", "screenshots", "40-restore-plan.png"), fullPage: true });
});

test("a support engineer sees the same facts, and no button that changes anything", async ({ page }) => {
  await signIn(page, "dr-support", supportPassword);
  await page.getByTestId("cluster-row-dr-ui").getByRole("link", { name: "dr-ui", exact: true }).click();
  await expect(page.getByTestId("backup-schedule")).toHaveAttribute("data-state", "failing");
  await expect(page.getByTestId(`backup-${seeded.backupId}`)).toContainText("48213");
  for (const id of ["backup-now", "plan-recover", `download-${seeded.backupId}`, `restore-${seeded.backupId}`, "plan-rotate", "edit-schedule", "target-edit", "target-test", "target-remove"]) await expect(page.getByTestId(id)).toHaveCount(0);
  await expect(page.getByTestId("read-live-certs")).toBeVisible();
  await expect(page.getByTestId("report-conformance")).toContainText("46 passed, 1 failed");
  await expect(page.getByTestId("report-file")).toHaveCount(0);
  expect((await page.request.get(`/api/clusters/${seeded.clusterId}/backups/${seeded.backupId}/download`)).status()).toBe(403);
});
