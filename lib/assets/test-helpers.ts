// Shared by the render tests: fixed inputs for golden output, and helpers that hand the rendered
// files to real tools (openssl, kubectl) and to the kubernetes-models schemas.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseAllDocuments } from "yaml";
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { DaemonSet, Deployment } from "kubernetes-models/apps/v1";
import { DaemonSet as DaemonSetV1beta1, Deployment as DeploymentV1beta1 } from "kubernetes-models/extensions/v1beta1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { PodDisruptionBudget as PodDisruptionBudgetV1beta1 } from "kubernetes-models/policy/v1beta1";
import { ConfigMap, Namespace, Pod, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import type { RenderedAsset } from "./types";

export const GOLDEN_NOW = new Date("2026-01-15T12:00:00Z");
export const goldenKeyPem = readFileSync(join(__dirname, "__fixtures__/golden-rsa.key"), "utf8");

/** Deterministic bytes (SHA-256 in counter mode) so serials and tokens are fixed in golden tests. */
export function seededRandom(seed: string): (n: number) => Buffer {
  let counter = 0;
  return (n) => {
    const chunks: Buffer[] = [];
    let have = 0;
    while (have < n) {
      const c = createHash("sha256").update(`${seed}:${counter++}`).digest();
      chunks.push(c);
      have += c.length;
    }
    return Buffer.concat(chunks).subarray(0, n);
  };
}

/** Every plan key name gets the same fixture key: certificates stay valid and byte-for-byte stable. */
export function fixedKeys(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, goldenKeyPem]));
}

export function writeAssetsToTemp(assets: readonly RenderedAsset[], prefix = "bootdeck-render-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const a of assets) {
    const p = join(dir, a.path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, a.content, { mode: a.mode });
  }
  return dir;
}

export function run(cmd: string, args: string[]): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }) };
  } catch (err) {
    const e = err as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? 1, out: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

type Model = new (data: never) => { validate(): void };
const models: Record<string, Model> = {
  "v1/Namespace": Namespace as Model,
  "v1/Secret": Secret as Model,
  "v1/ConfigMap": ConfigMap as Model,
  "v1/ServiceAccount": ServiceAccount as Model,
  "v1/Service": Service as Model,
  "v1/Pod": Pod as Model,
  "apps/v1/DaemonSet": DaemonSet as Model,
  "apps/v1/Deployment": Deployment as Model,
  "extensions/v1beta1/DaemonSet": DaemonSetV1beta1 as Model,
  "extensions/v1beta1/Deployment": DeploymentV1beta1 as Model,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget as Model,
  "policy/v1beta1/PodDisruptionBudget": PodDisruptionBudgetV1beta1 as Model,
  "rbac.authorization.k8s.io/v1/ClusterRole": ClusterRole as Model,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": ClusterRoleBinding as Model,
  "rbac.authorization.k8s.io/v1/Role": Role as Model,
  "rbac.authorization.k8s.io/v1/RoleBinding": RoleBinding as Model,
};

export type ParsedObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };

export function parseManifest(content: string): ParsedObject[] {
  return parseAllDocuments(content).map((d) => {
    if (d.errors.length > 0) throw new Error(d.errors[0]?.message);
    return d.toJS() as ParsedObject;
  });
}

/** Validates with the kubernetes-models schema for the object's apiVersion and kind; throws on any problem. */
export function validateObject(obj: ParsedObject): void {
  const Model = models[`${obj.apiVersion}/${obj.kind}`];
  if (!Model) throw new Error(`no schema for ${obj.apiVersion} ${obj.kind}`);
  new Model(obj as never).validate();
}
