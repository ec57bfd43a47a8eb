// The encryption key rotation's plan as data: three configurations, each onto every master (and into the
// self-hosted API server's Secret), every Secret written back between the second and the third, and
// etcd read before the old key goes and after.
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { ENCRYPTION_CONFIG_ASSET, encryptionConfig, encryptionRotation } from "../assets/encryption";
import { renderAssets } from "../assets/render";
import { validateClusterDefinition, type ClusterDefinition } from "../cluster/definition";
import { exampleDefinition } from "../cluster/example";
import { SECRETS_AT_REST_SCRIPT, parseSecretsAtRest } from "./actions/dr-scripts";
import { loadedConfigHash } from "./actions/encryption";
import { assetIndexFrom } from "./plan-objects";
import { PlanError } from "./plans";
import { APISERVER_SECRET_MANIFEST, buildKeyRotationPlan, ENCRYPTION_CONFIG_ANNOTATION, ROTATION_STAGE_ASSETS, secretboxPrefix, withSecretFile } from "./plans-encryption";

function def(controlPlane?: "static"): ClusterDefinition {
  const d = exampleDefinition({ name: "keys", hosts: 5 });
  if (controlPlane) d.spec.kubernetes.controlPlane = controlPlane;
  const v = validateClusterDefinition(d);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.definition;
}

async function rotationSet(d: ClusterDefinition) {
  const assets = await renderAssets(d, { encryptionAlgorithm: "ECDSA-P256" });
  const current = assets.find((a) => a.path === ENCRYPTION_CONFIG_ASSET)!.content;
  const r = encryptionRotation(current, { random: () => Buffer.alloc(32, 9), now: new Date("2026-12-06T00:00:00Z") });
  const next = assets.map((a) => (a.path === ENCRYPTION_CONFIG_ASSET ? { ...a, content: r.final } : a.path === APISERVER_SECRET_MANIFEST ? { ...a, content: withSecretFile(a.content, ENCRYPTION_CONFIG_ASSET, r.final) } : a));
  next.push({ path: ROTATION_STAGE_ASSETS.add, content: r.add, mode: 0o600, sensitive: true, purpose: "" }, { path: ROTATION_STAGE_ASSETS.write, content: r.write, mode: 0o600, sensitive: true, purpose: "" });
  return { rotation: r, assets: next, index: assetIndexFrom(next) };
}

