import "server-only";
// Audit rows record what they acted on by id (cl_…, run_…, as_…, usr_…, cred_…, bk_…, wh_…), as their target
// and in their details (clusterId, runId): stable, and still there after the thing is deleted. For
// people, the audit page shows each as a name with a link; this resolves a page of ids at once (one
// query per kind), and says "deleted" for what no longer exists.
import { getDb } from "../db/client";
import type { AuditEventView } from "./schemas";

export type AuditTarget = { label: string; href: string | null };

const kinds = { cl_: "cluster", run_: "run", as_: "asset set", usr_: "user", cred_: "credential", bk_: "backup", wh_: "webhook" } as const;
const isId = (v: unknown): v is string => typeof v === "string" && /^[a-z]+_[A-Za-z0-9_-]{8,40}$/.test(v) && Object.keys(kinds).some((p) => v.startsWith(p));

/** Every id an event names: its target and any detail value that is an id. */
export function auditIds(e: Pick<AuditEventView, "target" | "details">): string[] {
  return [e.target, ...Object.values(e.details)].filter(isId);
}

export async function resolveAuditTargets(events: readonly Pick<AuditEventView, "target" | "details">[]): Promise<Map<string, AuditTarget>> {
  const ids = [...new Set(events.flatMap(auditIds))];
  const of = (prefix: string) => ids.filter((id) => id.startsWith(prefix));
  const db = getDb();
  const ofCluster = { clusterId: true, cluster: { select: { name: true } } } as const;
  const [clusters, runs, sets, users, creds, backups, webhooks] = await Promise.all([
    of("cl_").length ? db.cluster.findMany({ where: { id: { in: of("cl_") } }, select: { id: true, name: true } }) : [],
    of("run_").length ? db.run.findMany({ where: { id: { in: of("run_") } }, select: { id: true, type: true, ...ofCluster } }) : [],
    of("as_").length ? db.assetSet.findMany({ where: { id: { in: of("as_") } }, select: { id: true, version: true, ...ofCluster } }) : [],
    of("usr_").length ? db.user.findMany({ where: { id: { in: of("usr_") } }, select: { id: true, username: true } }) : [],
    of("cred_").length ? db.credential.findMany({ where: { id: { in: of("cred_") } }, select: { id: true, name: true, ...ofCluster } }) : [],
    of("bk_").length ? db.backup.findMany({ where: { id: { in: of("bk_") } }, select: { id: true, createdAt: true, ...ofCluster } }) : [],
    of("wh_").length ? db.webhookEndpoint.findMany({ where: { id: { in: of("wh_") } }, select: { id: true, name: true } }) : [],
  ]);
  const out = new Map<string, AuditTarget>();
  for (const c of clusters) out.set(c.id, { label: `cluster ${c.name}`, href: `/clusters/${c.id}` });
  for (const r of runs) out.set(r.id, { label: `${r.type} run of ${r.cluster.name}`, href: `/clusters/${r.clusterId}/runs/${r.id}` });
  for (const s of sets) out.set(s.id, { label: `assets v${s.version} of ${s.cluster.name}`, href: `/clusters/${s.clusterId}/assets` });
  for (const u of users) out.set(u.id, { label: `user ${u.username}`, href: "/users" });
  for (const c of creds) out.set(c.id, { label: `credential ${c.name} of ${c.cluster.name}`, href: `/clusters/${c.clusterId}` });
  for (const b of backups) out.set(b.id, { label: `backup of ${b.cluster.name} from ${b.createdAt.toISOString().slice(0, 16).replace("T", " ")} UTC`, href: `/clusters/${b.clusterId}` });
  for (const w of webhooks) out.set(w.id, { label: `webhook ${w.name}`, href: `/webhooks/${w.id}` });
  for (const id of ids) {
    if (out.has(id)) continue;
    const kind = Object.entries(kinds).find(([p]) => id.startsWith(p))?.[1];
    out.set(id, { label: `a deleted ${kind}`, href: null });
  }
  return out;
}
