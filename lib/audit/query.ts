import "server-only";
// Reading the audit trail: filtered pages for the audit page and whole exports as CSV or JSON.
// Nothing in this module (or anywhere) updates or deletes audit rows.
import type { AuditEvent, Prisma } from "../generated/prisma/client";
import { getDb } from "../db/client";
import type { AuditEventView, AuditFilter } from "./schemas";
import { auditIds, resolveAuditTargets } from "./targets";

const exportCap = 100_000;

function where(f: Omit<AuditFilter, "limit" | "before"> & { before?: number }): Prisma.AuditEventWhereInput {
  const w: Prisma.AuditEventWhereInput = {};
  if (f.action) w.action = f.action.endsWith(".") ? { startsWith: f.action } : f.action;
  if (f.user) w.username = f.user;
  if (f.from || f.to)
    w.at = {
      ...(f.from ? { gte: new Date(`${f.from}T00:00:00.000Z`) } : {}),
      ...(f.to ? { lt: new Date(new Date(`${f.to}T00:00:00.000Z`).getTime() + 86_400_000) } : {}),
    };
  if (f.before) w.id = { lt: f.before };
  return w;
}

export async function listAuditEvents(filter: AuditFilter): Promise<{ events: AuditEventView[]; nextBefore: number | null }> {
  const rows = await getDb().auditEvent.findMany({ where: where(filter), orderBy: { id: "desc" }, take: filter.limit + 1 });
  const plain = rows.slice(0, filter.limit).map(toView);
  const targets = await resolveAuditTargets(plain);
  const page = plain.map((e) => ({ ...e, names: Object.fromEntries(auditIds(e).map((id) => [id, targets.get(id)!])) }));
  return { events: page, nextBefore: rows.length > filter.limit ? (page[page.length - 1]?.id ?? null) : null };
}

export async function exportAuditEvents(filter: Omit<AuditFilter, "limit" | "before">): Promise<AuditEventView[]> {
  const rows = await getDb().auditEvent.findMany({ where: where(filter), orderBy: { id: "asc" }, take: exportCap });
  return rows.map(toView);
}

export async function listAuditActions(): Promise<string[]> {
  const rows = await getDb().auditEvent.findMany({ distinct: ["action"], select: { action: true }, orderBy: { action: "asc" } });
  return rows.map((r) => r.action);
}

const columns = ["id", "at", "username", "userId", "provider", "subject", "action", "target", "ip", "details"] as const;

/** RFC 4180 CSV. Cells that a spreadsheet would run as a formula get a leading apostrophe. */
export function auditCsv(events: AuditEventView[]): string {
  const cell = (v: unknown) => {
    let s = v === null || v === undefined ? "" : typeof v === "string" ? v : typeof v === "number" ? String(v) : JSON.stringify(v);
    if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [columns.join(","), ...events.map((e) => columns.map((c) => cell(e[c])).join(","))].join("\r\n") + "\r\n";
}

/** A stored row as the API shows it (details parsed). */
function toView(r: AuditEvent): AuditEventView {
  let details: Record<string, unknown> = {};
  try {
    details = JSON.parse(r.details) as Record<string, unknown>;
  } catch {
    details = { raw: r.details };
  }
  return { id: r.id, at: r.at.toISOString(), userId: r.userId, username: r.username, provider: r.provider, subject: r.subject, action: r.action, target: r.target, ip: r.ip, details };
}
