// Shared types of the render library. Plain TypeScript: the CLI, the server and tests use it.
import type { KeyObject } from "node:crypto";
import type { EncryptionAlgorithm, Problem } from "../cluster/definition";

export type RenderedAsset = {
  /** Relative path inside the asset directory, e.g. `tls/ca.crt`. */
  path: string;
  content: string;
  /** File mode; every file is 0600 as bootkube wrote them. */
  mode: number;
  /** Private keys, tokens and kubeconfigs holding either: encrypted at rest, left out of downloads for non-admins. */
  sensitive: boolean;
  /** One line for the UI and the CLI. */
  purpose: string;
};

export type ImportedCa = { certPem: string; keyPem: string };

export type RenderOptions = {
  /**
   * The algorithm of the keys generated; default: the definition's `spec.pki.encryptionAlgorithm`, else
   * the kept PKI's (its cluster CA's), else ECDSA-P256. With `keep` it must be the kept CA's: another
   * algorithm is a CA rotation, not a render that keeps the PKI.
   */
  encryptionAlgorithm?: EncryptionAlgorithm;
  caValidityDays?: number;
  leafValidityDays?: number;
  importedCa?: ImportedCa;
  now?: Date;
  /** Key material by key name (see `keyNames`), for golden tests; missing names are generated. */
  keys?: Record<string, KeyObject | string>;
  /** Source of randomness for serials and tokens (tests inject a seeded one). */
  random?: (bytes: number) => Buffer;
  onProgress?: (done: number, total: number, label: string) => void;
  /**
   * The PKI of an earlier render to keep (a running cluster's): CAs, keys and certificates by path stem
   * (`tls/etcd/server-master-1`), the service-account key pair and the bootstrap token. Kept certificates are reused as
   * they are when they still fit the definition; a leaf that no longer does is issued again with its
   * kept key; only new hosts get new keys (lib/assets/keep.ts). A renewal keeps the same PKI but
   * issues every leaf again (`reissue`).
   */
  keep?: KeptPki;
  /**
   * Masters that join a running etcd cluster (added after the bootstrap): their etcd static pods start
   * with `--initial-cluster-state=existing` and an initial cluster of the members before them.
   */
  joiningMembers?: readonly string[];
};

export type KeptPki = {
  certs: ReadonlyMap<string, { certPem: string; keyPem: string }>;
  serviceAccount: { keyPem: string; pubPem: string };
  token: string;
  /** The API server's EncryptionConfiguration (its keys decrypt every Secret in etcd); absent in sets rendered before it existed. */
  encryptionConfig?: string;
  /**
   * "leaves": a certificate renewal (lib/assets/renew.ts) — the CAs, every key and the token are kept,
   * but every leaf is issued again (new serial, new validity) with its kept key.
   */
  reissue?: "leaves";
};

export const defaultRenderOptions = { caValidityDays: 3650, leafValidityDays: 365 } as const;

/** A definition that fails validation: carries every field problem, and nothing was rendered. */
export class RenderValidationError extends Error {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(`the cluster definition has ${problems.length} problem${problems.length === 1 ? "" : "s"}: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`);
    this.name = "RenderValidationError";
    this.problems = problems;
  }
}

/** Options that cannot be honoured (bad imported CA, validity out of range). */
export class RenderOptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RenderOptionsError";
  }
}
