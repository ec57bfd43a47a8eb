import { Forbidden } from "@/components/forbidden";
import { DeliveryLog } from "@/components/webhooks/delivery-log";
import { webhookIdParams } from "@/lib/notify/schemas";
import { notFound } from "next/navigation";
import { requirePagePermission } from "../../current-user";

export default async function WebhookPage({ params }: { params: Promise<{ id: string }> }) {
  const { user, allowed } = await requirePagePermission("webhook:manage");
  if (!allowed) return <Forbidden role={user.role} what="manage webhooks" />;
  const parsed = webhookIdParams.safeParse(await params);
  if (!parsed.success) notFound();
  return <DeliveryLog id={parsed.data.id} />;
}
