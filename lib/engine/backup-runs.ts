import "server-only";
// Starting a backup run now (the cluster page's "Back up now", `bootdeck backup create`, the schedule).
// A backup waits for nothing: it is planned and started at once, unless another run holds the cluster.
import type { ClusterDefinition } from "../cluster/definition";
import { getDb } from "../db/client";
import { conflict, notFound } from "../http/errors";
import { newId } from "../ids";
import { planDrRun } from "./plan-run-dr";
import { startRun } from "./runs";

export async function startBackupRun({ clusterId, createdById, trigger }: { clusterId: string; createdById?: string; trigger: "manual" | "schedule" }): Promise<string> {
  const db = getDb();
  const cluster = await db.cluster.findUnique({ where: { id: clusterId }, select: { definition: true, revision: true, activeRunId: true } });
  if (!cluster) throw notFound("Cluster");
  if (cluster.activeRunId) throw conflict(`Another run (${cluster.activeRunId}) is in progress on this cluster; the backup can start once it ends`);
  const id = newId("run");
  const runId = await planDrRun({ clusterId, definition: { parsed: JSON.parse(cluster.definition) as ClusterDefinition, json: cluster.definition, revision: cluster.revision }, body: { type: "backup" }, id, createdById, trigger });
  try {
    await startRun({ runId });
  } catch (err) {
    // Another run took the cluster meanwhile: this plan will never start.
    await db.run.updateMany({ where: { id: runId, status: "planned" }, data: { status: "cancelled", finishedAt: new Date(), summary: JSON.stringify({ message: "not started: another run held the cluster" }) } });
    throw err;
  }
  return runId;
}
