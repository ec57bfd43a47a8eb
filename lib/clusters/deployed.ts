import "server-only";
import { getDb } from "../db/client";

/**
 * Clusters whose hosts were given their assets: a run other than a check succeeded on them (a
 * bootstrap, or a restore onto a new dashboard). Only these have certificates that can expire; a
 * cluster that was only planned or rendered has none on any host yet.
 */
const DEPLOYING_RUN = { status: "succeeded", type: { not: "check" } };

export async function deployedClusterIds(): Promise<Set<string>> {
  const rows = await getDb().run.groupBy({ by: ["clusterId"], where: DEPLOYING_RUN });
  return new Set(rows.map((r) => r.clusterId));
}

/** The same rule for one cluster. */
export async function isDeployed(clusterId: string): Promise<boolean> {
  return (await getDb().run.count({ where: { clusterId, ...DEPLOYING_RUN } })) > 0;
}
