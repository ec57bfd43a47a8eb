import { Forbidden } from "@/components/forbidden";
import { UserAdmin } from "@/components/users/user-admin";
import { requirePagePermission } from "../current-user";

export default async function UsersPage() {
  const { user, allowed } = await requirePagePermission("user:manage");
  if (!allowed) return <Forbidden role={user.role} what="manage users" />;
  return <UserAdmin currentUsername={user.username} />;
}
