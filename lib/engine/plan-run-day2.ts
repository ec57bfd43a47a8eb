import "server-only";
// Planning the day-2 runs (join with masters, remove, upgrade). Each renders the definition it leads
// to keeping the PKI of the asset set the cluster runs (so nothing running changes but what the run is
// for), builds the plan from that render, and only then saves the set and the run.
import { NothingToKeepError } from "../assets/keep";
import { renderKeepingPki, saveAssetSet } from "../assets/store";
import { loadAssetIndex } from "./asset-index";
import { assetIndexFrom } from "./plan-objects";
import { RenderOptionsError, RenderValidationError } from "../assets/types";
import type { ClusterDefinition } from "../cluster/definition";
import { validateClusterDefinition } from "../cluster/definition";
import { effectiveHost } from "../cluster/derive";
import { capabilitiesFor } from "../assets/capabilities";
import { getDb } from "../db/client";
import { runningAssetSet } from "../db/running-asset-set";
import { unprocessable } from "../http/errors";
import { upgradeRefusal } from "./day2/skew";
import { kubeletFiles, missingAssets, runtimeFiles } from "./host-files";
import type { RunPlan } from "./plan";
import { buildJoinPlan, PlanError, type AssetIndex } from "./plans";
import { buildAddNodesPlan, buildRemovePlan, buildUpgradePlan, DEFAULT_DRAIN_TIMEOUT_MS } from "./plans-day2";
import { endpointFiles } from "./plans-endpoint";
import { acceptRunWarnings, createRun } from "./runs";
import type { CreateRunBody } from "./schemas";

export type Day2Body = Extract<CreateRunBody, { type: "join" | "remove" | "upgrade" }>;
export const isDay2Body = (body: CreateRunBody): body is Day2Body => body.type === "join" || body.type === "remove" || body.type === "upgrade";

const indexOf = (setId: string): Promise<AssetIndex> => loadAssetIndex(setId);

function validated(def: unknown, why: string): ClusterDefinition {
  const v = validateClusterDefinition(def);
  if (!v.ok) throw new PlanError(`${why}, the definition would be invalid: ${v.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
  return v.definition;
}

export async function planDay2Run({ clusterId, body, id, createdById, by }: { clusterId: string; body: Day2Body; id: string; createdById?: string; by?: string }): Promise<string> {
  const cluster = await getDb().cluster.findUniqueOrThrow({ where: { id: clusterId }, select: { definition: true } });
  const def = JSON.parse(cluster.definition) as ClusterDefinition;
  const fromSetId = await runningAssetSet(clusterId);
  if (!fromSetId) throw unprocessable("this cluster has no rendered assets: bootstrap it first");
  try {
    let plan: RunPlan;
    let target: { definition: ClusterDefinition; joining?: string[] } | undefined;
    if (body.type === "join") {
      const masters = def.spec.hosts.filter((h) => body.hosts.includes(h.name) && h.role === "master").map((h) => h.name);
      const index = await indexOf(fromSetId);
      const caps = capabilitiesFor(def.spec.kubernetes.version);
      const needed = def.spec.hosts
        .filter((h) => body.hosts.includes(h.name))
        .flatMap((h) => kubeletFiles(caps, { name: h.name, role: effectiveHost(def, h).role }));
      needed.push(...runtimeFiles(def, [...index.keys()]));
      // Masters always get a render of their own: their etcd pods join the running cluster.
      if (masters.length || missingAssets([...needed, ...endpointFiles(def)], new Set(index.keys())).length) target = { definition: def, joining: masters };
      else {
        plan = buildJoinPlan(def, id, index, body.hosts);
        return await save(plan, fromSetId);
      }
    } else if (body.type === "remove") {
      target = { definition: validated({ ...def, spec: { ...def.spec, hosts: def.spec.hosts.filter((h) => !body.hosts.includes(h.name)) } }, `without ${body.hosts.join(", ")}`) };
    } else {
      const refusal = upgradeRefusal(def.spec.kubernetes.version, body.version);
      if (refusal) throw new PlanError(refusal);
      target = { definition: validated({ ...def, spec: { ...def.spec, kubernetes: { ...def.spec.kubernetes, version: body.version } } }, `on ${body.version}`) };
    }
    const rendered = await renderKeepingPki({ clusterId, fromSetId, definition: target.definition, joiningMembers: target.joining });
    const index = assetIndexFrom(rendered.assets);
    if (body.type === "join")
      plan = target.joining?.length ? buildAddNodesPlan(def, id, index, body.hosts) : buildJoinPlan(def, id, index, body.hosts);
    else if (body.type === "remove")
      plan = buildRemovePlan(def, id, index, body.hosts, { reset: body.reset !== false, drainTimeoutMs: (body.drainTimeoutSeconds ?? DEFAULT_DRAIN_TIMEOUT_MS / 1000) * 1000 });
    else plan = buildUpgradePlan(def, id, index, { to: body.version, batches: body.batches, drainTimeoutMs: body.drainTimeoutSeconds ? body.drainTimeoutSeconds * 1000 : undefined });
    const set = await saveAssetSet({ clusterId, assets: rendered.assets, options: rendered.options });
    return await save(plan, set.id);
  } catch (err) {
    if (err instanceof PlanError || err instanceof NothingToKeepError) throw unprocessable(err.message);
    if (err instanceof RenderValidationError || err instanceof RenderOptionsError) throw unprocessable(err.message);
    throw err;
  }

  async function save(plan: RunPlan, assetSetId: string): Promise<string> {
    const runId = await createRun({ id, clusterId, type: body.type, plan, createdById, assetSetId });
    if (body.type === "join" && body.acceptWarnings) await acceptRunWarnings({ runId, by: by ?? "unknown" });
    return runId;
  }
}
