import "server-only";
// The check every cluster-scoped read and write starts with, apart from the repository (which the
// engine's modules may not import without a cycle).
import { getDb } from "../db/client";
import { notFound } from "../http/errors";

/** Throws 404 "Cluster not found" unless the cluster exists. */
export async function clusterMustExist(clusterId: string): Promise<void> {
  if (!(await getDb().cluster.findUnique({ where: { id: clusterId }, select: { id: true } }))) throw notFound("Cluster");
}
