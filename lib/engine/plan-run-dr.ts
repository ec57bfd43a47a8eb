import "server-only";
// Planning the disaster-recovery runs from a request body: what each needs beyond the definition (the
// backup's retention, the stored snapshot to restore, the asset set) is read here and put in the plan.
import { objectUrl } from "../backups/s3";
import { getBackupOrThrow, getBackupPolicy } from "../backups/store";
import { getTargetView } from "../backups/target";
import { getDb } from "../db/client";
import { CHANGING_RUN_TYPES, runningAssetSet } from "../db/running-asset-set";
import type { ClusterDefinition } from "../cluster/definition";
import { unprocessable } from "../http/errors";
import { newId } from "../ids";
import { isDrRunType, type DrRunBody } from "./dr-schemas";
import { buildBackupPlan, buildRecoverPlan, buildRestorePlan } from "./plans-dr";
import { buildRotationPlan } from "./plans-certs";
import { APISERVER_SECRET_MANIFEST, buildKeyRotationPlan, ROTATION_STAGE_ASSETS, withSecretFile } from "./plans-encryption";
import { AUTOMATIC_RELOAD_FLAG, ENCRYPTION_CONFIG_ASSET, encryptionKeys, EncryptionRotationError, encryptionPurpose, encryptionRotation, withReadKeys } from "../assets/encryption";
import { renderRenewed, RenewError } from "../assets/renew";
import { parseSetOptions } from "../assets/set-options";
import { assetContent, assetOfSet, saveAssetSet, type AssetSetOptions } from "../assets/store";
import type { RenderedAsset } from "../assets/types";
import { loadAssetIndex } from "./asset-index";
import { assetIndexFrom } from "./plan-objects";
import { randomBytes, X509Certificate } from "node:crypto";
import { RenderOptionsError, RenderValidationError } from "../assets/types";
import { PlanError, type AssetIndex } from "./plans";
import type { RunPlan } from "./plan";
import { createRun } from "./runs";
import type { CreateRunBody } from "./schemas";

export const isDrBody = (body: CreateRunBody): body is CreateRunBody & DrRunBody => isDrRunType(body.type);

/**
 * `definition`: the cluster's stored definition (parsed, as stored, and its revision): the run keeps it
 * and runs exactly what its plan shows.
 */
export async function planDrRun(input: {
  clusterId: string;
  definition: { parsed: ClusterDefinition; json: string; revision: number };
  body: DrRunBody;
  id: string;
  createdById?: string;
  trigger?: "manual" | "schedule";
}): Promise<string> {
  const { clusterId, body, id } = input;
  const definition = input.definition.parsed;
  let plan: RunPlan;
  let assetSetId: string | undefined;
  try {
    if (body.type === "backup") {
      const policy = await getBackupPolicy({ clusterId });
      const target = await getTargetView(clusterId);
      const bucket = target ? `${objectUrl(target, `${target.prefix}${clusterId}/`)} at ${target.endpoint || `AWS S3 (${target.region})`}` : undefined;
      plan = buildBackupPlan(definition, id, { backupId: newId("bk"), trigger: input.trigger ?? "manual", retention: { keepLast: policy.keepLast, keepDays: policy.keepDays }, bucket });
    } else if (body.type === "rotate-encryption-key") {
      const rotated = await keyRotationAssetSet(clusterId);
      assetSetId = rotated.id;
      plan = buildKeyRotationPlan(definition, id, { assets: rotated.index, key: rotated.key, dropped: rotated.dropped });
    } else if (body.type === "rotate-certs") {
      const renewed = await renewAssetSet(clusterId, definition, body.leafValidityDays);
      assetSetId = renewed.id;
      plan = buildRotationPlan(definition, id, { assets: renewed.index, serials: renewed.serials });
    } else {
      const b = body.type === "restore" ? await getBackupOrThrow({ clusterId, backupId: body.backup }) : undefined;
      // The keys etcd's Secrets may be stored with: when the snapshot was taken, or now.
      const assets = await withKeysOf(clusterId, await latestAssets(clusterId), b?.createdAt ?? new Date());
      assetSetId = assets.id;
      if (b) {
        plan = buildRestorePlan(definition, id, { backup: { id: b.id, sha256: b.sha256, size: b.size, revision: b.revision, createdAt: b.createdAt.toISOString() }, assets: assets.index });
      } else plan = buildRecoverPlan(definition, id, { assets: assets.index });
    }
  } catch (err) {
    if (err instanceof PlanError || err instanceof RenewError) throw unprocessable(err.message);
    if (err instanceof RenderValidationError) throw unprocessable(`the cluster's definition does not render: ${err.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`);
    throw err;
  }
  return createRun({ id, clusterId, type: body.type, plan, createdById: input.createdById, assetSetId, definition: { json: input.definition.json, revision: input.definition.revision } });
}

