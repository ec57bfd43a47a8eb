// The pages that need no lab, on data written straight into the test database (e2e/seed-ui.ts; nothing
// reaches a host): deep links through sign-in, the fleet list at 200 clusters (measured; health down to
// the last backup's age), a host's page, a run that needs a decision followed by two viewers while
// another worker takes it to success, the ETA, planned and rendered files, the audit log's names, time
// zones, dark mode, copy buttons, arrow keys in the grid, the plan's first render with progress, and the
// pods panel before any API exists.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { e2eEnv } from "./env";
import { FleetPage } from "./pages/fleet-page";
import { HostPage } from "./pages/host-page";
import { signIn } from "./pages/login-page";
import { RunPage } from "./pages/run-page";
import { seededPasswords } from "./seed-users";

const root = path.resolve(__dirname, "..");
const seedUi = (...args: string[]) =>
  execFileSync(process.execPath, ["--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, "e2e/seed-ui.ts"), ...args], {
    env: { ...process.env, ...e2eEnv },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
const shot = (name: string) => path.join("test-results", "screenshots", `${name}.png`);

type Seeded = {
  clusterId: string;
  clusterName: string;
  plannedRunId: string;
  failedCheckId: string;
  decisionRunId: string;
  freshClusterId: string;
  freshClusterName: string;
};
let s: Seeded;
const FLEET = 200;

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  s = JSON.parse(seedUi("seed")) as Seeded;
  seedUi("fleet", String(FLEET));
});

function report(name: string, ms: number): void {
  console.log(`ui: ${name} ${Math.round(ms)} ms`);
  test.info().annotations.push({ type: name, description: `${Math.round(ms)} ms` });
}

async function signInAs(browser: Browser, username: string, password: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, username, password);
  return page;
}

