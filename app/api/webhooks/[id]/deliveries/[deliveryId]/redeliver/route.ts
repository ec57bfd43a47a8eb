import { recordAudit } from "@/lib/audit/record";
import { json, readJson, route } from "@/lib/http/route";
import { assertDelivery } from "@/lib/notify/endpoints";
import { queueRedelivery } from "@/lib/notify/outbox";
import { deliveryIdParams } from "@/lib/notify/schemas";
import { z } from "zod";

// POST /api/webhooks/:id/deliveries/:deliveryId/redeliver — the same body again, at the end of the endpoint's queue.
export const POST = route({ permission: "webhook:manage", params: deliveryIdParams }, async ({ req, user, ip, params }) => {
  await readJson(req, z.strictObject({}), 1024);
  const d = await assertDelivery(params.id, params.deliveryId);
  const deliveryId = await queueRedelivery(params.deliveryId);
  await recordAudit({ action: "webhook.redeliver", userId: user.id, username: user.username, ip, target: params.id, details: { of: params.deliveryId, deliveryId, event: d.event, eventId: d.eventId } });
  return json({ deliveryId }, { status: 202 });
});
