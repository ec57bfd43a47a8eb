import "server-only";
// Planning the disaster-recovery runs from a request body: what each needs beyond the definition (the
// backup's retention, the stored snapshot to restore, the asset set) is read here and put in the plan.
import { getBackupOrThrow, getBackupPolicy } from "../backups/store";
import { getDb } from "../db/client";
import type { ClusterDefinition } from "../cluster/definition";
import { unprocessable } from "../http/errors";
import { newId } from "../ids";
import { isDrRunType, type DrRunBody } from "./dr-schemas";
import { buildBackupPlan, buildRecoverPlan, buildRestorePlan } from "./plans-dr";
import { PlanError, type AssetIndex } from "./plans";
import type { RunPlan } from "./plan";
import { createRun } from "./runs";
import type { CreateRunBody } from "./schemas";

export const isDrBody = (body: CreateRunBody): body is CreateRunBody & DrRunBody => isDrRunType(body.type);

export async function planDrRun(input: { clusterId: string; definition: ClusterDefinition; body: DrRunBody; id: string; createdById?: string; trigger?: "manual" | "schedule" }): Promise<string> {
  const { clusterId, definition, body, id } = input;
  let plan: RunPlan;
  let assetSetId: string | undefined;
  try {
    if (body.type === "backup") {
      const policy = await getBackupPolicy({ clusterId });
      plan = buildBackupPlan(definition, id, { backupId: newId("bk"), trigger: input.trigger ?? "manual", retention: { keepLast: policy.keepLast, keepDays: policy.keepDays } });
    } else {
      const assets = await latestAssets(clusterId);
      assetSetId = assets.id;
      if (body.type === "restore") {
        const b = await getBackupOrThrow({ clusterId, backupId: body.backup });
        plan = buildRestorePlan(definition, id, { backup: { id: b.id, sha256: b.sha256, size: b.size, revision: b.revision, createdAt: b.createdAt.toISOString() }, assets: assets.index });
      } else plan = buildRecoverPlan(definition, id, { assets: assets.index });
    }
  } catch (err) {
    if (err instanceof PlanError) throw unprocessable(err.message);
    throw err;
  }
  return createRun({ id, clusterId, type: body.type, plan, createdById: input.createdById, assetSetId });
}

/** The asset set the cluster runs with (the newest): restore and recover push its temporary control plane and checkpoints. */
async function latestAssets(clusterId: string): Promise<{ id: string; index: AssetIndex }> {
  const db = getDb();
  const set = await db.assetSet.findFirst({ where: { clusterId }, orderBy: { version: "desc" }, select: { id: true } });
  if (!set) throw unprocessable("the cluster has no rendered assets: it was never bootstrapped by Bootdeck");
  const rows = await db.asset.findMany({ where: { assetSetId: set.id }, select: { path: true, sha256: true, size: true } });
  return { id: set.id, index: new Map(rows.map((r) => [r.path, { sha256: r.sha256, size: r.size }])) };
}
