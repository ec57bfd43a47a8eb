import { recordAudit } from "@/lib/audit/record";
import { json, readJson, route } from "@/lib/http/route";
import { assertDelivery, getWebhook } from "@/lib/notify/endpoints";
import { queuePing } from "@/lib/notify/outbox";
import { webhookIdParams } from "@/lib/notify/schemas";
import { z } from "zod";

// POST /api/webhooks/:id/ping — queues a test delivery ("ping") to this endpoint.
export const POST = route({ permission: "webhook:manage", params: webhookIdParams }, async ({ req, user, ip, params }) => {
  await readJson(req, z.strictObject({}), 1024);
  await getWebhook(params.id);
  const deliveryId = await queuePing(params.id, user.username);
  const { eventId } = await assertDelivery(params.id, deliveryId);
  await recordAudit({ action: "webhook.ping", userId: user.id, username: user.username, ip, target: params.id, details: { deliveryId, eventId } });
  return json({ deliveryId }, { status: 202 });
});
