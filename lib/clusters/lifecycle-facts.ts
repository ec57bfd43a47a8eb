import "server-only";
import { getDb } from "../db/client";
import { isDeployed } from "./deployed";
import { clusterLifecycle, type Lifecycle } from "./lifecycle";

/** The cluster's lifecycle from its runs and what the live view last saw. */
export async function lifecycleOf(clusterId: string): Promise<Lifecycle> {
  const db = getDb();
  const [cluster, deployed, lastChange, nodes] = await Promise.all([
    db.cluster.findUnique({ where: { id: clusterId }, select: { activeRunId: true } }),
    isDeployed(clusterId),
    db.run.findFirst({ where: { clusterId, type: { not: "check" }, finishedAt: { not: null } }, orderBy: { finishedAt: "desc" }, select: { type: true, status: true } }),
    db.nodesSeen.findUnique({ where: { clusterId }, select: { ready: true, total: true } }),
  ]);
  const active = cluster?.activeRunId ? await db.run.findUnique({ where: { id: cluster.activeRunId }, select: { id: true, type: true } }) : null;
  return clusterLifecycle({ deployed, activeRun: active, lastChange, nodes });
}

/**
 * The hosts that are in the cluster now: a bootstrap or join installed and started their kubelet, and
 * no reset has run on them since. Join is not offered for these.
 */
export async function clusterMembers(clusterId: string): Promise<string[]> {
  const steps = await getDb().step.findMany({
    where: {
      status: "done",
      hostId: { not: null },
      OR: [
        { phase: "kubelet", run: { clusterId, type: { in: ["bootstrap", "join"] } } },
        { run: { clusterId, type: "reset" } },
      ],
    },
    select: { finishedAt: true, host: { select: { name: true } }, run: { select: { type: true } } },
    orderBy: { finishedAt: "asc" },
  });
  const member = new Map<string, boolean>();
  for (const s of steps) if (s.host) member.set(s.host.name, s.run.type !== "reset");
  return [...member].filter(([, m]) => m).map(([name]) => name);
}
