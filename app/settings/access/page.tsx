import { Forbidden } from "@/components/forbidden";
import { AccessSettingsForm } from "@/components/settings/access-settings-form";
import { requirePagePermission } from "../../current-user";

export default async function AccessSettingsPage() {
  const { user, allowed } = await requirePagePermission("access:manage");
  if (!allowed) return <Forbidden role={user.role} what="change sign-in settings" />;
  return <AccessSettingsForm />;
}
