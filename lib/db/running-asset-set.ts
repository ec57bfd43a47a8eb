import "server-only";
// Which asset set a cluster runs, read from its runs and asset sets alone: the day-2 and recovery
// planners keep its PKI, a backup exports it, a definition may not change its key algorithm.
import { getDb } from "./client";

/**
 * Run types whose asset set is what the cluster runs once they ran (a planned or check run proves
 * nothing): a certificate rotation pushes a renewed set, a key rotation a new encryption
 * configuration; a restore or recovery the set it ran with.
 */
export const CHANGING_RUN_TYPES = ["bootstrap", "join", "remove", "upgrade", "restore", "recover", "rotate-certs", "rotate-encryption-key"];

/**
 * The asset set the cluster runs: the one of its newest run that changed hosts (the set a bootstrap or
 * day-2 run pushed), else its newest set. A set rendered later with a new PKI (the Assets tab) is not
 * it, and must not be kept from.
 */
export async function runningAssetSet(clusterId: string): Promise<string | undefined> {
  const db = getDb();
  const run = await db.run.findFirst({ where: { clusterId, type: { in: CHANGING_RUN_TYPES }, status: { not: "planned" }, assetSetId: { not: null } }, orderBy: { createdAt: "desc" }, select: { assetSetId: true } });
  if (run?.assetSetId) return run.assetSetId;
  return (await db.assetSet.findFirst({ where: { clusterId }, orderBy: { version: "desc" }, select: { id: true } }))?.id;
}
