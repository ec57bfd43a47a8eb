import type { Page } from "@playwright/test";
import { e2eAdminPassword } from "../env";

/** Signs in on the test server, or through another origin that leads to it (`origin`, e.g. a proxy). */
export async function signIn(page: Page, username = "admin", password = e2eAdminPassword, origin = ""): Promise<void> {
  await page.goto(`${origin}/login`);
  await page.getByTestId("login-username").fill(username);
  await page.getByTestId("login-password").fill(password);
  await page.getByTestId("login-submit").click();
  await page.waitForURL("**/clusters");
  await waitForHydration(page);
}

/** Waits until the signed-in page is interactive (components/app-shell.tsx marks it). */
export async function waitForHydration(page: Page): Promise<void> {
  await page.locator("body[data-hydrated]").waitFor({ state: "attached" });
}
