// The encryption key rotation run: a new key for Secrets at rest, rolled out without restarting an API
// server (each reads its configuration file again when it changes) and without a moment in which one
// of them writes what another cannot read:
//   1. add: every API server reads with the new key too (writes unchanged);
//   2. write: every API server writes with the new key;
//   3. rewrite: every Secret written back as it is (stored again with the new key), then etcd read to
//      prove no Secret is left under another key or in plain text;
//   4. drop: the old keys leave the configuration;
//   5. verify: every Secret still reads through the API, and etcd holds each under the new key.
// Each configuration counts as rolled out once every master's API server reports its checksum in the
// metric `apiserver_encryption_config_controller_last_config_info`.
import { checkpointSecretFiles } from "../assets/checkpoint";
import { STATIC_SECRETS_HOST_DIR, bootstrapSecretFiles } from "../assets/bootstrap-manifests";
import { ENCRYPTION_CONFIG_ASSET } from "../assets/encryption";
import { APISERVER_POD_SELECTOR, apiserverSecretFiles } from "../assets/manifests/flags";
import { isStaticControlPlane, type ClusterDefinition } from "../cluster/definition";
import { deriveCluster, type EffectiveHost } from "../cluster/derive";
import { shellScript } from "../ssh/quote";
import { SECRETS_AT_REST_SCRIPT } from "./actions/dr-scripts";
import { b64, toYamlDocuments, type K8sObject } from "../assets/yaml-out";
import type { PlannedApiCall, PlannedPhase, PlannedStep, RunPlan } from "./plan";
import { parseObjects } from "./plan-objects";
import { exec, filesOf, hostLock, MIN, PlanError, step, type AssetIndex } from "./plans";

/** The rotation's asset set holds the two configurations rolled out on the way (the final one is the set's own). */
export const ROTATION_STAGE_ASSETS = { add: "encryption-rotation/add-key.yaml", write: "encryption-rotation/write-with-key.yaml" } as const;

export const APISERVER_SECRET_MANIFEST = "manifests/kube-apiserver-secret.yaml";
const SECRET = 0o600;

export type KeyRotationInput = {
  assets: AssetIndex;
  /** The new key's name, and the names of those it replaces. */
  key: string;
  dropped: readonly string[];
};

/** How etcd stores a Secret written with the key: its value's first bytes. */
export const secretboxPrefix = (key: string) => `k8s:enc:secretbox:v1:${key}:`;

/** Where each master keeps the configuration its API server reads: a static control plane's file, or the self-hosted one's checkpoint copy. */
export function encryptionConfigPath(def: ClusterDefinition, assetPaths: readonly string[]): string {
  if (isStaticControlPlane(def)) return `${STATIC_SECRETS_HOST_DIR}/${bootstrapSecretFiles(assetPaths)[ENCRYPTION_CONFIG_ASSET]}`;
  const path = checkpointSecretFiles()[ENCRYPTION_CONFIG_ASSET];
  if (!path) throw new PlanError("the API server's checkpoint does not carry the encryption configuration");
  return path;
}

export function buildKeyRotationPlan(def: ClusterDefinition, runId: string, input: KeyRotationInput): RunPlan {
  const masters = deriveCluster(def).masters;
  const selfHosted = !isStaticControlPlane(def);
  const paths = [...input.assets.keys()];
  const missing = [ENCRYPTION_CONFIG_ASSET, ...Object.values(ROTATION_STAGE_ASSETS), ...(selfHosted ? [APISERVER_SECRET_MANIFEST] : [])].filter((a) => !input.assets.has(a));
  if (missing.length) throw new PlanError(`the rotation's asset set lacks ${missing.join(", ")}`);
  const path = encryptionConfigPath(def, paths);
  const first = masters[0]!;
  const check = (host: EffectiveHost) => exec("at-rest", shellScript(SECRETS_AT_REST_SCRIPT, [secretboxPrefix(input.key)], "bootdeck-at-rest"), { host: host.name });
  const endpoints = masters.map((m) => `${m.address}:${def.spec.apiEndpoint.port}`).join(", ");

  const configStep = (phase: string, asset: string, title: string): PlannedStep => {
    const sha256 = input.assets.get(asset)!.sha256;
    return step({
      key: `${phase}/cluster`,
      phase,
      action: "encryption-config",
      title,
      host: null,
      api: selfHosted ? [secretDataCall(input.assets, asset), apiserverPodsCall(sha256)] : [],
      files: masters.flatMap((m) => filesOf([{ asset, path, mode: SECRET }], input.assets).map((f) => ({ ...f, host: m.name }))),
      checks: [
        `until the API servers at ${endpoints} each report this configuration loaded (sha256 ${sha256.slice(0, 12)}… in apiserver_encryption_config_controller_last_config_info): each reads its file again within a minute${selfHosted ? " (its kubelet writes the Secret's new files into the pod when the pod's annotation changes)" : ""} (deadline 8 min)`,
      ],
      params: { sha256 },
      timeoutMs: 10 * MIN,
    });
  };
  const phase = (id: string, title: string, steps: PlannedStep[]): PlannedPhase => ({ id, title, steps });
  const old = input.dropped.join(", ");

  return {
    runType: "rotate-encryption-key",
    phases: [
      phase("add", `Every API server reads with the new key ${input.key} too; writes are unchanged`, [configStep("add", ROTATION_STAGE_ASSETS.add, `Key ${input.key} readable on every API server`)]),
      phase("write", `Every API server writes Secrets with ${input.key}; ${old} ${input.dropped.length === 1 ? "stays" : "stay"} to read with`, [configStep("write", ROTATION_STAGE_ASSETS.write, `Secrets written with ${input.key} on every API server`)]),
      phase("rewrite", `Every Secret written back as it is, so that etcd stores it with ${input.key}; then etcd read`, [
        step({
          key: "rewrite/cluster",
          phase: "rewrite",
          action: "rewrite-secrets",
          title: "Every Secret stored again with the new key",
          host: null,
          exec: [check(first)],
          api: [
            {
              id: "rewrite Secrets",
              verb: "rewrite",
              object: { apiVersion: "v1", kind: "Secret", name: "*" },
              rule: "every Secret of every namespace, listed 500 at a time, written back as listed (its resourceVersion with it); one changed or deleted since was written with the new key already and is left as it is",
              when: "always",
            },
          ],
          checks: [`"at-rest" on ${first.name}: every value under /registry/secrets/ in etcd begins ${secretboxPrefix(input.key)}`],
          params: { key: input.key },
          timeoutMs: 30 * MIN,
        }),
      ]),
      phase("drop", `The old key${input.dropped.length === 1 ? "" : "s"} ${old} leave${input.dropped.length === 1 ? "s" : ""} every API server`, [configStep("drop", ENCRYPTION_CONFIG_ASSET, `Only ${input.key} on every API server`)]),
      phase("verify", "Every Secret reads through the API, and etcd holds each under the new key", [
        step({
          key: "verify/cluster",
          phase: "verify",
          action: "encryption-verify",
          title: "Secrets at rest",
          host: null,
          exec: [check(first)],
          checks: ["every Secret listed through the API (each one decrypted by the API server)", `"at-rest" on ${first.name} again`],
          params: { key: input.key },
          timeoutMs: 10 * MIN,
        }),
      ]),
    ],
    lock: hostLock(runId, masters.map((m) => m.name)),
  };
}

