// The production dashboard for benchmarks that look at pages: `bin/bootdeck setup && node server.js` on a
// private port against the data directory in `env`, and Chromium signed in as its admin. Needs a prior
// `npx next build` (hold /tmp/bootdeck-heavy.lock: builds and browser runs share .next).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

const root = path.resolve(__dirname, "..");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Dashboard = { base: string; logFile: string; stop(): void };

export function requireBuild(bench: string): void {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) {
    console.error(`${bench}: no production build in .next: run \`npx next build\` first.`);
    process.exit(2);
  }
}

/** Starts the server with `env` (BOOTDECK_DATA_DIR, DATABASE_URL, BOOTDECK_MASTER_KEY, BOOTDECK_ADMIN_PASSWORD). */
export async function startDashboard(port: number, env: Record<string, string>, logFile: string): Promise<Dashboard> {
  const log = openSync(logFile, "a");
  const server: ChildProcess = spawn("sh", ["-c", `bin/bootdeck setup && exec node server.js -H 127.0.0.1 -p ${port}`], {
    cwd: root,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env },
    detached: true,
    stdio: ["ignore", log, log],
  });
  const stop = () => {
    if (server.pid && server.exitCode === null) {
      try {
        process.kill(-server.pid, "SIGTERM"); // the setup shell and the server: the group started here
      } catch {
        /* gone */
      }
    }
  };
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}); its log:\n${readFileSync(logFile, "utf8").slice(-3000)}`);
    const ok = await fetch(`${base}/login`).then((r) => r.ok, () => false);
    if (ok) return { base, logFile, stop };
    if (Date.now() > deadline) {
      stop();
      throw new Error(`the server did not answer ${base}/login within 180 s; log: ${logFile}`);
    }
    await sleep(500);
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"] });
}

export async function signIn(page: Page, password: string): Promise<void> {
  await page.goto("/login");
  await page.getByTestId("login-username").fill("admin");
  await page.getByTestId("login-password").fill(password);
  await page.getByTestId("login-submit").click();
  await page.waitForURL("**/clusters");
}
