// Shared types of the render library. Plain TypeScript: the CLI, the server and tests use it.
import type { KeyObject } from "node:crypto";
import type { Problem } from "../cluster/definition";

export type KeyType = "rsa" | "ecdsa";

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
  keyType?: KeyType;
  caValidityDays?: number;
  leafValidityDays?: number;
  importedCa?: ImportedCa;
  now?: Date;
  /** Key material by key name (see `keyNames`), for golden tests; missing names are generated. */
  keys?: Record<string, KeyObject | string>;
  /** Source of randomness for serials and tokens (tests inject a seeded one). */
  random?: (bytes: number) => Buffer;
  onProgress?: (done: number, total: number, label: string) => void;
  /** Certificates kept as they are, by plan entry name (a renewal keeps the CAs: lib/assets/renew.ts). */
  kept?: ReadonlyMap<string, { certPem: string; keyPem: string }>;
  /** The bootstrap token to keep (`<id>.<secret>`) instead of a new one. */
  bootstrapToken?: string;
};

export const defaultRenderOptions = { keyType: "rsa", caValidityDays: 3650, leafValidityDays: 365 } as const;

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
