// The rollout view with 500 hosts, no lab: e2e/seed-large-run.ts writes a cluster and two bootstrap runs
// straight into the test database (nothing is sent to any host; the engine never picks them up). Pins
// what the page shows. The grid's timings (first render, scrolling, the longest frame) are a benchmark,
// `npm run bench:run-grid` (docs/benchmarks.md); the plan review's figures are printed here, and only a
// page that stops answering fails.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { e2eEnv } from "./env";
import { signIn } from "./pages/login-page";
import { RunPage } from "./pages/run-page";

const root = path.resolve(__dirname, "..");
const seed = (...args: string[]) =>
  execFileSync(process.execPath, ["--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, "e2e/seed-large-run.ts"), ...args], {
    env: { ...process.env, ...e2eEnv },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });

/** How long a first render may take before the test gives up waiting (2-core CI machines): not a speed goal. */
const FIRST_RENDER_BUDGET_MS = 8_000;
/** Not a speed goal (that is in docs/benchmarks.md): only a page that stops answering fails. */
const FROZEN_MS = 2_000;

type Seeded = { clusterId: string; runId: string; plannedRunId: string; failedHost: string; hosts: number };
let s: Seeded;
let small: Seeded;

test.describe.configure({ mode: "serial" });

test.beforeAll(() => {
  s = JSON.parse(seed("seed", "500")) as Seeded;
  small = JSON.parse(seed("seed", "3")) as Seeded;
});

function report(name: string, ms: number): void {
  console.log(`run-grid: ${name} ${Math.round(ms)} ms`);
  test.info().annotations.push({ type: name, description: `${Math.round(ms)} ms` });
}

/**
 * Milliseconds since navigation until `selector` is on screen: polled every animation frame in the page;
 * once it matches, the next frame (the one that laid it out and painted it) counts.
 */
async function shownAt(page: Page, selector: string, timeout = 15_000): Promise<number> {
  const token = `shown-${Math.random()}`;
  const handle = await page.waitForFunction(
    ([sel, key]) => {
      const seen = window as unknown as Record<string, boolean>;
      if (seen[key]) return performance.now();
      seen[key] = document.querySelector(sel) !== null;
      return 0;
    },
    [selector, token] as const,
    { polling: "raf", timeout },
  );
  return (await handle.jsonValue()) as number;
}

/**
 * In the page, timed by its own clock: optionally scroll `scroll` to its end, wait for `click` to exist
 * and click it, wait for `until` to match (and every match to contain `each`, when given) and be painted
 * (one more frame), then 10 more frames (rows
 * measured, layout settled). Returns the time from start until `until` was painted and the longest gap
 * between animation frames over the whole time (a frozen page shows as one long frame). Gives up after 20 s.
 */
async function timeInPage(page: Page, o: { scroll?: string; click: string; until: string; each?: string }): Promise<{ ms: number; longestFrame: number }> {
  return page.evaluate(async ({ scroll, click, until, each }) => {
    const frame = () => new Promise<number>((r) => requestAnimationFrame(r));
    const t0 = performance.now();
    let last = t0;
    let longestFrame = 0;
    const next = async () => {
      const now = await frame();
      longestFrame = Math.max(longestFrame, now - last);
      last = now;
      if (now - t0 > 20_000) throw new Error(`timeInPage: gave up waiting (click ${click}, until ${until})`);
    };
    if (scroll) {
      const el = document.querySelector(scroll);
      if (el) el.scrollTop = el.scrollHeight;
    }
    let target = document.querySelector<HTMLElement>(click);
    while (!target) {
      await next();
      target = document.querySelector<HTMLElement>(click);
    }
    target.click();
    const done = () => {
      const found = [...document.querySelectorAll(until)];
      return found.length > 0 && (!each || found.every((el) => el.querySelector(each)));
    };
    while (!done()) await next();
    await next(); // the frame that lays it out and paints it
    const ms = last - t0;
    for (let i = 0; i < 10; i++) await next();
    return { ms, longestFrame };
  }, { each: "", ...o });
}

