import type { Page } from "@playwright/test";
import { e2eAdminPassword } from "../env";

export async function signIn(page: Page, username = "admin", password = e2eAdminPassword): Promise<void> {
  await page.goto("/login");
  await page.getByTestId("login-username").fill(username);
  await page.getByTestId("login-password").fill(password);
  await page.getByTestId("login-submit").click();
  await page.waitForURL("**/clusters");
}
