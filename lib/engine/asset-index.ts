import "server-only";
// A stored asset set as a plan sees it: every file's checksum and size, and the objects of each
// manifest (Secrets' values decrypted only to index them; the plan shows none).
import { getDb } from "../db/client";
import { assetContent } from "../assets/store";
import { indexObjects, isManifest, type AssetEntry } from "./plan-objects";

export async function loadAssetIndex(assetSetId: string): Promise<Map<string, AssetEntry>> {
  const rows = await getDb().asset.findMany({ where: { assetSetId }, select: { path: true, sha256: true, size: true } });
  const manifests = await getDb().asset.findMany({ where: { assetSetId, path: { startsWith: "manifests/" } }, select: { id: true, path: true, content: true, sensitive: true } });
  const objects = new Map(manifests.filter((m) => isManifest(m.path)).map((m) => [m.path, indexObjects(assetContent(m), m.sensitive)]));
  return new Map(rows.map((r) => [r.path, { sha256: r.sha256, size: r.size, ...(objects.has(r.path) ? { objects: objects.get(r.path) } : {}) }]));
}
