import "server-only";
// Per-cluster roles: a group of the identity provider can be mapped to a role on one cluster only,
// which raises (never lowers) its members' installation-wide role there. The route funnel and the
// cluster pages ask here for the role that holds for the cluster a request is about.
import { getDb } from "../db/client";
import { roleForGroups } from "./access-schemas";
import type { Role } from "./roles";
import type { SessionUser } from "./sessions";

const rank: Record<Role, number> = { support: 1, lead: 2, admin: 3 };

/** The user's role on one cluster: the installation role, or higher where a per-cluster mapping says so. */
export async function roleOnCluster(user: Pick<SessionUser, "role" | "provider" | "groups">, clusterId: string): Promise<Role> {
  if (user.provider !== "oidc" || user.groups.length === 0) return user.role;
  const rows = await getDb().groupRole.findMany({ where: { clusterId, group: { in: user.groups } }, select: { group: true, role: true, clusterId: true } });
  const scoped = roleForGroups(user.groups, rows.map((r) => ({ group: r.group, role: r.role as Role, clusterId: r.clusterId })), clusterId);
  return scoped && rank[scoped] > rank[user.role] ? scoped : user.role;
}

/** The cluster an API path is about: /api/clusters/<id>/… directly, /api/runs/<id>/… through its run. */
export async function clusterOfApiPath(pathname: string): Promise<string | undefined> {
  const cluster = /^\/api\/clusters\/(cl_[A-Za-z0-9_-]{16})(?:\/|$)/.exec(pathname);
  if (cluster) return cluster[1];
  const run = /^\/api\/runs\/(run_[A-Za-z0-9_-]{16})(?:\/|$)/.exec(pathname);
  if (run) return (await getDb().run.findUnique({ where: { id: run[1] }, select: { clusterId: true } }))?.clusterId;
  return undefined;
}

/** The user as they act on the cluster the request is about (their role raised by per-cluster mappings). */
export async function userForRequest(user: SessionUser, url: string): Promise<SessionUser> {
  if (user.provider !== "oidc" || user.groups.length === 0) return user;
  const clusterId = await clusterOfApiPath(new URL(url).pathname);
  return clusterId ? { ...user, role: await roleOnCluster(user, clusterId) } : user;
}
