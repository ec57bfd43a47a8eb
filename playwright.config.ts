import { defineConfig } from "@playwright/test";
import { e2eEnv, e2ePort } from "./e2e/env";

// Browser tests run Debian's Chromium against a production build on a private port with its own
// throw-away database (see e2e/env.ts). Never point this at another host.
export default defineConfig({
  testDir: "e2e",
  testMatch: /.*\.spec\.ts$/,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [["list"]],
  outputDir: "test-results/e2e",
  globalSetup: "./e2e/global-setup.ts",
  use: {
    baseURL: `http://127.0.0.1:${e2ePort}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    },
  },
  webServer: {
    command: `bin/bootdeck setup && node server.js -H 127.0.0.1 -p ${e2ePort}`,
    url: `http://127.0.0.1:${e2ePort}/login`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: e2eEnv,
  },
});
