import { Forbidden } from "@/components/forbidden";
import { AuditLog } from "@/components/audit/audit-log";
import { requirePagePermission } from "../current-user";

export default async function AuditPage() {
  const { user, allowed } = await requirePagePermission("audit:read");
  if (!allowed) return <Forbidden role={user.role} what="read the audit log" />;
  return <AuditLog />;
}
