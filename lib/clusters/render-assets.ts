import "server-only";
// A render of the cluster's stored definition, saved as its next asset set: the Assets tab's render
// and a bootstrap's when the cluster has none. It reads the stored cluster: lib/assets never does.
import { renderAssets } from "../assets/render";
import { clusterEncryptionAlgorithm, saveAssetSet } from "../assets/store";
import type { RenderOptions } from "../assets/types";
import { getClusterOrThrow } from "./repository";

/** Renders the cluster's stored definition and saves the result as its next asset set. */
export async function renderAndSaveAssetSet(input: {
  clusterId: string;
  options: Pick<RenderOptions, "caValidityDays" | "leafValidityDays" | "importedCa" | "onProgress">;
}): Promise<{ id: string; version: number; fileCount: number }> {
  const cluster = await getClusterOrThrow({ id: input.clusterId });
  const encryptionAlgorithm = await clusterEncryptionAlgorithm({ clusterId: input.clusterId, definition: cluster.definition });
  const assets = await renderAssets(cluster.definition, { ...input.options, encryptionAlgorithm });
  const saved = await saveAssetSet({
    clusterId: input.clusterId,
    assets,
    options: {
      encryptionAlgorithm,
      caValidityDays: input.options.caValidityDays ?? 3650,
      leafValidityDays: input.options.leafValidityDays ?? 365,
      importedCa: input.options.importedCa !== undefined,
      kubernetesVersion: cluster.definition.spec.kubernetes.version,
    },
  });
  return { ...saved, fileCount: assets.length };
}