/** The asset set the cluster runs (lib/db/running-asset-set.ts): restore and recover push its temporary control plane and checkpoints. */
async function latestAssets(clusterId: string): Promise<{ id: string; index: AssetIndex }> {
  const setId = await runningAssetSet(clusterId);
  if (!setId) throw unprocessable("the cluster has no rendered assets: it was never bootstrapped by Bootdeck");
  return { id: setId, index: await loadAssetIndex(setId) };
}

/**
 * A rotation's asset set: the set the cluster runs, renewed (its CAs, keys and token kept, every leaf
 * issued again) and saved as the next version; the serials the hosts must serve once it is rolled out.
 */
async function renewAssetSet(clusterId: string, definition: ClusterDefinition, leafValidityDays?: number): Promise<{ id: string; index: AssetIndex; serials: { apiserver: string; etcd: Record<string, string> } }> {
  const db = getDb();
  const setId = await runningAssetSet(clusterId);
  const set = setId ? await db.assetSet.findUnique({ where: { id: setId }, select: { id: true, version: true, options: true, assets: { select: { id: true, path: true, content: true, sensitive: true } } } }) : null;
  if (!set) throw unprocessable("the cluster has no rendered assets: it was never bootstrapped by Bootdeck");
  const previous = new Map(set.assets.map((a) => [a.path, assetContent(a)]));
  const options = parseSetOptions(set.options);
  const leaf = leafValidityDays ?? options.leafValidityDays;
  let assets: RenderedAsset[];
  try {
    ({ assets } = await renderRenewed(definition, previous, { leafValidityDays: leaf, caValidityDays: options.caValidityDays }));
  } catch (err) {
    // A definition asking for another key algorithm than the running PKI's (a CA rotation).
    if (err instanceof RenderOptionsError) throw unprocessable(err.message);
    throw err;
  }
  const saved = await saveAssetSet({
    clusterId,
    assets,
    options: { ...options, leafValidityDays: leaf, kubernetesVersion: definition.spec.kubernetes.version, keptPkiOf: set.version },
  });
  const content = new Map(assets.map((a) => [a.path, a.content]));
  const serial = (path: string) => new X509Certificate(content.get(path) ?? "").serialNumber;
  return {
    id: saved.id,
    index: assetIndexFrom(assets),
    serials: { apiserver: serial("tls/apiserver.crt"), etcd: Object.fromEntries(definition.spec.hosts.filter((h) => h.role === "master").map((m) => [m.name, serial(`tls/etcd/server-${m.name}.crt`)])) },
  };
}

/**
 * A restore or recovery reads with the keys etcd's Secrets may be stored with at `at` (the snapshot's
 * time, or now): a snapshot taken before a key rotation holds Secrets stored with a key it dropped,
 * and a rotation that had not finished leaves Secrets under both keys. When the running set's
 * configuration lacks one of them, the run gets a set of its own: the running one with those keys
 * added to read with (writes unchanged). A key dropped before then is not brought back: a rotation
 * may have been made because it leaked. The next key rotation drops them again.
 */
async function withKeysOf(clusterId: string, running: { id: string; index: AssetIndex }, at: Date): Promise<{ id: string; index: AssetIndex }> {
  const config = await assetOfSet({ setId: running.id, path: ENCRYPTION_CONFIG_ASSET });
  if (config === null) return running;
  const own = new Set(encryptionKeys(config).map((k) => k.name));
  const retired = (await keysAt(clusterId, at)).filter((k) => !own.has(k.name));
  if (!retired.length) return running;
  const merged = withReadKeys(config, retired);
  const set = await setAsRendered(running.id);
  if (!set) return running;
  const next = withEncryptionConfig(set.assets, merged, `${encryptionPurpose(merged)}; also reads with ${[...new Set(retired.map((k) => k.name))].join(", ")}, which etcd's Secrets may be stored with`);
  const saved = await saveAssetSet({ clusterId, assets: next, options: { ...set.options, keptPkiOf: set.version } });
  return { id: saved.id, index: assetIndexFrom(next) };
}

/** A set's assets, decrypted, without a key rotation's stages: a run that copies the set brings its own or needs none. */
async function setAsRendered(setId: string): Promise<{ version: number; options: AssetSetOptions; assets: RenderedAsset[] } | null> {
  const set = await getDb().assetSet.findUnique({ where: { id: setId }, select: { version: true, options: true, assets: { select: { id: true, path: true, content: true, sensitive: true, mode: true, purpose: true } } } });
  if (!set) return null;
  const stages = Object.values(ROTATION_STAGE_ASSETS) as string[];
  const assets = set.assets.filter((a) => !stages.includes(a.path)).map((a) => ({ path: a.path, content: assetContent(a), mode: a.mode, sensitive: a.sensitive, purpose: a.purpose }));
  return { version: set.version, options: parseSetOptions(set.options), assets };
}

