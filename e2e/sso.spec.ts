// Signing in through a real OpenID Connect provider (oidc-provider, started here on a loopback port)
// in Chromium: an admin configures it under Settings → Access; a member of "ops" signs in through the
// provider's own login and consent pages and plans a bootstrap; a member of "helpdesk" sees clusters
// read-only; someone in no mapped group is refused. Nothing reaches a host: the bootstrap is planned,
// never started.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { startTestProvider, type TestProvider } from "../test/oidc-provider";
import { e2eEnv, e2ePort } from "./env";
import { signIn } from "./pages/login-page";
import { RunPage } from "./pages/run-page";

const root = path.resolve(__dirname, "..");
const client = { clientId: "bootdeck-e2e", clientSecret: "e2e-client-secret-0123456789", redirectUri: `http://127.0.0.1:${e2ePort}/api/auth/oidc/callback` };
let idp: TestProvider;
let cluster: { clusterId: string; clusterName: string };

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  idp = await startTestProvider({ clients: [client] });
  cluster = JSON.parse(
    execFileSync(process.execPath, ["--conditions=react-server", "--import", path.join(root, "node_modules/tsx/dist/loader.mjs"), path.join(root, "e2e/seed-sso.ts")], {
      env: { ...process.env, ...e2eEnv },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    }),
  ) as typeof cluster;
});
test.afterAll(async () => idp?.stop());

/** Through the sign-in page's button, the provider's login page as `login`, and its consent page. */
async function signInWithProvider(page: Page, login: string, next = "/clusters"): Promise<void> {
  await page.goto(`/login?next=${encodeURIComponent(next)}`);
  await page.getByTestId("sso-sign-in").click();
  await page.waitForURL(`${idp.issuer}/**`);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("any password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
}

test("an admin configures the provider and maps ops to lead, helpdesk to support", async ({ page }) => {
  await signIn(page);
  await page.getByTestId("nav-settings").click();
  await expect(page.getByTestId("access-redirect-uri")).toHaveText(client.redirectUri);
  await page.getByTestId("access-oidc-enabled").check();
  await page.getByTestId("access-issuer").fill(idp.issuer);
  await page.getByTestId("access-clientId").fill(client.clientId);
  await page.getByTestId("access-client-secret").fill(client.clientSecret);
  await page.getByTestId("mapping-add").click();
  await page.getByTestId("mapping-group-0").fill("ops");
  await page.getByTestId("mapping-role-0").selectOption("lead");
  await page.getByTestId("mapping-add").click();
  await page.getByTestId("mapping-group-1").fill("helpdesk");
  await page.getByTestId("mapping-role-1").selectOption("support");
  await page.getByTestId("access-save").click();
  await expect(page.getByTestId("access-message")).toHaveText("Saved.");
  // The secret is stored, never shown again.
  await page.reload();
  await expect(page.getByTestId("access-client-secret")).toHaveValue("");
  await expect(page.getByTestId("access-client-secret")).toHaveAttribute("placeholder", /stored/);
  expect(await page.content()).not.toContain(client.clientSecret);
});

test("a member of ops signs in through the provider and plans a bootstrap", async ({ page }) => {
  await signInWithProvider(page, "olga", `/clusters/${cluster.clusterId}`);
  await page.waitForURL(`**/clusters/${cluster.clusterId}`);
  await expect(page.getByTestId("current-user")).toHaveText("Olga Ops · lead");
  await page.getByTestId("plan-bootstrap").click();
  const run = new RunPage(page);
  await expect(run.status).toHaveText("planned", { timeout: 60_000 });
  await expect(run.start).toBeEnabled();
});

test("a member of helpdesk sees clusters read-only", async ({ page }) => {
  await signInWithProvider(page, "hank");
  await page.waitForURL("**/clusters");
  await expect(page.getByTestId("current-user")).toHaveText("Hank Helpdesk · support");
  await page.goto(`/clusters/${cluster.clusterId}`);
  await expect(page.getByTestId("kubeconfig-panel")).toBeVisible();
  await expect(page.getByTestId("plan-check")).toHaveCount(0);
  await expect(page.getByTestId("plan-bootstrap")).toHaveCount(0);
  // Support may download a kubeconfig; this cluster was never bootstrapped, so the page offers none and
  // says why, and the server refuses one too.
  await expect(page.getByTestId("kubeconfig-download")).toBeDisabled();
  await expect(page.getByTestId("kubeconfig-not-yet")).toHaveText(/^Not bootstrapped yet/);
  // The session's CSRF token, as the page got it from the server (it sends it with every change).
  const csrf = /csrfToken\\?"\s*:\s*\\?"([^"\\]+)/.exec(await page.content())?.[1];
  expect(csrf).toBeTruthy();
  const issued = await page.request.post(`/api/clusters/${cluster.clusterId}/kubeconfig`, { data: {}, headers: { "x-csrf-token": csrf! } });
  expect(issued.status()).toBe(409);
  expect(await issued.text()).toContain("not been bootstrapped");
  // The server refuses a run whatever the page shows.
  const res = await page.request.post(`/api/clusters/${cluster.clusterId}/runs`, { data: { type: "check" }, headers: { "x-csrf-token": csrf! } });
  expect(res.status()).toBe(403);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("forbidden");
});

test("someone in no mapped group is refused, with no session", async ({ page }) => {
  await signInWithProvider(page, "nina");
  await page.waitForURL("**/no-access");
  await expect(page.getByTestId("no-access")).toContainText("none of your groups is mapped");
  expect((await page.request.get("/api/clusters")).status()).toBe(401);
  await page.goto("/clusters");
  await page.waitForURL("**/login?next=%2Fclusters");
});

test("the audit log names the provider and subject of each", async ({ page }) => {
  await signIn(page);
  await page.goto("/audit");
  const table = page.getByTestId("audit-table");
  await expect(table).toContainText("auth.oidc_no_access");
  await expect(table.getByTestId("audit-identity").filter({ hasText: `${idp.issuer} · olga` }).first()).toBeVisible();
  await expect(table.getByTestId("audit-identity").filter({ hasText: `${idp.issuer} · nina` }).first()).toBeVisible();
});
