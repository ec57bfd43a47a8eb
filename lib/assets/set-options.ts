// What is recorded about how an asset set was rendered, as stored in AssetSet.options (JSON).
import { encryptionAlgorithms, type EncryptionAlgorithm } from "../cluster/definition";

/** What is recorded about how a set was rendered (never the imported CA's key). */
export type AssetSetOptions = {
  /** The algorithm of the keys the set's render generated. */
  encryptionAlgorithm: EncryptionAlgorithm;
  caValidityDays: number;
  leafValidityDays: number;
  importedCa: boolean;
  /** The Kubernetes version the set was rendered for (recorded from day-2 renders on). */
  kubernetesVersion?: string;
  /** The version of the set whose PKI this one kept (a render for a running cluster). */
  keptPkiOf?: number;
};

/**
 * Reads a set's options. Sets saved before the algorithm was a choice recorded `keyType`: "ecdsa" was
 * P-256; "rsa", or nothing, RSA-2048 (the only RSA size there was).
 */
export function parseSetOptions(json: string): AssetSetOptions {
  const o = JSON.parse(json) as Partial<AssetSetOptions> & { keyType?: string };
  const recorded = (encryptionAlgorithms as readonly string[]).includes(o.encryptionAlgorithm ?? "") ? o.encryptionAlgorithm : undefined;
  return {
    encryptionAlgorithm: recorded ?? (o.keyType === "ecdsa" ? "ECDSA-P256" : "RSA-2048"),
    caValidityDays: o.caValidityDays ?? 3650,
    leafValidityDays: o.leafValidityDays ?? 365,
    importedCa: o.importedCa ?? false,
    ...(o.kubernetesVersion ? { kubernetesVersion: o.kubernetesVersion } : {}),
    ...(o.keptPkiOf ? { keptPkiOf: o.keptPkiOf } : {}),
  };
}
