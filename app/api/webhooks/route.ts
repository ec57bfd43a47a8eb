import { recordAudit } from "@/lib/audit/record";
import { json, readJson, route } from "@/lib/http/route";
import { createWebhook, getWebhook, listWebhooks } from "@/lib/notify/endpoints";
import { createWebhookBody } from "@/lib/notify/schemas";

// GET /api/webhooks — every endpoint with its last delivery (never its secret).
export const GET = route({ permission: "webhook:manage" }, async () => json({ webhooks: await listWebhooks() }));

// POST /api/webhooks — a new endpoint; the secret is sealed and never shown again.
export const POST = route({ permission: "webhook:manage" }, async ({ req, user, ip }) => {
  const body = await readJson(req, createWebhookBody, 16 * 1024);
  const id = await createWebhook(body, user.username);
  await recordAudit({ action: "webhook.create", userId: user.id, username: user.username, ip, target: id, details: { name: body.name, url: body.url, format: body.format, events: body.events, certificateDays: body.certificateDays, enabled: body.enabled } });
  return json({ webhook: await getWebhook(id) }, { status: 201 });
});
