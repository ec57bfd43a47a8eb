import "server-only";
// Asset sets in the database: each render of a cluster is a new numbered version. Sensitive contents
// are sealed with the master key (lib/secrets/cipher); the checksum is always of the plain content,
// so two renders compare without decrypting.
import { createHash, X509Certificate } from "node:crypto";
import { DEFAULT_ENCRYPTION_ALGORITHM, type ClusterDefinition, type EncryptionAlgorithm } from "../cluster/definition";
import { getDb } from "../db/client";
import { notFound } from "../http/errors";
import { newId } from "../ids";
import { decryptSecret, encryptSecret, secretContexts } from "../secrets/cipher";
import { certificateDetails, certificateSummaryText, isCertificatePath, type CertificateDetails } from "./cert-details";
import { keptPkiFrom } from "./keep";
import { keptPkiAlgorithm, renderAssets } from "./render";
import { assetTarball } from "./tarball";
import { unifiedDiff } from "./text-diff";
import { parseSetOptions, type AssetSetOptions } from "./set-options";
import type { RenderedAsset } from "./types";

export type { AssetSetOptions } from "./set-options";

export type AssetSetSummary = { id: string; clusterId: string; version: number; createdAt: Date; options: AssetSetOptions; fileCount: number };

export type StoredAsset = {
  path: string;
  mode: number;
  sensitive: boolean;
  sha256: string;
  size: number;
  purpose: string;
  /** Plain content; undefined for a sensitive file unless secrets were asked for. */
  content?: string;
  certificate?: CertificateDetails;
};

export type AssetSetView = AssetSetSummary & { assets: StoredAsset[] };

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** A stored asset's plain content: a sensitive one is opened where it is stored (its row). */
export function assetContent(a: { id: string; content: string; sensitive: boolean }): string {
  return a.sensitive ? decryptSecret(a.content, secretContexts.asset(a.id)) : a.content;
}

/** One asset's plain content from a set, or null when the set has nothing at that path. */
export async function assetOfSet({ setId, path }: { setId: string; path: string }): Promise<string | null> {
  const row = await getDb().asset.findFirst({ where: { assetSetId: setId, path }, select: { id: true, content: true, sensitive: true } });
  return row ? assetContent(row) : null;
}

/** The earliest expiry among a set's certificates (what the fleet list warns about); null when it has none. */
export function earliestNotAfter(assets: readonly { path: string; content: string; sensitive: boolean }[]): Date | null {
  let earliest: Date | null = null;
  for (const a of assets) {
    if (a.sensitive || !isCertificatePath(a.path)) continue;
    try {
      const d = new Date(new X509Certificate(a.content).validTo);
      if (!earliest || d < earliest) earliest = d;
    } catch {
      // not parseable: it cannot expire the cluster's trust either way; leave it out
    }
  }
  return earliest;
}

/** Fills in `notAfter` for sets saved before it was recorded (read once, then stored). */
export async function backfillNotAfter({ assetSetId }: { assetSetId: string }): Promise<Date | null> {
  const rows = await getDb().asset.findMany({ where: { assetSetId, sensitive: false }, select: { path: true, content: true, sensitive: true } });
  const notAfter = earliestNotAfter(rows);
  if (notAfter) await getDb().assetSet.update({ where: { id: assetSetId }, data: { notAfter } });
  return notAfter;
}

export async function saveAssetSet(input: { clusterId: string; assets: readonly RenderedAsset[]; options: AssetSetOptions }): Promise<{ id: string; version: number }> {
  const db = getDb();
  const notAfter = earliestNotAfter(input.assets);
  const rows = input.assets.map((a) => {
    const id = newId("ast");
    return {
      id,
      path: a.path,
      mode: a.mode,
      sensitive: a.sensitive,
      // Sealed for its own row: moved to another, it does not decrypt.
      content: a.sensitive ? encryptSecret(a.content, secretContexts.asset(id)) : a.content,
      sha256: sha256(a.content),
      size: Buffer.byteLength(a.content, "utf8"),
      purpose: a.purpose,
    };
  });
  // Two saves racing for the same next version: the unique (clusterId, version) index lets one win; retry the other.
  for (let attempt = 0; ; attempt++) {
    const last = await db.assetSet.findFirst({ where: { clusterId: input.clusterId }, orderBy: { version: "desc" }, select: { version: true } });
    const version = (last?.version ?? 0) + 1;
    try {
      const created = await db.assetSet.create({
        data: { id: newId("as"), clusterId: input.clusterId, version, options: JSON.stringify(input.options), notAfter, assets: { create: rows } },
        select: { id: true, version: true },
      });
      return created;
    } catch (err) {
      const code = (err as { code?: string }).code;
      // The cluster was deleted while its assets rendered (a render ahead outlives a quick delete).
      if (code === "P2003" && !(await db.cluster.findUnique({ where: { id: input.clusterId }, select: { id: true } }))) throw notFound("Cluster");
      if (code !== "P2002" || attempt >= 4) throw err;
    }
  }
}