describe("encryption key rotation plan", () => {
  it("self-hosted: each configuration into the API server's Secret and every master's checkpoint copy, the old key dropped only after etcd was read", async () => {
    const d = def();
    const { rotation, assets, index } = await rotationSet(d);
    const plan = buildKeyRotationPlan(d, "run_AAAAAAAAAAAAAAAA", { assets: index, key: rotation.key, dropped: rotation.dropped });
    expect(plan.runType).toBe("rotate-encryption-key");
    expect(plan.phases.map((p) => p.id)).toEqual(["add", "write", "rewrite", "drop", "verify"]);
    expect(plan.lock?.hosts).toEqual(["master-1", "master-2", "master-3"]);
    const stages = [
      ["add", ROTATION_STAGE_ASSETS.add],
      ["write", ROTATION_STAGE_ASSETS.write],
      ["drop", ENCRYPTION_CONFIG_ASSET],
    ] as const;
    for (const [phase, asset] of stages) {
      const step = plan.phases.find((p) => p.id === phase)!.steps[0]!;
      expect(step).toMatchObject({ action: "encryption-config", host: null, params: { sha256: index.get(asset)!.sha256 } });
      expect(step.files.map((f) => `${f.host} ${f.path} ${f.asset} ${f.mode.toString(8)}`)).toEqual(
        ["master-1", "master-2", "master-3"].map((m) => `${m} /etc/kubernetes/checkpoint-secrets/encryption-config.yaml ${asset} 600`),
      );
      // The Secret, then every API server pod annotated with the configuration's checksum: its kubelet
      // writes the Secret's new files into it on that change instead of within its sync period.
      expect(step.api).toEqual([
        expect.objectContaining({ verb: "patch", object: { apiVersion: "v1", kind: "Secret", name: "kube-apiserver", namespace: "kube-system" }, asset, secret: true, body: { data: { "encryption-config.yaml": "(secret)" } }, options: { secretDataKey: "encryption-config.yaml" } }),
        expect.objectContaining({ verb: "patch", object: { apiVersion: "v1", kind: "Pod", name: "*", namespace: "kube-system" }, body: { metadata: { annotations: { [ENCRYPTION_CONFIG_ANNOTATION]: index.get(asset)!.sha256 } } }, options: { labelSelector: "k8s-app=kube-apiserver" } }),
      ]);
    }
    const rewrite = plan.phases.find((p) => p.id === "rewrite")!.steps[0]!;
    expect(rewrite.api).toEqual([expect.objectContaining({ verb: "rewrite", object: { apiVersion: "v1", kind: "Secret", name: "*" } })]);
    expect(rewrite.exec).toEqual([{ id: "at-rest", argv: ["sh", "-c", SECRETS_AT_REST_SCRIPT, "bootdeck-at-rest", secretboxPrefix(rotation.key)], host: "master-1", when: "always" }]);
    // No key material anywhere in what a reviewer is shown.
    const keys = assets.filter((a) => a.path.includes("encryption")).flatMap((a) => [...a.content.matchAll(/secret: (\S+)/g)].map((m) => m[1]!));
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(JSON.stringify(plan)).not.toContain(k);
  });

  it("static: each configuration onto every master's control-plane files; no Secret to patch", async () => {
    const d = def("static");
    const { rotation, index } = await rotationSet(d);
    const plan = buildKeyRotationPlan(d, "run_AAAAAAAAAAAAAAAA", { assets: index, key: rotation.key, dropped: rotation.dropped });
    const add = plan.phases[0]!.steps[0]!;
    expect(add.api).toEqual([]);
    expect(new Set(add.files.map((f) => f.path))).toEqual(new Set(["/etc/kubernetes/control-plane-secrets/encryption-config.yaml"]));
    expect(add.files).toHaveLength(3);
  });

  it("refuses an asset set without the configurations it rolls out", async () => {
    const d = def();
    const { rotation, assets } = await rotationSet(d);
    const index = assetIndexFrom(assets.filter((a) => a.path !== ROTATION_STAGE_ASSETS.write));
    expect(() => buildKeyRotationPlan(d, "run_AAAAAAAAAAAAAAAA", { assets: index, key: rotation.key, dropped: rotation.dropped })).toThrow(PlanError);
  });

  it("the API server's Secret carries the final configuration, everything else in it as it was", async () => {
    const { assets } = await rotationSet(def());
    const before = (await renderAssets(def(), { encryptionAlgorithm: "ECDSA-P256" })).find((a) => a.path === APISERVER_SECRET_MANIFEST)!;
    const after = YAML.parse(assets.find((a) => a.path === APISERVER_SECRET_MANIFEST)!.content) as { data: Record<string, string> };
    expect(Buffer.from(after.data["encryption-config.yaml"]!, "base64").toString()).toBe(assets.find((a) => a.path === ENCRYPTION_CONFIG_ASSET)!.content);
    expect(Object.keys(after.data).sort()).toEqual(Object.keys((YAML.parse(before.content) as { data: object }).data).sort());
  });
});

describe("what the rotation reads back", () => {
  it("an API server's configuration checksum from its metrics, not the server's own id hash", () => {
    const metrics = `# HELP x\napiserver_encryption_config_controller_automatic_reloads_total{apiserver_id_hash="sha256:aa",status="success"} 2\napiserver_encryption_config_controller_last_config_info{apiserver_id_hash="sha256:aaaa",hash="sha256:0123abcd"} 1\n`;
    expect(loadedConfigHash(metrics)).toBe("0123abcd");
    expect(loadedConfigHash("apiserver_request_total 5\n")).toBeUndefined();
  });

  it("etcd's count of Secrets under the key, and the first ones stored otherwise", () => {
    expect(parseSecretsAtRest("secrets=41\nwith-key=41\n")).toEqual({ secrets: 41, withKey: 41, others: [] });
    const r = parseSecretsAtRest('other: "/registry/secrets/default/a" "k8s\\x00\\n\\f\\n\\x02v1\\x12\nsecrets=2\nwith-key=1\n');
    expect(r).toMatchObject({ secrets: 2, withKey: 1 });
    expect(r.others).toEqual(['"/registry/secrets/default/a" "k8s\\x00\\n\\f\\n\\x02v1\\x12']);
    expect(parseSecretsAtRest("no etcd").secrets).toBeNaN();
  });

  it("a plain configuration's rotation is planned like any other", () => {
    const plain = encryptionConfig({ random: () => Buffer.alloc(32, 1), now: new Date("2026-01-01T00:00:00Z"), writes: "plain" });
    expect(encryptionRotation(plain, { random: () => Buffer.alloc(32, 2), now: new Date("2026-12-06T00:00:00Z") }).dropped).toEqual(["key-20260101"]);
  });
});
