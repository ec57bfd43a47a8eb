// The webhooks pages against a receiver this test runs (node:http on 127.0.0.1): an admin adds an
// endpoint, sends a test delivery that arrives signed with the secret typed in, reads the delivery log
// (state, response time, the body as signed) and redelivers it; every change is in the audit log, and
// the signed-in admin can read /metrics.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { signBody } from "../lib/notify/sign";
import { signIn } from "./pages/login-page";

const SECRET = "e2e-webhook-secret-0123456789";
type Got = { headers: IncomingMessage["headers"]; body: string };
let server: Server;
let url: string;
const received: Got[] = [];

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bootdeck`;
});
test.afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test("an admin adds an endpoint, sends a test delivery that arrives signed, reads the log and redelivers", async ({ page }) => {
  await signIn(page);
  await page.getByTestId("nav-webhooks").click();
  await page.waitForURL("**/webhooks");
  await page.getByTestId("webhook-name").fill("e2e receiver");
  await page.getByTestId("webhook-url").fill(url);
  await page.getByTestId("webhook-secret").fill(SECRET);
  await page.getByTestId("webhook-submit").click();
  const row = page.getByTestId("webhook-row-e2e receiver");
  await expect(row).toContainText(url);
  await expect(row).toContainText("A run failed");
  // The secret is never shown again, not even in the page's data.
  expect(await page.content()).not.toContain(SECRET);

  await page.getByTestId("webhook-ping-e2e receiver").click();
  await expect(page.getByTestId("webhook-note")).toContainText("A test delivery is queued");
  await expect.poll(() => received.length, { timeout: 15_000 }).toBe(1);
  const [ping] = received;
  expect(ping!.headers["x-bootdeck-signature-256"]).toBe(signBody(SECRET, ping!.body));
  expect(JSON.parse(ping!.body)).toMatchObject({ schema: "bootdeck.webhook/v1", type: "ping", sequence: 1, summary: "Test delivery sent by admin" });

  await page.getByTestId("webhook-link-e2e receiver").click();
  await expect(page.getByTestId("webhook-title")).toHaveText("Deliveries to e2e receiver");
  await expect(page.getByTestId("delivery-status-1")).toHaveText("delivered");
  await expect(page.getByTestId("delivery-row-1")).toContainText(/\d+ ms/);
  await page.getByTestId("delivery-details-1").click();
  await expect(page.getByText("204 in")).toBeVisible();
  await expect(page.getByText('"type": "ping"')).toBeVisible();

  await page.getByTestId("delivery-redeliver-1").click();
  await expect(page.getByTestId("delivery-status-2")).toHaveText("delivered", { timeout: 15_000 });
  await expect(page.getByTestId("delivery-row-2")).toContainText("redelivery");
  expect(received).toHaveLength(2);
  expect(received[1]!.body).toBe(ping!.body);
  expect(received[1]!.headers["x-bootdeck-redelivery"]).toBe(ping!.headers["x-bootdeck-delivery"]);
});

test("every change to an endpoint is audited, naming it", async ({ page }) => {
  await signIn(page);
  await page.goto("/webhooks");
  page.once("dialog", (d) => void d.accept());
  await page.getByTestId("webhook-toggle-e2e receiver").click();
  await expect(page.getByTestId("webhook-row-e2e receiver")).toContainText("disabled");
  await page.goto("/audit");
  const table = page.getByTestId("audit-table");
  for (const action of ["webhook.create", "webhook.ping", "webhook.redeliver", "webhook.update"]) await expect(table).toContainText(action);
  await expect(page.getByTestId("audit-target").filter({ hasText: "webhook e2e receiver" }).first().getByRole("link")).toHaveAttribute("href", /^\/webhooks\/wh_/);
});

test("a signed-in user reads /metrics; without a session or token it is refused", async ({ page, playwright }) => {
  await signIn(page);
  const res = await page.request.get("/metrics");
  expect(res.status()).toBe(200);
  expect(await res.text()).toMatch(/bootdeck_webhook_deliveries\{status="delivered"\} 2/);
  const anonymous = await playwright.request.newContext({ baseURL: new URL(page.url()).origin });
  const refused = await anonymous.get("/metrics");
  expect(refused.status()).toBe(401);
  expect(refused.headers()["www-authenticate"]).toBe('Bearer realm="bootdeck"');
  await anonymous.dispose();
});
