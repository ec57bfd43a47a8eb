import "server-only";
// The check a cluster-scoped read or write starts with when it needs nothing else of the cluster; a
// module of its own, so those callers do not load the repository's secrets and SSH key handling.
import { getDb } from "../db/client";
import { notFound } from "../http/errors";

/** Throws 404 "Cluster not found" unless the cluster exists. */
export async function clusterMustExist(clusterId: string): Promise<void> {
  if (!(await getDb().cluster.findUnique({ where: { id: clusterId }, select: { id: true } }))) throw notFound("Cluster");
}