/**
 * Renders a definition of a running cluster (hosts added or removed, another version) keeping the PKI
 * of the asset set `fromSetId` (see keep.ts). Nothing is saved: the caller saves it (saveAssetSet) once
 * the run it is for could be planned. Joining masters' etcd pods start as members added to the running
 * cluster.
 */
export async function renderKeepingPki(input: { clusterId: string; fromSetId: string; definition: unknown; joiningMembers?: readonly string[] }): Promise<{ assets: RenderedAsset[]; options: AssetSetOptions }> {
  const prev = await getDb().assetSet.findUnique({ where: { id: input.fromSetId }, select: { version: true, options: true, clusterId: true, assets: { select: { id: true, path: true, content: true, sensitive: true } } } });
  if (!prev || prev.clusterId !== input.clusterId) throw notFound("Asset set");
  const options = parseSetOptions(prev.options);
  const files = new Map(prev.assets.map((a) => [a.path, assetContent(a)]));
  const keep = keptPkiFrom(files);
  // New keys (a new host's) are of the kept PKI's algorithm; the render refuses a definition asking for another.
  const encryptionAlgorithm = keptPkiAlgorithm(keep) ?? options.encryptionAlgorithm;
  const assets = await renderAssets(input.definition, {
    encryptionAlgorithm,
    caValidityDays: options.caValidityDays,
    leafValidityDays: options.leafValidityDays,
    keep,
    joiningMembers: input.joiningMembers,
  });
  const version = (input.definition as { spec?: { kubernetes?: { version?: string } } }).spec?.kubernetes?.version;
  return { assets, options: { ...options, encryptionAlgorithm, ...(version ? { kubernetesVersion: version } : {}), keptPkiOf: prev.version } };
}

/** Checksums and sizes of rendered files, as a plan lists them (the same digest saveAssetSet stores). */
export function assetIndexOf(assets: readonly RenderedAsset[]): Map<string, { sha256: string; size: number }> {
  return new Map(assets.map((a) => [a.path, { sha256: sha256(a.content), size: Buffer.byteLength(a.content, "utf8") }]));
}

/**
 * The algorithm a cluster's keys are of: the definition's `spec.pki.encryptionAlgorithm`; unset, the
 * algorithm of its latest asset set (a cluster rendered before the choice existed stays RSA-2048);
 * without a set, the default for new clusters, ECDSA-P256.
 */
export async function clusterEncryptionAlgorithm({ clusterId, definition }: { clusterId: string; definition: ClusterDefinition }): Promise<EncryptionAlgorithm> {
  const chosen = definition.spec.pki?.encryptionAlgorithm;
  if (chosen) return chosen;
  const latest = await getDb().assetSet.findFirst({ where: { clusterId }, orderBy: { version: "desc" }, select: { options: true } });
  return latest ? parseSetOptions(latest.options).encryptionAlgorithm : DEFAULT_ENCRYPTION_ALGORITHM;
}

export async function listAssetSets({ clusterId }: { clusterId: string }): Promise<AssetSetSummary[]> {
  const sets = await getDb().assetSet.findMany({
    where: { clusterId },
    orderBy: { version: "desc" },
    select: { id: true, clusterId: true, version: true, createdAt: true, options: true, _count: { select: { assets: true } } },
  });
  return sets.map((s) => ({ id: s.id, clusterId: s.clusterId, version: s.version, createdAt: s.createdAt, options: parseSetOptions(s.options), fileCount: s._count.assets }));
}

