// Shared by the scripts that need a real cluster: a fresh lab bootstrapped by the engine itself, on a
// throw-away database, and a way to run any run type on it to the end. Needs root and the lab's cache.
import { labClusterDefinition, labClusterSecrets } from "../lab/cluster-yaml";
import { labDown, labUp } from "../lab/lab";
import type { LabState } from "../lab/state";
import { validateClusterDefinition, type ClusterDefinitionInput } from "../lib/cluster/definition";
import { createCluster } from "../lib/clusters/repository";
import { getDb } from "../lib/db/client";
import { listRunEvents, type StoredRunEvent } from "../lib/engine/events";
import { planRun } from "../lib/engine/plan-run";
import { executeRun } from "../lib/engine/runner";
import { startRun } from "../lib/engine/runs";
import type { CreateRunBody } from "../lib/engine/schemas";
import { createTempDb } from "../test/temp-db";

export type EngineRun = { runId: string; ms: number; events: StoredRunEvent[] };

export type LabCluster = {
  lab: LabState;
  clusterId: string;
  /** Plans, starts and executes a run; throws with every failed step's error unless it succeeds. */
  run(body: CreateRunBody): Promise<EngineRun>;
  /** Closes the database and, unless `keep`, takes the lab down. */
  close(keep: boolean): Promise<void>;
};

export async function labCluster(o: { lab: string; masters: number; workers: number; controlPlane: "self-hosted" | "static"; version?: string; log?: (line: string) => void }): Promise<LabCluster> {
  labDown(o.lab, () => undefined);
  const lab = await labUp({ name: o.lab, masters: o.masters, workers: o.workers, ...(o.version ? { kubernetesVersions: [o.version] } : {}), log: o.log ?? (() => undefined) });
  const db = await createTempDb();
  const input = labClusterDefinition(lab, o.lab, o.version).definition as ClusterDefinitionInput;
  input.spec.kubernetes.controlPlane = o.controlPlane;
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const { id: clusterId } = await createCluster({ definition: v.definition, secrets: labClusterSecrets(lab) });
  const run = async (body: CreateRunBody): Promise<EngineRun> => {
    const runId = await planRun({ clusterId, body, by: "bench" });
    await startRun({ runId });
    const t = Date.now();
    const status = await executeRun(runId, { workerId: "bench" });
    if (status !== "succeeded") {
      const failed = await getDb().step.findMany({ where: { runId, status: "failed" }, select: { key: true, error: true } });
      throw new Error(`${body.type} ${status}: ${failed.map((f) => `${f.key}: ${f.error}`).join("; ")}`);
    }
    return { runId, ms: Date.now() - t, events: await listRunEvents({ runId, limit: 1_000_000 }) };
  };
  return {
    lab,
    clusterId,
    run,
    close: async (keep) => {
      await db.cleanup();
      if (!keep) labDown(o.lab, () => undefined);
    },
  };
}