test("the dashboard has an icon, signed in or not", async ({ request }) => {
  const res = await request.get("/favicon.ico");
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toMatch(/^image\//);
  expect((await res.body()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
});

test("a deep link survives sign-in: the whole path and query come back; links off the site do not", async ({ page }) => {
  const deep = `/clusters/${s.clusterId}/runs/${s.failedCheckId}?host=worker-2&phase=preflight`;
  await page.goto(deep);
  await expect(page).toHaveURL(`/login?next=${encodeURIComponent(deep)}`);
  await page.getByTestId("login-username").fill("admin");
  await page.getByTestId("login-password").fill("e2e-admin-password");
  await page.getByTestId("login-submit").click();
  await page.waitForURL(`**${deep}`);
  // The cell named in the link is open: worker-2's preflight, with its error.
  await expect(page.getByTestId("step-details")).toContainText("swap is on");

  for (const next of ["//evil.example/clusters", "https://evil.example/", "/\\evil.example", "/..//evil.example"]) {
    // Off the dashboard first: a signed-out page would itself go to sign in on its next request.
    await page.goto("about:blank");
    await page.context().clearCookies();
    await page.goto(`/login?next=${encodeURIComponent(next)}`);
    await page.getByTestId("login-username").fill("admin");
    await page.getByTestId("login-password").fill("e2e-admin-password");
    await page.getByTestId("login-submit").click();
    await page.waitForURL("**/clusters");
    expect(new URL(page.url()).host, `next=${next} stays on the dashboard`).toBe(new URL(test.info().project.use.baseURL!).host);
  }
});

test(`the fleet list at ${FLEET} clusters: health per cluster, search and filters, quickly`, async ({ page }) => {
  await signIn(page);
  const fleet = new FleetPage(page);
  await fleet.open();
  // First render: from navigation until every row is in the table.
  const shown = await page.waitForFunction((n) => document.querySelectorAll('[data-testid^="cluster-row-"]').length >= n && performance.now(), FLEET, { polling: "raf", timeout: 30_000 });
  report(`fleet first render, ${FLEET}+ clusters`, (await shown.jsonValue()) as number);
  // The rows come with the page itself (no "Loading clusters…" after sign-in).
  const html = await (await page.request.get("/clusters")).text();
  expect(html).toContain("fleet-001");
  expect(html).not.toContain("Loading clusters");
  const api = await page.evaluate(async () => {
    const t = performance.now();
    const r = await fetch("/api/clusters");
    await r.json();
    return performance.now() - t;
  });
  report(`GET /api/clusters, ${FLEET}+ clusters`, api);
  await expect(fleet.table.locator("th")).toHaveText(["Name", "Kubernetes", "Hosts", "Nodes Ready", "Last run", "Certificates", "Last backup", "Alerts", "Updated"]);

  // Health: nodes as last seen (with when), the last run and its result, the certificates' expiry.
  const first = fleet.row("fleet-001");
  await expect(first.getByTestId("fleet-nodes")).toContainText(/6 of 6\s+seen/);
  await expect(first.getByTestId("fleet-last-run")).toContainText("Bootstrap cluster");
  await expect(first.getByTestId("fleet-last-run")).toContainText("succeeded");
  await expect(first.getByTestId("fleet-certs")).toContainText(/first expires in \d+ d/);
  await expect(fleet.row("fleet-008").getByTestId("fleet-certs")).toContainText("expired 2 d ago");
  // Its only bootstrap failed: no certificate is on any host yet.
  await expect(fleet.row("fleet-004").getByTestId("fleet-certs")).toHaveText("not bootstrapped");
  await expect(fleet.row("fleet-005").getByTestId("fleet-last-run")).toContainText("needs a decision");
  await expect(fleet.row("fleet-006").getByTestId("fleet-nodes")).toContainText("5 of 6");
  await expect(fleet.row("fleet-009").getByTestId("fleet-last-run")).toHaveText("none");
  // The newest etcd backup's age: amber past a day without a schedule, or past its schedule's interval.
  await expect(first.getByTestId("fleet-backup")).toHaveText("1 h ago");
  await expect(first.getByTestId("fleet-backup").locator("span")).toHaveAttribute("data-state", "ok");
  await expect(fleet.row("fleet-002").getByTestId("fleet-backup")).toHaveText("30 h ago");
  await expect(fleet.row("fleet-002").getByTestId("fleet-backup").locator("span")).toHaveAttribute("data-state", "old");
  await expect(fleet.row("fleet-002").getByTestId("fleet-attention")).toContainText("no backup for over a day");
  await expect(fleet.row("fleet-003").getByTestId("fleet-backup")).toHaveText("3 h ago");
  await expect(fleet.row("fleet-003").getByTestId("fleet-backup").locator("span")).toHaveAttribute("title", /the schedule runs every 1 h$/);
  await expect(fleet.row("fleet-003").getByTestId("fleet-attention")).toContainText("backup overdue");
  await expect(fleet.row("fleet-009").getByTestId("fleet-backup")).toHaveText("never");
  await page.screenshot({ path: shot("40-fleet") });

  // Search, timed from the keystroke to the table showing the matches.
  const t0 = await page.evaluate(() => performance.now());
  await fleet.search("fleet-00");
  await expect(fleet.rows()).toHaveCount(9);
  report("fleet search to 9 rows", (await page.evaluate(() => performance.now())) - t0);
  await expect(fleet.count).toHaveText(/^9 of \d+ clusters$/);
  await fleet.search("");
  await expect(fleet.count).toHaveText(/^\d+ clusters$/);
  await fleet.filterState("attention");
  await expect(fleet.count).toHaveText(/^\d+ of \d+ clusters$/);
  const attention = await fleet.rows().count();
  expect(attention).toBeGreaterThan(10);
  expect(await fleet.rows().evaluateAll((rows) => rows.every((r) => r.getAttribute("data-attention") === "true"))).toBe(true);
  await fleet.filterState("all");
  await fleet.filterVersion("v1.35.4");
  await expect(fleet.rows()).toHaveCount(FLEET / 10);
});

test("a host's page: its state, facts as of when, the last failure linked to the step's output, and back", async ({ page }) => {
  await signIn(page);
  const host = new HostPage(page);
  await host.open(s.clusterId, "worker-2");
  await expect(host.state).toHaveText("check failed at preflight");
  await expect(host.facts).toContainText("Debian GNU/Linux 12");
  await expect(host.factsAsOf).toContainText(/as of \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC \(1 h ago\)/);
  await expect(host.lastFailure).toContainText("swap is on");
  await expect(host.run(s.failedCheckId)).toContainText("failed at preflight");
  await page.screenshot({ path: shot("41-host") });
  await host.failedStepLink.click();
  await expect(page).toHaveURL(new RegExp(`/runs/${s.failedCheckId}\\?host=worker-2&phase=preflight$`));
  await expect(page.getByTestId("step-details")).toContainText("swap is on");
  await expect(page.getByTestId("step-output-preflight/worker-2")).toContainText("swap: 1 device");
  await page.getByTestId("step-host-link").click();
  await expect(host.state).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/clusters/${s.clusterId}/hosts/worker-2$`));

  // A master's page offers the join too: it adds the master as an etcd member.
  await host.open(s.clusterId, "master-1");
  await expect(page.getByTestId("join-master-1")).toHaveAttribute("title", /etcd member/);

  // Several hosts at once from the cluster page: a cluster not bootstrapped yet takes no join (the
  // reason is on the button, e2e/day2.spec.ts joins on a running one); a reset is planned, not run.
  await page.goto(`/clusters/${s.clusterId}`);
  await page.getByTestId("select-host-worker-1").check();
  await page.getByTestId("select-host-worker-2").check();
  await expect(page.getByTestId("host-selection-count")).toHaveText("2 hosts selected");
  await expect(page.getByTestId("join-selected")).toHaveText("Join 2 hosts");
  await expect(page.getByTestId("join-selected")).toBeDisabled();
  await expect(page.getByTestId("join-selected")).toHaveAttribute("title", /^Not bootstrapped yet: .*Bootstrap it first/);
  await page.getByTestId("reset-selected").click();
  await page.getByTestId("reset-selected-confirm").click();
  const run = new RunPage(page);
  await expect(run.status).toHaveText("planned");
  await expect(run.start).toHaveText(/on 2 hosts$/);
  await expect(run.planStep("reset/worker-1")).toBeVisible();
  await expect(run.planStep("reset/worker-2")).toBeVisible();
});

test("a run stopped by warnings needs a decision: amber, who decides; every open view follows it when accepted elsewhere; title and notification", async ({ page, browser }) => {
  // A notification the test can read (the browser's would show outside the page).
  const stubNotifications = async (p: Page) =>
    p.addInitScript(() => {
      const shown: { title: string; body: string }[] = [];
      (window as unknown as { shownNotifications: typeof shown }).shownNotifications = shown;
      class FakeNotification {
        static permission = "granted";
        static requestPermission = async () => "granted";
        constructor(title: string, opts: { body?: string } = {}) {
          shown.push({ title, body: opts.body ?? "" });
        }
      }
      (window as unknown as { Notification: unknown }).Notification = FakeNotification;
    });
  await stubNotifications(page);
  await signIn(page);
  const admin = new RunPage(page);
  await admin.open(s.clusterId, s.decisionRunId);
  await expect(admin.status).toHaveText("needs a decision");
  await expect(admin.status).toHaveAttribute("data-status", "needs-decision");
  await expect(page.getByTestId("run-progress-bar")).toHaveAttribute("data-colour", "amber-500");
  await expect(admin.progress).toContainText("3 wait for a decision");
  await expect(admin.progress).not.toContainText("failed");
  await expect(admin.cell("worker-1", "preflight")).toHaveAttribute("data-status", "decision");
  await expect(admin.decision).toContainText("Needs a decision (admin or lead)");
  // The warnings are in the banner itself, one line for what every host shares.
  await expect(page.getByTestId("run-decision-warning")).toHaveText(["every host (3): cgroup v1 (the kubelet 1.35 and later refuse it)"]);
  await expect(page.getByTestId("run-deciders")).toContainText("Lee Lead (lead)");
  await expect(page.getByTestId("run-deciders")).toContainText("(admin)");
  await expect(admin.acceptWarnings).toBeVisible();
  await expect(admin.live).toHaveAttribute("data-state", "open");
  await expect(page).toHaveTitle(/^\? Needs a decision · Bootstrap cluster · /);
  // The layout's own title written back over it (as happened once under load) does not stay.
  await page.evaluate(() => void (document.querySelector("title")!.textContent = "Bootdeck"));
  await expect(page).toHaveTitle(/^\? Needs a decision · Bootstrap cluster · /);
  await page.getByTestId("run-notify").click();
  await expect(page.getByTestId("run-notify")).toHaveAttribute("data-on", "true");
  await page.screenshot({ path: shot("42-needs-decision") });

  // A support engineer's view: the same state, no button, told whom to ask.
  const support = await signInAs(browser, "sam", seededPasswords.support);
  const other = new RunPage(support);
  await other.open(s.clusterId, s.decisionRunId);
  await expect(other.status).toHaveText("needs a decision");
  await expect(other.acceptWarnings).toHaveCount(0);
  await expect(support.getByTestId("run-deciders")).toContainText("Ask one of them: Who can decide:");
  await expect(other.live).toHaveAttribute("data-state", "open");

  // Someone accepts the warnings elsewhere (a separate worker writes the run): both views follow it to the end.
  seedUi("accept", s.decisionRunId, "lee");
  for (const view of [admin, other]) {
    await expect(view.status).toHaveText("succeeded", { timeout: 30_000 });
    await expect(view.cell("worker-2", "join")).toHaveAttribute("data-status", "done");
    await expect(view.summary).toHaveText("all 3 hosts done");
  }
  await expect(page).toHaveTitle(/^✓ Succeeded · Bootstrap cluster · /);
  await expect.poll(() => page.evaluate(() => (window as unknown as { shownNotifications: { title: string }[] }).shownNotifications.map((n) => n.title))).toEqual([`Bootstrap cluster of ${s.clusterName} succeeded`]);
  await support.context().close();
});

test("the ETA: from the last successful run's phase times while phases are unmeasured; the pods panel says there is no API yet", async ({ page }) => {
  // Seeded now: the ETA depends on how long its control plane has been waiting (15 s).
  const running = JSON.parse(seedUi("running")) as { clusterId: string; runId: string };
  await signIn(page);
  const run = new RunPage(page);
  await run.open(running.clusterId, running.runId);
  await expect(run.status).toHaveText("running");
  // control-plane took 40 s last time and has waited 15 s; then self-hosted 5 s, pivot 21 s, join 13 s, verify 1 s.
  await expect(run.eta).toHaveText(/^about (1 min 0\d s|5\d s) left$/);
  await expect(run.eta).toHaveAttribute("title", /last successful run/);
  await expect(page.getByTestId("live-state")).toHaveAttribute("data-state", "not-bootstrapped");
  await expect(page.getByTestId("live-state")).toContainText("No API yet");
  await expect(page.getByTestId("live-state")).not.toContainText("pivot");

  // Arrow keys move focus through the grid; Enter opens the cell.
  await run.cell("master-1", "facts").click();
  await page.keyboard.press("ArrowRight");
  await expect(run.cell("master-1", "preflight")).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(run.cell("worker-1", "preflight")).toBeFocused();
  await page.keyboard.press("End");
  await expect(run.cell("worker-1", "join")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(run.details.locator("h2")).toContainText("join on worker-1");
});

test("planned and rendered files can be read in place, secrets stay hidden; commands and ids copy", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page);
  const run = new RunPage(page);
  await run.open(s.clusterId, s.plannedRunId);
  const ca = await run.viewPlannedFile("kubelet/worker-1", "/etc/kubernetes/pki/ca.crt");
  await expect(ca).toContainText("-----BEGIN CERTIFICATE-----");
  await page.getByTestId("view-file-/etc/kubernetes/bootstrap-kubelet.conf").click();
  await expect(page.getByTestId("file-content-/etc/kubernetes/bootstrap-kubelet.conf")).toHaveAttribute("data-hidden", "true");
  await expect(page.getByTestId("file-content-/etc/kubernetes/bootstrap-kubelet.conf")).toContainText("holds a secret");
  // A command reads as its script's name and arguments; its copy is the line exactly as sent, the script included.
  const readable = (await run.planStep("kubelet/worker-1").locator("pre").first().textContent()) ?? "";
  await page.getByTestId("plan-command-kubelet/worker-1-worker-1-0-copy").click();
  await expect(page.getByTestId("plan-command-kubelet/worker-1-worker-1-0-copy")).toHaveText("Copied");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toMatch(/^sh -c 'lock=/);
  expect(copied.endsWith(` ${readable}`)).toBe(true);
  await page.getByTestId("copy-run-id").click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(s.plannedRunId);

  await page.goto(`/clusters/${s.clusterId}/assets`);
  await page.getByTestId("asset-open-tls/ca.crt").click();
  await expect(page.getByTestId("asset-content-tls/ca.crt")).toContainText("-----BEGIN CERTIFICATE-----");
  await page.getByTestId("asset-open-tls/ca.key").click();
  await expect(page.getByTestId("asset-content-tls/ca.key")).toHaveAttribute("data-hidden", "true");
  await expect(page.getByTestId("asset-content-tls/ca.key")).not.toContainText("PRIVATE KEY");
});

test("a bootstrap's review shows every object it writes as YAML and every command with its host", async ({ page }) => {
  await signIn(page);
  const run = new RunPage(page);
  await run.open(s.clusterId, s.plannedRunId);
  await run.planToggle("self-hosted/cluster").click();
  const api = page.getByTestId("plan-api-self-hosted/cluster");
  const coredns = api.locator("li", { hasText: "ConfigMap kube-system/coredns" });
  await expect(coredns).toContainText("create if missing");
  await coredns.getByRole("button", { name: "YAML" }).click();
  await expect(coredns.locator("pre")).toContainText("kind: ConfigMap");
  await expect(coredns.locator("pre")).toContainText("Corefile");
  // A Secret is listed with its keys; its values stay hidden.
  const secret = api.locator("li", { hasText: "Secret kube-system/kube-apiserver" }).first();
  await expect(secret).toContainText("(values hidden)");
  await secret.getByRole("button", { name: "YAML" }).click();
  await expect(secret.locator("pre")).toContainText("(secret)");
  await expect(secret.locator("pre")).not.toContainText("PRIVATE KEY");
  // The first master gets its role through the API, only what it lacks.
  await expect(api.locator("li", { hasText: "Node master-1" }).first()).toContainText("only if needed");
  // A cluster-wide step names the host each command goes to; read-only commands sent only when needed are marked.
  await run.planToggle("pivot/cluster").click();
  await expect(page.getByTestId("plan-host-pivot/cluster-master-1")).toContainText("on master-1");
  await expect(page.getByTestId("plan-api-pivot/cluster")).toContainText("ConfigMap kube-system/bootdeck-pivot-");
  await run.planToggle("join/worker-1").click();
  await expect(run.planStep("join/worker-1").locator('[data-when="needed"]')).toHaveCount(2);
  await expect(page.getByTestId("plan-checks-join/worker-1")).toContainText("registered and Ready");
});

test("the audit log names what was done to, with links", async ({ page }) => {
  await signIn(page);
  // Two audited actions on named targets: an export of the cluster, a planned check run.
  expect((await page.request.get(`/api/clusters/${s.clusterId}/export`)).status()).toBe(200);
  await page.goto(`/clusters/${s.clusterId}`);
  await page.getByTestId("plan-check").click();
  await expect(new RunPage(page).status).toHaveText("planned");
  await page.goto("/audit");
  const cluster = page.getByTestId("audit-target").filter({ hasText: `cluster ${s.clusterName}` }).first();
  await expect(cluster.getByRole("link")).toHaveAttribute("href", `/clusters/${s.clusterId}`);
  const run = page.getByTestId("audit-target").filter({ hasText: `check run of ${s.clusterName}` }).first();
  await expect(run.getByRole("link")).toHaveAttribute("href", new RegExp(`^/clusters/${s.clusterId}/runs/run_`));
  // Ids only in the tooltips, never as the text people read.
  const text = await page.getByTestId("audit-table").innerText();
  expect(text).not.toMatch(/(^|[^A-Za-z0-9_-])(run|cl|cred|bk|as|usr)_[A-Za-z0-9_-]{16}/);
});

test("one time zone everywhere, labelled, toggled between UTC and local; dark mode follows the system", async ({ browser }) => {
  const context = await browser.newContext({ timezoneId: "Asia/Kolkata", colorScheme: "light" });
  const page = await context.newPage();
  await signIn(page);
  const run = new RunPage(page);
  await run.open(s.clusterId, s.failedCheckId);
  const started = page.getByTestId("run-started-at");
  await expect(started).toHaveText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
  const iso = (await started.getAttribute("datetime"))!;
  await page.getByTestId("tz-toggle").click();
  await expect(started).toHaveText(/ GMT\+5:30$/);
  // The same moment, 5 h 30 min later on the clock.
  const local = new Date(Date.parse(iso) + 5.5 * 3600_000).toISOString().replace("T", " ").slice(0, 19);
  await expect(started).toHaveText(`${local} GMT+5:30`);
  await page.reload();
  await expect(page.getByTestId("tz-toggle")).toHaveAttribute("data-zone", "local");
  await expect(page.getByTestId("run-started-at")).toHaveText(/ GMT\+5:30$/);
  await page.getByTestId("tz-toggle").click();

  // The body's background as a luminance (0 black … 255 white): painted through a canvas, which turns any
  // CSS colour (Tailwind's are oklch) into sRGB.
  const background = () =>
    page.evaluate(() => {
      const ctx = document.createElement("canvas").getContext("2d")!;
      ctx.fillStyle = getComputedStyle(document.body).backgroundColor;
      ctx.fillRect(0, 0, 1, 1);
      const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    });
  const light = await background();
  await page.emulateMedia({ colorScheme: "dark" });
  const dark = await background();
  expect(light, "light palette: a light page").toBeGreaterThan(200);
  expect(dark, "the page follows the system's dark setting").toBeLessThan(60);
  await page.screenshot({ path: shot("43-dark-run") });
  await context.close();
});

test("the first plan of a cluster that has no assets yet shows the render's progress, then the plan", async ({ page }) => {
  await signIn(page);
  await page.goto(`/clusters/${s.freshClusterId}`);
  await page.getByTestId("plan-bootstrap").click();
  await expect(page.getByTestId("plan-render-progress")).toContainText(/Rendering the cluster's certificates and manifests first .*: \d+ of \d+/);
  await page.screenshot({ path: shot("44-render-progress") });
  const run = new RunPage(page);
  await expect(run.status).toHaveText("planned", { timeout: 90_000 });
  await expect(run.planPhases().first()).toHaveText(/^1\. /);
  await expect(run.planStep("kubelet/worker-1")).toBeVisible();
});

test("every open view of a failed run follows its retry elsewhere to the end", async ({ page, browser }) => {
  await signIn(page);
  const admin = new RunPage(page);
  await admin.open(s.clusterId, s.failedCheckId);
  await expect(admin.status).toHaveText("failed");
  const support = await signInAs(browser, "sam", seededPasswords.support);
  const other = new RunPage(support);
  await other.open(s.clusterId, s.failedCheckId);
  await expect(other.status).toHaveText("failed");
  for (const view of [admin, other]) await expect(view.live).toHaveAttribute("data-state", "open");

  // A separate worker retries it (someone ran `bootdeck retry`, or pressed Retry on another dashboard).
  seedUi("retry", s.failedCheckId);
  for (const view of [admin, other]) {
    await expect(view.status).toHaveText("succeeded", { timeout: 30_000 });
    await expect(view.cell("worker-2", "preflight")).toHaveAttribute("data-status", "done");
    await expect(view.summary).toHaveText("all 3 hosts done");
  }
  await support.context().close();
});
