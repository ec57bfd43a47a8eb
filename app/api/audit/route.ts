import { listAuditEvents } from "@/lib/audit/query";
import { auditFilterSchema, searchParamsObject } from "@/lib/audit/schemas";
import { ValidationError } from "@/lib/http/errors";
import { json, route } from "@/lib/http/route";

// GET /api/audit?action=&user=&from=&to=&before=&limit= — audit events, newest first.
export const GET = route({ permission: "audit:read" }, async ({ req }) => {
  const parsed = auditFilterSchema.safeParse(searchParamsObject(new URL(req.url).searchParams));
  if (!parsed.success) throw new ValidationError(parsed.error.issues.map((i) => ({ path: i.path.map(String).join(".") || "(query)", message: i.message })));
  return json(await listAuditEvents(parsed.data));
});
