import { json, route } from "@/lib/http/route";
import { listDeliveries } from "@/lib/notify/endpoints";
import { webhookIdParams } from "@/lib/notify/schemas";

// GET /api/webhooks/:id/deliveries — the newest 100 deliveries with every attempt.
export const GET = route({ permission: "webhook:manage", params: webhookIdParams }, async ({ params }) => json({ deliveries: await listDeliveries(params.id) }));
