import "server-only";
import type { ClusterDefinition } from "../cluster/definition";
import { getDb } from "../db/client";
import { notFound } from "../http/errors";
import { buildCheckPlan } from "./plans";
import { createRun } from "./runs";

/** Plans a run for a cluster from its stored definition; the run waits for confirmation. */
export async function planRun({ clusterId, type, createdById }: { clusterId: string; type: "check"; createdById?: string }): Promise<string> {
  const cluster = await getDb().cluster.findUnique({ where: { id: clusterId }, select: { definition: true } });
  if (!cluster) throw notFound("Cluster");
  const definition = JSON.parse(cluster.definition) as ClusterDefinition;
  const plan = buildCheckPlan(definition);
  return createRun({ clusterId, type, plan, createdById });
}
