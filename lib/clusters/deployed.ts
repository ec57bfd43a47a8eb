import "server-only";
import { getDb } from "../db/client";

/**
 * Clusters that run on their hosts: a run other than a check succeeded on them (a bootstrap, or a
 * restore onto a new dashboard), or the live view has seen their nodes (a cluster imported as
 * cluster.yaml into this dashboard after another one made it). Only these have certificates that can
 * expire and take day-two actions; a cluster that was only planned or rendered has nothing on any host.
 */
const DEPLOYING_RUN = { status: "succeeded", type: { not: "check" } };
const NODES_SEEN = { total: { gt: 0 } };

export async function deployedClusterIds(): Promise<Set<string>> {
  const [runs, seen] = await Promise.all([getDb().run.groupBy({ by: ["clusterId"], where: DEPLOYING_RUN }), getDb().nodesSeen.findMany({ where: NODES_SEEN, select: { clusterId: true } })]);
  return new Set([...runs, ...seen].map((r) => r.clusterId));
}

/** The same rule for one cluster. */
export async function isDeployed(clusterId: string): Promise<boolean> {
  const [runs, seen] = await Promise.all([getDb().run.count({ where: { clusterId, ...DEPLOYING_RUN } }), getDb().nodesSeen.count({ where: { clusterId, ...NODES_SEEN } })]);
  return runs + seen > 0;
}
