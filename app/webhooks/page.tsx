import { Forbidden } from "@/components/forbidden";
import { WebhookAdmin } from "@/components/webhooks/webhook-admin";
import { requirePagePermission } from "../current-user";

export default async function WebhooksPage() {
  const { user, allowed } = await requirePagePermission("webhook:manage");
  if (!allowed) return <Forbidden role={user.role} what="manage webhooks" />;
  return <WebhookAdmin />;
}