/**
 * The self-hosted API server reads its configuration from a Secret: a merge patch of the one data key
 * that holds it, whose value is the asset's content (shown as "(secret)", taken from the asset set and
 * checked against its checksum when sent).
 */
function secretDataCall(assets: AssetIndex, asset: string): PlannedApiCall {
  const secret = assets.get(APISERVER_SECRET_MANIFEST)?.objects?.find((o) => o.ref.kind === "Secret");
  if (!secret) throw new PlanError(`${APISERVER_SECRET_MANIFEST} in the asset set holds no Secret`);
  const dataKey = secretDataKey(ENCRYPTION_CONFIG_ASSET);
  return {
    id: `patch ${secret.ref.kind} ${secret.ref.namespace}/${secret.ref.name}`,
    verb: "patch",
    object: secret.ref,
    body: { data: { [dataKey]: "(secret)" } },
    asset,
    sha256: assets.get(asset)!.sha256,
    secret: true,
    options: { secretDataKey: dataKey },
    rule: `data.${dataKey}: the content of ${asset}`,
    when: "always",
  };
}

/** The annotation that carries, on each self-hosted API server pod, the checksum of the encryption configuration last sent. */
export const ENCRYPTION_CONFIG_ANNOTATION = "bootdeck.io/encryption-config";

/**
 * A kubelet writes a changed Secret's files into the pods that mount it when it next syncs each pod:
 * within its sync period (a minute, plus its cache's age) unless the pod changes. An annotation with
 * the configuration's checksum changes each API server pod at once; nothing restarts.
 */
function apiserverPodsCall(sha256: string): PlannedApiCall {
  return {
    id: "annotate kube-apiserver pods",
    verb: "patch",
    object: { apiVersion: "v1", kind: "Pod", namespace: "kube-system", name: "*" },
    body: { metadata: { annotations: { [ENCRYPTION_CONFIG_ANNOTATION]: sha256 } } },
    options: { labelSelector: APISERVER_POD_SELECTOR },
    rule: `every pod labelled ${APISERVER_POD_SELECTOR} when the step runs, after the Secret: its kubelet syncs it on the change, and writes the Secret's new files into it then`,
    when: "always",
  };
}

/** The data key of the self-hosted API server's Secret that holds an asset (its file name there). */
function secretDataKey(asset: string): string {
  const key = Object.entries(apiserverSecretFiles()).find(([, a]) => a === asset)?.[0];
  if (!key) throw new PlanError(`the API server's Secret does not carry ${asset}`);
  return key;
}

/** The API server's Secret manifest with the file of `asset` replaced by `content`. */
export function withSecretFile(manifest: string, asset: string, content: string): string {
  const docs = parseObjects(manifest);
  const secret = docs.find((o) => o.kind === "Secret") as (K8sObject & { data?: Record<string, string> }) | undefined;
  if (!secret) throw new PlanError(`${APISERVER_SECRET_MANIFEST} holds no Secret`);
  secret.data = { ...secret.data, [secretDataKey(asset)]: b64(content) };
  return toYamlDocuments(docs);
}
