import "server-only";
// Audit rows record what they acted on by id (cl_…, run_…, as_…, usr_…): stable, and still there after
// the thing is deleted. For people, the audit page shows each as a name with a link; this resolves a
// page of ids at once (one query per kind), and says "deleted" for what no longer exists.
import { getDb } from "../db/client";
import type { AuditEventView } from "./schemas";

export type AuditTarget = { label: string; href: string | null };

export async function resolveAuditTargets(events: readonly Pick<AuditEventView, "target" | "details">[]): Promise<Map<string, AuditTarget>> {
  const ids = [...new Set(events.map((e) => e.target).filter((t): t is string => !!t))];
  const of = (prefix: string) => ids.filter((id) => id.startsWith(prefix));
  const db = getDb();
  const [clusters, runs, sets, users] = await Promise.all([
    of("cl_").length ? db.cluster.findMany({ where: { id: { in: of("cl_") } }, select: { id: true, name: true } }) : [],
    of("run_").length ? db.run.findMany({ where: { id: { in: of("run_") } }, select: { id: true, type: true, clusterId: true, cluster: { select: { name: true } } } }) : [],
    of("as_").length ? db.assetSet.findMany({ where: { id: { in: of("as_") } }, select: { id: true, version: true, clusterId: true, cluster: { select: { name: true } } } }) : [],
    of("usr_").length ? db.user.findMany({ where: { id: { in: of("usr_") } }, select: { id: true, username: true } }) : [],
  ]);
  const out = new Map<string, AuditTarget>();
  for (const c of clusters) out.set(c.id, { label: `cluster ${c.name}`, href: `/clusters/${c.id}` });
  for (const r of runs) out.set(r.id, { label: `${r.type} run of ${r.cluster.name}`, href: `/clusters/${r.clusterId}/runs/${r.id}` });
  for (const s of sets) out.set(s.id, { label: `assets v${s.version} of ${s.cluster.name}`, href: `/clusters/${s.clusterId}/assets` });
  for (const u of users) out.set(u.id, { label: `user ${u.username}`, href: "/users" });
  const kinds: Record<string, string> = { cl_: "cluster", run_: "run", as_: "asset set", usr_: "user" };
  for (const id of ids) {
    if (out.has(id)) continue;
    const kind = Object.entries(kinds).find(([p]) => id.startsWith(p))?.[1];
    out.set(id, { label: kind ? `a deleted ${kind}` : id, href: null });
  }
  return out;
}