test("a 500-host rollout: failed host first, scrolls to the last host and back, filters, details", async ({ page }) => {
  await signIn(page);
  const run = new RunPage(page);
  await run.open(s.clusterId, s.runId);
  await expect(run.row("cluster")).toBeVisible({ timeout: FIRST_RENDER_BUDGET_MS });

  // Header: 500 × 5 host phases + control plane + self-hosted + pivot + 499 joins + verify = 3003 steps.
  await expect(run.status).toHaveText("running");
  // worker-250's binaries, kubelet and join steps were skipped after its failure: not run, not finished.
  await expect(run.progress).toContainText("2298/3003 steps · 1 failed · 3 not run");
  // worker-250's packages failed: the phases after it will not all run, so no estimate is given.
  await expect(run.eta).toHaveText("no estimate after a failure");
  await expect(page.getByTestId("run-meta")).toContainText("by admin");
  await expect(page.getByTestId("run-meta")).toContainText("elapsed");

  // Virtualized: a screenful of rows in the DOM, not 501. The cluster row leads, then the failed host.
  expect(await run.rows().count()).toBeLessThan(80);
  await expect(run.rows().nth(0)).toHaveAttribute("data-testid", "grid-row-cluster");
  await expect(run.rows().nth(1)).toHaveAttribute("data-testid", `grid-row-${s.failedHost}`);
  await expect(run.row(s.failedHost)).toContainText("worker");
  await expect(run.row(s.failedHost)).toContainText("10.20.");
  await expect(run.cell(s.failedHost, "packages")).toHaveAttribute("data-status", "failed");
  await expect(run.cell(s.failedHost, "binaries")).toHaveAttribute("data-status", "skipped");
  await expect(run.cell("worker-1", "kubelet")).toHaveAttribute("data-status", "done");
  await expect(run.cell("master-1", "control-plane")).toHaveAttribute("data-status", "pending");

  // The first failure is selected until a cell is clicked.
  await expect(run.details).toContainText("apt-get install conntrack failed: exit code 100");
  await expect(run.details).toContainText("Try: Check the host's package mirror");
  await expect(run.details).toContainText("E: Unable to locate package conntrack");
  await expect(run.details).toContainText("exit code 100");
  await page.screenshot({ path: path.join("test-results", "screenshots", "20-run-grid-500.png"), fullPage: true });

  // Jump to the bottom: the last host is there, still a screenful of rows in the DOM.
  await run.scroller.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect(run.row("worker-497")).toBeVisible();
  expect(await run.rows().count()).toBeLessThan(80);

  // Scroll back up a screen per frame to the top: the rows follow, the cluster row leads again.
  await run.scroller.evaluate(async (el) => {
    while (el.scrollTop > 0) {
      el.scrollTop = Math.max(0, el.scrollTop - 400);
      await new Promise((r) => requestAnimationFrame(() => r(null)));
    }
  });
  await expect(run.row("cluster")).toBeVisible();
  await expect(run.row("worker-497")).toHaveCount(0);
  expect(await run.rows().count()).toBeLessThan(80);

  // Filters.
  await run.filter("state", "failed");
  await expect(run.rows()).toHaveCount(1);
  await expect(page.getByTestId("grid-count")).toHaveText("showing 1 of 501 rows");
  await run.filter("state", "all");
  await run.filter("role", "master");
  await expect(run.rows()).toHaveCount(3);
  await run.filter("role", "all");

  // Clicking a cell shows its step.
  await run.cell("master-1", "facts").click();
  await expect(run.details).toContainText("facts on master-1");
  await expect(run.details).toContainText("exit code 0");
  await expect(run.details).toContainText("facts: ok");
  await expect(run.details).not.toContainText("conntrack");
});

test("every phase's label shows whole in the grid's header, and the grid fits a 1400 px window", async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  await signIn(page);
  const run = new RunPage(page);
  await run.open(s.clusterId, s.runId);
  await expect(run.row("cluster")).toBeVisible({ timeout: FIRST_RENDER_BUDGET_MS });
  const headers = page.locator('[data-testid^="grid-phase-"] span');
  expect(await headers.count()).toBeGreaterThanOrEqual(10);
  // A clipped label ("8. control …") is wider or taller than the box it shows in.
  const clipped = await headers.evaluateAll((spans) => spans.filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1).map((e) => e.textContent));
  expect(clipped).toEqual([]);
  await expect(page.getByTestId("grid-phase-control-plane")).toHaveText(/^\d+\. control plane$/);
  const scroll = page.getByTestId("grid-scroll");
  expect(await scroll.evaluate((e) => e.scrollWidth - e.clientWidth)).toBeLessThanOrEqual(1);
});

