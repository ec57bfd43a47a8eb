// A whole bootstrap from the browser against lab hosts, with a fault: a worker has swap on. The admin
// reviews the plan, confirms, accepts the preflight warnings, watches the grid fill in (reloading the
// page mid-run), sees the faulty worker's row fail with its output and hint while the others finish
// and the pod table fills with Running and Ready pods, fixes the fault, retries the host, and the run
// ends green.
// Needs root (the lab); the suite runs as root.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { e2eEnv } from "./env";
import { signIn } from "./pages/login-page";
import { RunPage } from "./pages/run-page";

const lab = "e2eboot";
const root = path.resolve(__dirname, "..");
const bootdeck = (...args: string[]) => execFileSync(path.join(root, "bin/bootdeck"), args, { env: { ...process.env, ...e2eEnv }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const shot = (name: string) => path.join("test-results", "screenshots", name);

test.describe.configure({ mode: "serial", timeout: 600_000 });

test.beforeAll(() => {
  bootdeck("lab", "down", "--name", lab);
  bootdeck("lab", "up", "--masters", "1", "--workers", "2", "--name", lab);
  const yaml = execFileSync(process.execPath, ["--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, "lab/write-cluster-yaml.ts"), lab], { encoding: "utf8" });
  const file = path.join(e2eEnv.BOOTDECK_DATA_DIR!, `lab-${lab}.cluster.yaml`);
  writeFileSync(file, yaml);
  bootdeck("import", file, "--replace");
  bootdeck("lab", "swap", "worker-2", "on", "--name", lab);
});

test.afterAll(() => {
  bootdeck("lab", "down", "--name", lab);
});

test("an admin bootstraps the lab cluster, sees a faulty worker fail, fixes it and retries it to green", async ({ page }) => {
  const run = new RunPage(page);
  await signIn(page);
  await page.getByTestId(`cluster-row-lab-${lab}`).getByRole("link").click();
  await page.getByTestId("plan-bootstrap").click();

  // The plan: every phase, the exact files (with checksums) and commands, before anything runs.
  await expect(run.status).toHaveText("planned", { timeout: 60_000 });
  await expect(run.planPhases()).toHaveCount(10);
  await run.planStep("kubelet/worker-1").getByRole("button").click();
  await expect(run.planStep("kubelet/worker-1")).toContainText("/etc/kubernetes/bootstrap-kubelet.conf");
  await expect(run.planStep("kubelet/worker-1")).toContainText("systemctl daemon-reload");
  await page.screenshot({ path: shot("30-bootstrap-plan.png"), fullPage: true });
  await run.start.click();

  // Preflight: this machine's cgroup v1 is a warning on every host, and warnings stop a bootstrap
  // until an admin accepts them; worker-2's swap is an error that no acceptance overrides.
  await expect(run.status).toHaveText("failed", { timeout: 120_000 });
  await expect(run.cell("master-1", "preflight")).toHaveAttribute("data-status", "failed");
  await run.cell("master-1", "preflight").click();
  await expect(run.details).toContainText("need an admin's decision");
  await expect(run.details).toContainText("cgroup v1");
  await page.screenshot({ path: shot("31-bootstrap-warnings.png"), fullPage: true });
  await page.getByTestId("run-accept-warnings").click();

  // Live: the grid fills in. A reload mid-run loses nothing and doubles nothing.
  await expect(run.cell("master-1", "kubelet")).toHaveAttribute("data-status", "done", { timeout: 180_000 });
  await page.reload();
  await expect(run.rows()).toHaveCount(4); // cluster row + 3 hosts
  await expect(run.cell("master-1", "kubelet")).toHaveAttribute("data-status", "done");
  await page.screenshot({ path: shot("32-bootstrap-grid.png"), fullPage: true });

  // The worker with swap on fails preflight; the others go on to the end.
  await expect(run.status).toHaveText("failed", { timeout: 420_000 });
  await expect(run.cell("worker-2", "preflight")).toHaveAttribute("data-status", "failed");
  await expect(run.cell("worker-1", "join")).toHaveAttribute("data-status", "done");
  await expect(page.getByTestId("run-summary")).toHaveText("failed on 1 of 3 hosts: worker-2");
  await run.cell("worker-2", "preflight").click();
  await expect(run.details).toContainText("swap is on");
  await expect(run.details).toContainText("swapoff -a");
  // The node inspector: the host's facts and its preflight findings with their hints.
  await expect(page.getByTestId("host-facts")).toContainText("Debian");
  await expect(page.getByTestId("host-findings")).toContainText("swap is on");
  await expect(page.getByTestId("node-master-1")).toContainText("Ready", { timeout: 60_000 });
  await expect(page.getByTestId("node-worker-1")).toContainText("Ready");
  await page.screenshot({ path: shot("33-bootstrap-failed-worker.png"), fullPage: true });

  // Fixed on the host, retried from the page: the run ends green, every pod Running and Ready.
  bootdeck("lab", "swap", "worker-2", "off", "--name", lab);
  await page.getByTestId("retry-host-worker-2").click();
  await expect(run.status).toHaveText("succeeded", { timeout: 300_000 });
  await expect(page.getByTestId("run-summary")).toHaveText("all 3 hosts done");
  await expect(run.cell("worker-2", "join")).toHaveAttribute("data-status", "done");
  await expect(page.getByTestId("node-worker-2")).toContainText("Ready", { timeout: 60_000 });
  await expect(page.getByTestId("live-state")).toContainText("live");
  await expect(page.getByTestId("pods-summary")).toHaveText(/^\((\d+) of \1 Running and Ready\)$/, { timeout: 60_000 });
  await run.cell("worker-2", "join").click();
  await expect(page.getByTestId("host-pods")).toContainText("kube-flannel/");
  await page.getByTestId("toggle-timeline").click();
  await expect(page.getByTestId("timeline-row-worker-2")).toBeVisible();
  await page.screenshot({ path: shot("34-bootstrap-green.png"), fullPage: true });

  // The cluster page keeps the history.
  await page.getByTestId("run-cluster").click();
  await expect(page.getByTestId("run-history")).toContainText("succeeded");
});