export async function getAssetSet({ id, includeSecrets = false }: { id: string; includeSecrets?: boolean }): Promise<AssetSetView> {
  const set = await getDb().assetSet.findUnique({ where: { id }, include: { assets: { orderBy: { path: "asc" } } } });
  if (!set) throw notFound("Asset set");
  return {
    id: set.id,
    clusterId: set.clusterId,
    version: set.version,
    createdAt: set.createdAt,
    options: parseSetOptions(set.options),
    fileCount: set.assets.length,
    assets: set.assets.map((a) => {
      const content = a.sensitive ? (includeSecrets ? assetContent(a) : undefined) : a.content;
      let certificate: CertificateDetails | undefined;
      if (!a.sensitive && isCertificatePath(a.path)) {
        try {
          certificate = certificateDetails(a.content);
        } catch {
          certificate = undefined; // not parseable: show the file without details rather than fail the page
        }
      }
      return { path: a.path, mode: a.mode, sensitive: a.sensitive, sha256: a.sha256, size: a.size, purpose: a.purpose, content, certificate };
    }),
  };
}

export type AssetDiffEntry = {
  path: string;
  status: "added" | "removed" | "changed" | "unchanged";
  sensitive: boolean;
  /** Unified text diff for changed non-sensitive files (absent when too large). Sensitive files report by checksum only. */
  diff?: string;
};

/** Certificates are compared by their facts (names, SANs, validity), not their base64. */
function textDiff(path: string, a: string, b: string): string | undefined {
  if (isCertificatePath(path)) {
    try {
      return unifiedDiff(certificateSummaryText(a), certificateSummaryText(b), 20);
    } catch {
      // not parseable: fall back to the text
    }
  }
  return unifiedDiff(a, b);
}

export async function diffAssetSets({ a, b }: { a: string; b: string }): Promise<{ from: AssetSetSummary; to: AssetSetSummary; entries: AssetDiffEntry[] }> {
  const [from, to] = await Promise.all([getAssetSet({ id: a }), getAssetSet({ id: b })]);
  if (from.clusterId !== to.clusterId) throw notFound("Asset set of the same cluster");
  const before = new Map(from.assets.map((x) => [x.path, x]));
  const after = new Map(to.assets.map((x) => [x.path, x]));
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const entries = paths.map((path): AssetDiffEntry => {
    const x = before.get(path);
    const y = after.get(path);
    if (!x) return { path, status: "added", sensitive: y?.sensitive ?? false };
    if (!y) return { path, status: "removed", sensitive: x.sensitive };
    const sensitive = x.sensitive || y.sensitive;
    if (x.sha256 === y.sha256) return { path, status: "unchanged", sensitive };
    const diff = !sensitive && x.content !== undefined && y.content !== undefined ? textDiff(path, x.content, y.content) : undefined;
    return { path, status: "changed", sensitive, ...(diff !== undefined ? { diff } : {}) };
  });
  const summary = ({ assets: _assets, ...s }: AssetSetView): AssetSetSummary => s;
  return { from: summary(from), to: summary(to), entries };
}

/** The set as a .tar.gz stream; private keys and other sensitive files only when asked (admins). */
export async function assetSetTarball({ id, includeSecrets }: { id: string; includeSecrets: boolean }) {
  const set = await getAssetSet({ id, includeSecrets });
  const cluster = await getDb().cluster.findUnique({ where: { id: set.clusterId }, select: { name: true } });
  const root = `${cluster?.name ?? "cluster"}-assets-v${set.version}`;
  const assets = set.assets.filter((x): x is StoredAsset & { content: string } => x.content !== undefined);
  return {
    fileName: `${root}${includeSecrets ? "" : "-public"}.tar.gz`,
    stream: assetTarball(assets, { root, mtime: set.createdAt, includeSensitive: includeSecrets }),
  };
}

/** A file a run's plan sends, as its asset set has it: found by checksum (the plan names each file's SHA-256). */
export type RunFileView = { sha256: string; path: string; purpose: string; size: number; sensitive: boolean; content: string | null };

/**
 * The content of a planned file, for reading it in the plan review. Secrets (private keys, tokens,
 * kubeconfigs with credentials) stay hidden here whoever asks: `content` is null and `sensitive` says why.
 */
export async function getRunFile({ runId, sha256 }: { runId: string; sha256: string }): Promise<RunFileView> {
  const run = await getDb().run.findUnique({ where: { id: runId }, select: { assetSetId: true } });
  if (!run) throw notFound("Run");
  if (!run.assetSetId) throw notFound("File (this run pushes no rendered files)");
  const a = await getDb().asset.findFirst({ where: { assetSetId: run.assetSetId, sha256 }, orderBy: { path: "asc" } });
  if (!a) throw notFound("File");
  return { sha256: a.sha256, path: a.path, purpose: a.purpose, size: a.size, sensitive: a.sensitive, content: a.sensitive ? null : a.content };
}