test("a waiting step shows what it waits for, ticking, until it finishes (live events)", async ({ page }) => {
  await signIn(page);
  const run = new RunPage(page);
  await run.open(s.clusterId, s.runId);
  await expect(run.row("cluster")).toBeVisible();
  seed("wait", s.runId, "control-plane/master-1", "kube-apiserver", "300");
  await expect(run.waiting).toContainText(/waiting for kube-apiserver on master-1, 00:0\d of 05:00/);
  await expect(run.cell("master-1", "control-plane")).toHaveAttribute("data-status", "waiting");
  const before = await run.waiting.innerText();
  await expect(run.waiting).not.toHaveText(before, { timeout: 3_000 }); // the clock ticks
  await page.screenshot({ path: path.join("test-results", "screenshots", "21-run-grid-waiting.png") });
  seed("finish", s.runId, "control-plane/master-1");
  await expect(run.waiting).toHaveCount(0);
  await expect(run.cell("master-1", "control-plane")).toHaveAttribute("data-status", "done");
});

test("the plan of a 500-host bootstrap: phases, collapsed steps with files and commands, what Start runs", async ({ page }) => {
  await signIn(page);
  const run = new RunPage(page);
  await run.open(s.clusterId, s.plannedRunId);
  report("first render of the plan (since navigation)", await shownAt(page, '[data-testid="plan-step-facts/master-1"]', FIRST_RENDER_BUDGET_MS));
  await expect(run.status).toHaveText("planned");
  await expect(run.start).toHaveText("Confirm and start: 3003 steps on 500 hosts");
  await expect(page.getByText("Nothing has been sent to any host yet")).toBeVisible();

  // Every phase with its step count, always on screen; the list itself is virtualized: a screenful of
  // the 3013 rows (10 headings, 3003 steps) in the DOM, not all of them.
  await expect(run.planPhases()).toHaveCount(10);
  await expect(run.planPhases().nth(0)).toHaveText("1. Gather facts · 500 steps");
  await expect(run.planPhases().nth(5)).toHaveText("6. Temporary control plane · 1 step");
  await expect(run.planPhases().nth(8)).toHaveText("9. Join · 499 steps");
  await expect(page.getByTestId("plan-heading-facts")).toHaveText("1. Gather facts · 500 steps");
  const stepRows = page.locator('[data-testid^="plan-step-"]');
  expect(await stepRows.count()).toBeLessThan(100);

  // A phase's button jumps to its heading; a step opens to its files and commands.
  await run.planPhases().nth(4).click();
  await expect(page.getByTestId("plan-heading-kubelet")).toBeVisible();
  const kubelet = run.planStep("kubelet/worker-1");
  await expect(kubelet.locator("pre")).toHaveCount(0); // collapsed by default
  await run.planToggle("kubelet/worker-1").click();
  await expect(run.planToggle("kubelet/worker-1")).toHaveAttribute("aria-expanded", "true");
  await expect(kubelet).toContainText("/etc/kubernetes/kubelet.conf");
  await expect(kubelet).toContainText("0600");
  await expect(kubelet).toContainText("0644");
  await expect(kubelet.getByRole("cell", { name: "3f9a1c0e5b7d", exact: true })).toBeVisible(); // 12 characters of the checksum
  await expect(kubelet).toContainText("2.1 KiB");
  await expect(kubelet.locator("pre").first()).toHaveText("systemctl daemon-reload && systemctl enable --now kubelet");
  // The opened row is measured: the next step starts below its commands, not on top of them.
  const [opened, below] = await Promise.all([kubelet.boundingBox(), run.planStep("kubelet/worker-2").boundingBox()]);
  expect(below!.y).toBeGreaterThanOrEqual(opened!.y + opened!.height - 1);
  // Long commands wrap: the page does not grow sideways.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: path.join("test-results", "screenshots", "22-run-plan-500.png") });

  // Near the end: scroll the list to the bottom, open the last join.
  const near = await timeInPage(page, { scroll: '[data-testid="plan-scroll"]', click: '[data-testid="plan-step-join/worker-497"] button', until: '[data-testid="plan-step-join/worker-497"]', each: "pre" });
  report("scroll to and expand a step near the end", near.ms);
  report("longest frame scrolling to and expanding a step near the end", near.longestFrame);
  await expect(run.planStep("join/worker-497").locator("pre")).toHaveText("bootdeck-join --host worker-497");
  expect(await stepRows.count()).toBeLessThan(100);

  // Expand all: the rows in view open at once, the page keeps answering, the list stays where it was.
  const topRow = await page.getByTestId("plan-scroll").evaluate((el) => {
    const top = el.getBoundingClientRect().top;
    const rows = [...el.querySelectorAll('[data-testid^="plan-step-"]')].filter((r) => r.getBoundingClientRect().bottom > top + 1);
    return rows.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)[0]?.getAttribute("data-testid") ?? "";
  });
  expect(topRow).toMatch(/^plan-step-join\//);
  const all = await timeInPage(page, { click: '[data-testid="plan-expand-all"]', until: '[data-testid^="plan-step-"]', each: "pre" });
  report("expand all 3003 steps (the rows in view open)", all.ms);
  report("longest frame during expand all", all.longestFrame);
  expect(all.longestFrame).toBeLessThan(FROZEN_MS);
  await expect(page.getByTestId("plan-expand-all")).toHaveText("Collapse all");
  await expect(page.getByTestId(topRow).locator("pre")).toBeInViewport();
  expect(await stepRows.count()).toBeLessThan(100);
  await run.planPhases().nth(9).click(); // the end of the list: the last join (opened by hand before) is open too
  await expect(run.planStep("verify/cluster").locator("pre")).toBeVisible();
  await expect(run.planStep("join/worker-497").locator("pre")).toBeVisible();

  // Every step is open wherever the list is scrolled: back at the top, and through the whole list.
  await run.planPhases().nth(0).click();
  await expect(run.planStep("facts/master-1").locator("pre")).toHaveText("bootdeck-facts --host master-1");
  const scrolled = await page.getByTestId("plan-scroll").evaluate(async (el) => {
    const frame = () => new Promise<number>((r) => requestAnimationFrame(r));
    let worst = 0;
    let frames = 0;
    let last = await frame();
    while (el.scrollTop + el.clientHeight < el.scrollHeight - 1 && frames < 2000) {
      el.scrollTop += el.clientHeight;
      const now = await frame();
      worst = Math.max(worst, now - last);
      last = now;
      frames += 1;
    }
    const closed = [...el.querySelectorAll('[data-testid^="plan-step-"]')].filter((row) => !row.querySelector("pre, table")).length;
    return { worst, frames, closed };
  });
  report(`longest frame while scrolling the expanded plan (${scrolled.frames} screens)`, scrolled.worst);
  expect(scrolled.closed).toBe(0);
  await expect(run.planStep("verify/cluster").locator("pre")).toBeVisible();
  await page.screenshot({ path: path.join("test-results", "screenshots", "24-run-plan-500-expanded.png") });

  // Collapse all closes every step, also the one opened by hand.
  await page.getByTestId("plan-expand-all").click();
  await expect(page.getByTestId("plan-expand-all")).toHaveText("Expand all");
  await expect(page.getByTestId("plan-scroll").locator("pre")).toHaveCount(0);
});

