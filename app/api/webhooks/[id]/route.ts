import { recordAudit } from "@/lib/audit/record";
import { json, readJson, route } from "@/lib/http/route";
import { deleteWebhook, getWebhook, updateWebhook } from "@/lib/notify/endpoints";
import { updateWebhookBody, webhookIdParams } from "@/lib/notify/schemas";

// GET /api/webhooks/:id
export const GET = route({ permission: "webhook:manage", params: webhookIdParams }, async ({ params }) => json({ webhook: await getWebhook(params.id) }));

// PATCH /api/webhooks/:id — change any field; a new secret replaces the old one.
export const PATCH = route({ permission: "webhook:manage", params: webhookIdParams }, async ({ req, user, ip, params }) => {
  const body = await readJson(req, updateWebhookBody, 16 * 1024);
  const changed = await updateWebhook(params.id, body, user.username);
  const { secret: _secret, ...shown } = body;
  await recordAudit({ action: "webhook.update", userId: user.id, username: user.username, ip, target: params.id, details: { changed, ...shown } });
  return json({ webhook: await getWebhook(params.id) });
});

// DELETE /api/webhooks/:id — the endpoint and its delivery log.
export const DELETE = route({ permission: "webhook:manage", params: webhookIdParams }, async ({ user, ip, params }) => {
  const gone = await deleteWebhook(params.id);
  await recordAudit({ action: "webhook.delete", userId: user.id, username: user.username, ip, target: params.id, details: gone });
  return json({ ok: true });
});
