// Audit log filters; browser-safe so the audit page builds exactly what the server parses.
import { z } from "zod";

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date, YYYY-MM-DD");

export const auditFilterSchema = z.strictObject({
  /** Exact action, or a prefix ending in "." (e.g. "user." for every user change). */
  action: z.string().max(64).regex(/^[a-z_.]*$/, "must be an action such as cluster.create or a prefix such as user.").optional(),
  /** User name as recorded (exact). */
  user: z.string().max(64).optional(),
  /** Inclusive UTC days. */
  from: day.optional(),
  to: day.optional(),
  /** Newest first; ids below this one (paging). */
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export type AuditFilter = z.output<typeof auditFilterSchema>;

export const auditExportSchema = auditFilterSchema.omit({ before: true, limit: true }).extend({ format: z.enum(["csv", "json"]).default("csv") });

export type AuditEventView = {
  id: number;
  at: string;
  userId: string | null;
  username: string | null;
  /** "local", or the identity provider's issuer URL. */
  provider: string | null;
  /** The actor as the provider names them: a local account's id, the provider's `sub`. */
  subject: string | null;
  action: string;
  target: string | null;
  ip: string | null;
  details: Record<string, unknown>;
  /** Each id the row names (target, detail values) as people read it, with a link (audit page only;
   *  exports keep the ids). */
  names?: Record<string, { label: string; href: string | null }>;
};

export const auditQueryKeys = { events: (filter: Record<string, unknown>) => ["audit", filter] as const };

/** URL search params → a plain object for the schema (empty fields dropped). */
export function searchParamsObject(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of params) if (v !== "") out[k] = v;
  return out;
}
