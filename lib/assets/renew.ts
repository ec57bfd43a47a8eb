// Certificate renewal: a new render of a running cluster that keeps its CAs (certificates and keys,
// byte for byte), every key and the bootstrap token — the kept PKI of lib/assets/keep.ts — and issues
// every leaf certificate again (`reissue: "leaves"`) with a new serial and a new validity. What
// trusted the cluster before trusts it after; only the leaves change. The rotation run rolls them out
// (lib/engine/plans-certs.ts).
import { X509Certificate } from "node:crypto";
import { validateClusterDefinition } from "../cluster/definition";
import { deriveCluster } from "../cluster/derive";
import { capabilitiesFor } from "./capabilities";
import { certificatePlan, isCertEntry } from "./certificates";
import { keptPkiFrom, NothingToKeepError } from "./keep";
import { renderAssets } from "./render";
import { RenderValidationError, type KeptPki, type RenderedAsset } from "./types";

export class RenewError extends Error {}

/** The CA files a renewal keeps, and what it issues again. */
export type RenewalReport = {
  keptCas: string[];
  renewed: { path: string; oldSerial: string; newSerial: string; notAfter: string }[];
  /** Certificates the set lacked, issued with new keys. */
  added: string[];
};

export async function renderRenewed(
  input: unknown,
  previous: ReadonlyMap<string, string>,
  options: { leafValidityDays: number; caValidityDays: number; now?: Date },
): Promise<{ assets: RenderedAsset[]; report: RenewalReport }> {
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new RenderValidationError(v.errors);
  const def = v.definition;
  const plan = certificatePlan(def, deriveCluster(def), capabilitiesFor(def.spec.kubernetes.version));
  const need = (path: string) => {
    const c = previous.get(path);
    if (c === undefined) throw new RenewError(`the asset set has no ${path}: a renewal keeps the cluster's keys, so the set must be whole (render it again only to start over)`);
    return c;
  };
  // Every key of the plan must be there to be kept: a renewal makes a new one only for a leaf the set
  // does not have at all (one added to the plan since the set was rendered: the masters' kubelet
  // identities for a cluster bootstrapped before they existed).
  const added = new Set<string>();
  for (const e of plan.filter(isCertEntry)) {
    if (!e.isCa && !previous.has(`${e.stem}.crt`) && !previous.has(`${e.stem}.key`)) {
      added.add(e.stem);
      continue;
    }
    need(`${e.stem}.key`);
    need(`${e.stem}.crt`);
  }
  let keep: KeptPki;
  try {
    keep = { ...keptPkiFrom(previous), reissue: "leaves" };
  } catch (err) {
    if (err instanceof NothingToKeepError) throw new RenewError(err.message);
    throw err;
  }
  // The keys of added leaves are of the kept PKI's algorithm (render.ts takes it from the kept CA).
  const assets = await renderAssets(def, { keep, leafValidityDays: options.leafValidityDays, caValidityDays: options.caValidityDays, now: options.now });
  const report: RenewalReport = { keptCas: plan.filter(isCertEntry).filter((e) => e.isCa).map((e) => e.name), renewed: [], added: [...added].map((stem) => `${stem}.crt`) };
  for (const e of plan.filter(isCertEntry)) {
    const path = `${e.stem}.crt`;
    const after = assets.find((a) => a.path === path)?.content;
    if (!after) throw new RenewError(`the renewal did not render ${path}`);
    if (e.isCa) {
      if (after !== previous.get(path)) throw new RenewError(`the renewal changed the CA ${path}`);
      continue;
    }
    if (added.has(e.stem)) continue;
    const old = new X509Certificate(need(path));
    const now = new X509Certificate(after);
    report.renewed.push({ path, oldSerial: old.serialNumber, newSerial: now.serialNumber, notAfter: new Date(now.validTo).toISOString() });
  }
  return { assets, report };
}