/** The assets with another encryption configuration: the masters' file and, self-hosted, the API server's Secret. */
function withEncryptionConfig(assets: readonly RenderedAsset[], config: string, purpose: string): RenderedAsset[] {
  return assets.map((a) =>
    a.path === ENCRYPTION_CONFIG_ASSET ? { ...a, content: config, purpose } : a.path === APISERVER_SECRET_MANIFEST ? { ...a, content: withSecretFile(a.content, ENCRYPTION_CONFIG_ASSET, config) } : a,
  );
}

/**
 * The keys the cluster's API servers read with at `at`: those of the set of the last run that changed
 * hosts and had started by then — with a key rotation's two stages when that run is a rotation that
 * had not succeeded by then (its API servers on any of its configurations).
 */
async function keysAt(clusterId: string, at: Date): Promise<{ name: string; secret: string }[]> {
  const run = await getDb().run.findFirst({
    where: { clusterId, type: { in: CHANGING_RUN_TYPES }, assetSetId: { not: null }, startedAt: { not: null, lte: at } },
    orderBy: { startedAt: "desc" },
    select: { type: true, status: true, finishedAt: true, assetSetId: true },
  });
  if (!run) return [];
  const settled = run.type !== "rotate-encryption-key" || (run.status === "succeeded" && run.finishedAt !== null && run.finishedAt <= at);
  const rows = await getDb().asset.findMany({ where: { assetSetId: run.assetSetId!, path: { in: settled ? [ENCRYPTION_CONFIG_ASSET] : [ENCRYPTION_CONFIG_ASSET, ...Object.values(ROTATION_STAGE_ASSETS)] } }, select: { id: true, content: true, sensitive: true } });
  return rows.flatMap((r) => encryptionKeys(assetContent(r)));
}

/** The name of every encryption key the cluster's asset sets hold (their configurations and a rotation's stages). */
async function keyNamesEver(clusterId: string): Promise<string[]> {
  const rows = await getDb().asset.findMany({ where: { assetSet: { clusterId }, path: { in: [ENCRYPTION_CONFIG_ASSET, ...Object.values(ROTATION_STAGE_ASSETS)] } }, select: { id: true, content: true, sensitive: true } });
  return rows.flatMap((r) => encryptionKeys(assetContent(r)).map((k) => k.name));
}

/**
 * A key rotation's asset set: the set the cluster runs with its encryption configuration replaced by
 * the final one (the new key alone; the API server's Secret carries it too), and the two configurations
 * rolled out on the way; saved as the next version. Nothing else changes.
 */
async function keyRotationAssetSet(clusterId: string): Promise<{ id: string; index: AssetIndex; key: string; dropped: string[] }> {
  const setId = await runningAssetSet(clusterId);
  const set = setId ? await setAsRendered(setId) : null;
  if (!set) throw unprocessable("the cluster has no rendered assets: it was never bootstrapped by Bootdeck");
  const assets = set.assets;
  const current = assets.find((a) => a.path === ENCRYPTION_CONFIG_ASSET)?.content;
  if (current === undefined) throw unprocessable(`the cluster's asset set v${set.version} has no encryption configuration (it was rendered before Bootdeck encrypted Secrets): an upgrade run renders one first`);
  // The run relies on every API server reading its configuration again by itself.
  const unreloaded = assets.filter((a) => a.content.includes("--encryption-provider-config=") && !a.content.includes(`${AUTOMATIC_RELOAD_FLAG}=true`)).map((a) => a.path);
  if (unreloaded.length)
    throw unprocessable(`the cluster's API servers were rendered without ${AUTOMATIC_RELOAD_FLAG} (asset set v${set.version}: ${unreloaded.join(", ")}), so they would not read a new key: an upgrade run rolls them onto a current render first`);
  let rotation: ReturnType<typeof encryptionRotation>;
  try {
    rotation = encryptionRotation(current, { random: randomBytes, now: new Date(), taken: await keyNamesEver(clusterId) });
  } catch (err) {
    if (err instanceof EncryptionRotationError) throw unprocessable(err.message);
    throw err;
  }
  const next = withEncryptionConfig(assets, rotation.final, encryptionPurpose(rotation.final));
  const stage = (path: string, content: string, purpose: string): RenderedAsset => ({ path, content, mode: 0o600, sensitive: true, purpose });
  next.push(
    stage(ROTATION_STAGE_ASSETS.add, rotation.add, `encryption key rotation, first configuration: ${rotation.key} added to read with; writes keep ${rotation.dropped.join(", ")}`),
    stage(ROTATION_STAGE_ASSETS.write, rotation.write, `encryption key rotation, second configuration: writes use ${rotation.key}; ${rotation.dropped.join(", ")} kept to read with`),
  );
  const saved = await saveAssetSet({ clusterId, assets: next, options: { ...set.options, keptPkiOf: set.version } });
  return { id: saved.id, index: assetIndexFrom(next), key: rotation.key, dropped: rotation.dropped };
}