test("the cluster page plans a bootstrap and lists both runs with type, who, state, started", async ({ page }) => {
  await signIn(page);
  await page.goto(`/clusters/${s.clusterId}`);
  await expect(page.getByTestId("plan-bootstrap")).toHaveText("Bootstrap cluster");
  await expect(page.getByTestId(`run-row-${s.runId}`)).toContainText("Bootstrap cluster");
  await expect(page.getByTestId(`run-row-${s.runId}`)).toContainText("running");
  await expect(page.getByTestId(`run-row-${s.runId}`)).toContainText("admin");
  await expect(page.getByTestId(`run-row-${s.plannedRunId}`)).toContainText("planned");
});

test("Bootstrap cluster plans the engine's real bootstrap and opens its plan for review", async ({ page }) => {
  test.setTimeout(240_000); // the first bootstrap of a cluster renders its assets (RSA keys)
  await signIn(page);
  await page.goto(`/clusters/${small.clusterId}`);
  await page.getByTestId("plan-bootstrap").click();
  await page.waitForURL(/\/runs\/run_/, { timeout: 180_000 });
  const run = new RunPage(page);
  await expect(run.status).toHaveText("planned");
  // facts, preflight, packages, binaries, runtime, kubelet, control plane, self-hosted, pivot, join, verify
  await expect(run.planPhases()).toHaveCount(11);
  await expect(run.start).toHaveText(/^Confirm and start: \d+ steps on 3 hosts$/);
  const kubelet = run.planStep("kubelet/master-1");
  await run.planToggle("kubelet/master-1").click();
  await expect(kubelet.getByRole("cell", { name: /^0[0-7]{3}$/ }).first()).toBeVisible(); // file modes in octal
  await expect(kubelet.locator("pre").first()).toBeVisible();
  await page.screenshot({ path: path.join("test-results", "screenshots", "23-bootstrap-plan.png"), fullPage: true });
});
