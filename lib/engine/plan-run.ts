import "server-only";
import { awaitRunningRender } from "../clusters/render-jobs";
import { parseSetOptions } from "../assets/set-options";
import { clusterEncryptionAlgorithm } from "../assets/store";
import { renderAndSaveAssetSet } from "../clusters/render-assets";
import type { ClusterDefinition } from "../cluster/definition";
import { getDb } from "../db/client";
import { AppError, unprocessable, notFound } from "../http/errors";
import { newId } from "../ids";
import type { RunPlan } from "./plan";
import { buildBootstrapPlan, buildCheckPlan, buildResetPlan, PlanError, type AssetIndex } from "./plans";
import { loadAssetIndex } from "./asset-index";
import { acceptRunWarnings, createRun, requestCancel } from "./runs";
import { isDay2Body, planDay2Run } from "./plan-run-day2";
import type { CreateRunBody } from "./schemas";
import { isDrBody, planDrRun } from "./plan-run-dr";

/**
 * The cluster's latest asset set for its version and key algorithm; a bootstrap with none renders one
 * first (the cluster's algorithm, default validity).
 */
async function latestAssets(clusterId: string, renderIfNone: boolean, definition: ClusterDefinition): Promise<{ id: string; index: AssetIndex } | undefined> {
  const db = getDb();
  // A render under way (ahead, when the cluster was saved) is waited for, not repeated.
  if (renderIfNone) await awaitRunningRender(clusterId);
  const version = definition.spec.kubernetes.version;
  const algorithm = await clusterEncryptionAlgorithm({ clusterId, definition });
  // An upgrade renders the next version's set before the definition says that version: skip such sets.
  // A set of another algorithm was rendered before the definition chose this one (never bootstrapped:
  // a running cluster's definition cannot change it, lib/clusters/repository.ts).
  const recent = await db.assetSet.findMany({ where: { clusterId }, orderBy: { version: "desc" }, take: 20, select: { id: true, options: true } });
  let set = recent.find((s) => {
    const o = parseSetOptions(s.options);
    return [undefined, version].includes(o.kubernetesVersion) && (!renderIfNone || o.encryptionAlgorithm === algorithm);
  }) as { id: string } | undefined;
  if (!set && renderIfNone) set = { id: (await renderAndSaveAssetSet({ clusterId, options: {} })).id };
  if (!set) return undefined;
  return { id: set.id, index: await loadAssetIndex(set.id) };
}

/** Plans a run for a cluster from its stored definition; the run waits for confirmation and keeps that definition. */
export async function planRun({ clusterId, body, createdById, by }: { clusterId: string; body: CreateRunBody; createdById?: string; by?: string }): Promise<string> {
  const cluster = await getDb().cluster.findUnique({ where: { id: clusterId }, select: { definition: true, revision: true } });
  if (!cluster) throw notFound("Cluster");
  const definition = JSON.parse(cluster.definition) as ClusterDefinition;
  const id = newId("run");
  if (isDay2Body(body) || body.type === "rotate-certs" || body.type === "rotate-encryption-key") await refuseDuringKeyRotation(clusterId);
  // Joining, removing and upgrading render for the running cluster keeping its PKI (plan-run-day2.ts).
  if (isDay2Body(body)) return planDay2Run({ clusterId, body, id, createdById, by });
  // Backups, restores, recoveries and certificate rotations (plan-run-dr.ts).
  if (isDrBody(body)) return planDrRun({ clusterId, definition: { parsed: definition, json: cluster.definition, revision: cluster.revision }, body, id, createdById });
  const assets = body.type === "check" ? undefined : await latestAssets(clusterId, body.type !== "reset", definition);
  // A second "Bootstrap cluster" opens the plan already waiting for review when nothing it was made
  // from changed (the definition's revision, the asset set), rather than a second plan beside it.
  if (body.type === "bootstrap") {
    const open = await getDb().run.findFirst({ where: { clusterId, type: "bootstrap", status: "planned", definitionRevision: cluster.revision, assetSetId: assets?.id ?? null }, orderBy: { createdAt: "desc" }, select: { id: true } });
    if (open) {
      if (body.acceptWarnings) await acceptRunWarnings({ runId: open.id, by: by ?? "unknown" });
      return open.id;
    }
  }
  let plan: RunPlan;
  try {
    if (body.type === "check") plan = buildCheckPlan(definition);
    else if (body.type === "bootstrap") plan = buildBootstrapPlan(definition, id, assets?.index ?? new Map());
    else plan = buildResetPlan(definition, id, [...(assets?.index.keys() ?? [])], body.hosts);
  } catch (err) {
    if (err instanceof PlanError) throw unprocessable(err.message);
    throw err;
  }
  // The run keeps this definition (and its revision): it runs exactly what the plan shows.
  const runId = await createRun({ id, clusterId, type: body.type, plan, createdById, assetSetId: assets?.id, definition: { json: cluster.definition, revision: cluster.revision } });
  if ("acceptWarnings" in body && body.acceptWarnings) await acceptRunWarnings({ runId, by: by ?? "unknown" });
  // Older bootstrap plans of this cluster could only be stale now (made from another revision or asset
  // set): they end, so the runs list does not keep them "planned" for ever.
  if (body.type === "bootstrap") {
    const older = await getDb().run.findMany({ where: { clusterId, type: "bootstrap", status: "planned", id: { not: runId } }, select: { id: true } });
    for (const r of older) {
      await requestCancel({ runId: r.id, by: `the newer plan ${runId}` }).catch((err: unknown) => {
        // One started meanwhile is no longer planned: that refusal (409) leaves it alone.
        if (!(err instanceof AppError && err.status === 409)) throw err;
      });
    }
  }
  return runId;
}

/**
 * A key rotation that started and did not succeed leaves the API servers with any of its three
 * configurations, and its asset set says the last: a run that rendered from that set (or a new
 * rotation planned from it) could push a configuration without the key Secrets are stored with. Such
 * runs wait until the rotation is retried and succeeds; restore and recover do not (they bring a
 * control plane back, and read with every key the cluster had: plan-run-dr.ts).
 */
async function refuseDuringKeyRotation(clusterId: string): Promise<void> {
  const last = await getDb().run.findFirst({ where: { clusterId, type: "rotate-encryption-key", startedAt: { not: null } }, orderBy: { createdAt: "desc" }, select: { id: true, status: true } });
  if (!last || last.status === "succeeded") return;
  throw unprocessable(
    last.status === "running"
      ? `the encryption key rotation ${last.id} is under way: plan this once it has finished`
      : `the encryption key rotation ${last.id} stopped before it finished (${last.status}), so the API servers may run any of its configurations: retry it (on its run page) until it succeeds, then plan this`,
  );
}
