// Certificate renewal: a new render of a running cluster that keeps its CAs (certificates and keys,
// byte for byte), every key and the bootstrap token, and issues every leaf certificate again with a
// new serial and a new validity. What trusted the cluster before trusts it after; only the leaves
// change. The rotation run rolls them out (lib/engine/plans-certs.ts).
import { X509Certificate } from "node:crypto";
import YAML from "yaml";
import { validateClusterDefinition } from "../cluster/definition";
import { deriveCluster } from "../cluster/derive";
import { capabilitiesFor } from "./capabilities";
import { certificatePlan, isCertEntry } from "./certificates";
import { renderAssets } from "./render";
import { RenderValidationError, type KeyType, type RenderedAsset } from "./types";

export class RenewError extends Error {}

/** The CA files a renewal keeps, and what it issues again. */
export type RenewalReport = { keptCas: string[]; renewed: { path: string; oldSerial: string; newSerial: string; notAfter: string }[] };

export async function renderRenewed(
  input: unknown,
  previous: ReadonlyMap<string, string>,
  options: { leafValidityDays: number; caValidityDays: number; now?: Date },
): Promise<{ assets: RenderedAsset[]; report: RenewalReport }> {
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new RenderValidationError(v.errors);
  const def = v.definition;
  const plan = certificatePlan(def, deriveCluster(def), capabilitiesFor(def.spec.kubernetes.version));
  const keys: Record<string, string> = {};
  const kept = new Map<string, { certPem: string; keyPem: string }>();
  const need = (path: string) => {
    const c = previous.get(path);
    if (c === undefined) throw new RenewError(`the asset set has no ${path}: a renewal keeps the cluster's keys, so the set must be whole (render it again only to start over)`);
    return c;
  };
  for (const e of plan) {
    if (!isCertEntry(e)) {
      keys[e.name] = need("tls/service-account.key");
      continue;
    }
    keys[e.name] = need(`${e.stem}.key`);
    if (e.isCa) kept.set(e.name, { certPem: need(`${e.stem}.crt`), keyPem: keys[e.name]! });
  }
  const kubelet = YAML.parse(need("auth/kubeconfig-kubelet")) as { users?: { user?: { token?: string } }[] };
  const token = kubelet.users?.[0]?.user?.token;
  if (!token) throw new RenewError("the asset set's auth/kubeconfig-kubelet has no bootstrap token to keep");
  const keyType: KeyType = new X509Certificate(need("tls/ca.crt")).publicKey.asymmetricKeyType === "ec" ? "ecdsa" : "rsa";
  const assets = await renderAssets(def, { keyType, keys, kept, bootstrapToken: token, leafValidityDays: options.leafValidityDays, caValidityDays: options.caValidityDays, now: options.now });
  const report: RenewalReport = { keptCas: [...kept.keys()], renewed: [] };
  for (const e of plan.filter(isCertEntry)) {
    const path = `${e.stem}.crt`;
    const after = assets.find((a) => a.path === path)?.content;
    if (!after) throw new RenewError(`the renewal did not render ${path}`);
    if (e.isCa) {
      if (after !== previous.get(path)) throw new RenewError(`the renewal changed the CA ${path}`);
      continue;
    }
    const old = new X509Certificate(need(path));
    const now = new X509Certificate(after);
    report.renewed.push({ path, oldSerial: old.serialNumber, newSerial: now.serialNumber, notAfter: new Date(now.validTo).toISOString() });
  }
  return { assets, report };
}
