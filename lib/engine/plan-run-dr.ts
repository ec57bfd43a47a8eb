import "server-only";
// Planning the disaster-recovery runs from a request body: what each needs beyond the definition (the
// backup's retention, the stored snapshot to restore, the asset set) is read here and put in the plan.
import { getBackupPolicy } from "../backups/store";
import type { ClusterDefinition } from "../cluster/definition";
import { unprocessable } from "../http/errors";
import { newId } from "../ids";
import { isDrRunType, type DrRunBody } from "./dr-schemas";
import { buildBackupPlan } from "./plans-dr";
import { PlanError } from "./plans";
import type { RunPlan } from "./plan";
import { createRun } from "./runs";
import type { CreateRunBody } from "./schemas";

export const isDrBody = (body: CreateRunBody): body is CreateRunBody & DrRunBody => isDrRunType(body.type);

export async function planDrRun(input: { clusterId: string; definition: ClusterDefinition; body: DrRunBody; id: string; createdById?: string; trigger?: "manual" | "schedule" }): Promise<string> {
  const { clusterId, definition, body, id } = input;
  let plan: RunPlan;
  try {
    const policy = await getBackupPolicy({ clusterId });
    plan = buildBackupPlan(definition, id, { backupId: newId("bk"), trigger: input.trigger ?? "manual", retention: { keepLast: policy.keepLast, keepDays: policy.keepDays } });
  } catch (err) {
    if (err instanceof PlanError) throw unprocessable(err.message);
    throw err;
  }
  return createRun({ id, clusterId, type: body.type, plan, createdById: input.createdById });
}
