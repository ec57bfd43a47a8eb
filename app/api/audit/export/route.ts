import { recordAudit } from "@/lib/audit/record";
import { auditCsv, exportAuditEvents } from "@/lib/audit/query";
import { auditExportSchema, searchParamsObject } from "@/lib/audit/schemas";
import { ValidationError } from "@/lib/http/errors";
import { route } from "@/lib/http/route";

// GET /api/audit/export?format=csv|json&action=&user=&from=&to= — the filtered audit log as a download.
export const GET = route({ permission: "audit:read" }, async ({ req, user, ip }) => {
  const parsed = auditExportSchema.safeParse(searchParamsObject(new URL(req.url).searchParams));
  if (!parsed.success) throw new ValidationError(parsed.error.issues.map((i) => ({ path: i.path.map(String).join(".") || "(query)", message: i.message })));
  const { format, ...filter } = parsed.data;
  const events = await exportAuditEvents(filter);
  await recordAudit({ action: "audit.export", userId: user.id, username: user.username, ip, details: { format, filter, count: events.length } });
  const stamp = new Date().toISOString().slice(0, 10);
  const body = format === "csv" ? auditCsv(events) : JSON.stringify({ events }, null, 2);
  return new Response(body, {
    headers: {
      "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="bootdeck-audit-${stamp}.${format}"`,
      "cache-control": "no-store",
    },
  });
});
