// Secrets at rest: a cluster rendered now writes them encrypted with a key of its own, every API server
// (bootstrap, self-hosted, checkpoint, static) reads the same configuration, later renders keep it byte
// for byte, and a running cluster rendered before it had one does not start encrypting half-way.
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { exampleDefinition } from "../cluster/example";
import { bootstrapSecretFiles } from "./bootstrap-manifests";
import { ENCRYPTION_CONFIG_ASSET, encryptionConfig, encryptionKeys, encryptionPurpose, encryptionRotation, EncryptionRotationError, encryptionWrites, keyMadeOn, keyName, withReadKeys } from "./encryption";
import { keptPkiFrom } from "./keep";
import { renderAssets } from "./render";
import type { RenderedAsset } from "./types";

type Config = { kind: string; resources: { resources: string[]; providers: ({ secretbox?: { keys: { name: string; secret: string }[] } } & { identity?: object })[] }[] };
const byPath = (assets: RenderedAsset[]) => new Map(assets.map((a) => [a.path, a]));
const configOf = (assets: Map<string, RenderedAsset>) => YAML.parse(assets.get(ENCRYPTION_CONFIG_ASSET)!.content) as Config;

describe("Secrets encrypted at rest", () => {
  it("a new cluster writes Secrets with secretbox and a 32-byte key of its own, still reading plain ones", async () => {
    const assets = byPath(await renderAssets(exampleDefinition({ hosts: 4 }), { encryptionAlgorithm: "ECDSA-P256" }));
    const file = assets.get(ENCRYPTION_CONFIG_ASSET)!;
    expect(file.sensitive).toBe(true);
    const config = configOf(assets);
    expect(config.kind).toBe("EncryptionConfiguration");
    expect(config.resources).toHaveLength(1);
    expect(config.resources[0]!.resources).toEqual(["secrets"]);
    const [first, second] = config.resources[0]!.providers;
    expect(Buffer.from(first!.secretbox!.keys[0]!.secret, "base64")).toHaveLength(32);
    expect(first!.secretbox!.keys[0]!.name).toMatch(/^key-\d{8}$/);
    expect(second).toEqual({ identity: {} });
    // Another cluster, another key.
    const other = configOf(byPath(await renderAssets(exampleDefinition({ hosts: 4 }), { encryptionAlgorithm: "ECDSA-P256" })));
    expect(other.resources[0]!.providers[0]!.secretbox!.keys[0]!.secret).not.toBe(first!.secretbox!.keys[0]!.secret);
  });

  it("every API server reads it: the flag in each command, the file beside the bootstrap's, the self-hosted one's and the checkpoint's secrets", async () => {
    const assets = byPath(await renderAssets(exampleDefinition({ hosts: 4 }), { encryptionAlgorithm: "ECDSA-P256" }));
    const commands = [assets.get("bootstrap-manifests/bootstrap-apiserver.yaml"), assets.get("manifests/kube-apiserver.yaml")].map((a) => a?.content ?? "");
    for (const c of commands) expect(c).toMatch(/--encryption-provider-config=\S+\/encryption-config\.yaml/);
    expect(bootstrapSecretFiles([...assets.keys()])[ENCRYPTION_CONFIG_ASSET]).toBe("encryption-config.yaml");
    const secret = YAML.parse(assets.get("manifests/kube-apiserver-secret.yaml")!.content) as { data: Record<string, string> };
    expect(Object.values(secret.data).map((v) => Buffer.from(v, "base64").toString("utf8"))).toContain(assets.get(ENCRYPTION_CONFIG_ASSET)!.content);
  });

  it("a later render of the running cluster keeps the configuration byte for byte", async () => {
    const def = exampleDefinition({ hosts: 4 });
    const before = byPath(await renderAssets(def, { encryptionAlgorithm: "ECDSA-P256" }));
    const after = byPath(await renderAssets(def, { encryptionAlgorithm: "ECDSA-P256", keep: keptPkiFrom(new Map([...before].map(([p, a]) => [p, a.content]))) }));
    expect(after.get(ENCRYPTION_CONFIG_ASSET)!.content).toBe(before.get(ENCRYPTION_CONFIG_ASSET)!.content);
  });

  it("a running cluster rendered before it had one goes on writing plain text: an API server rolled first must not write what the others cannot read", async () => {
    const def = exampleDefinition({ hosts: 4 });
    const before = new Map([...byPath(await renderAssets(def, { encryptionAlgorithm: "ECDSA-P256" }))].map(([p, a]) => [p, a.content]));
    before.delete(ENCRYPTION_CONFIG_ASSET);
    const after = byPath(await renderAssets(def, { encryptionAlgorithm: "ECDSA-P256", keep: keptPkiFrom(before) }));
    const providers = configOf(after).resources[0]!.providers;
    expect(providers[0]).toEqual({ identity: {} });
    expect(providers[1]!.secretbox!.keys).toHaveLength(1);
    expect(after.get(ENCRYPTION_CONFIG_ASSET)!.purpose).toMatch(/writes stay plain text/);
    // The render after that keeps the plain-writing configuration, and says so still.
    const again = byPath(await renderAssets(def, { encryptionAlgorithm: "ECDSA-P256", keep: keptPkiFrom(new Map([...after].map(([p, a]) => [p, a.content]))) }));
    expect(again.get(ENCRYPTION_CONFIG_ASSET)!.content).toBe(after.get(ENCRYPTION_CONFIG_ASSET)!.content);
    expect(again.get(ENCRYPTION_CONFIG_ASSET)!.purpose).toMatch(/writes stay plain text/);
    expect(encryptionWrites(after.get(ENCRYPTION_CONFIG_ASSET)!.content)).toEqual({ provider: "identity" });
  });

  it("names how a configuration writes: its first provider and that provider's first key", () => {
    const config = encryptionConfig({ random: () => Buffer.alloc(32, 7), now: new Date("2026-03-04T05:00:00Z") });
    expect(encryptionWrites(config)).toEqual({ provider: "secretbox", keyName: "key-20260304" });
    expect(encryptionPurpose(config)).toMatch(/written to etcd encrypted \(secretbox/);
    expect(encryptionWrites("kind: Something\n")).toBeUndefined();
  });
});

describe("a key rotation's configurations", () => {
  const day = new Date("2026-12-06T10:00:00Z");
  let n = 0;
  const random = () => Buffer.alloc(32, ++n);
  const providersOf = (text: string) => (YAML.parse(text) as Config).resources[0]!.providers;
  const keysOf = (text: string) => providersOf(text).map((p) => (p.secretbox ? `secretbox:${p.secretbox.keys.map((k) => k.name).join(",")}` : Object.keys(p)[0]));

  it("adds the new key to read with, then writes with it, then keeps it alone: no API server ever writes what another cannot read", () => {
    const current = encryptionConfig({ random, now: new Date("2026-01-02T00:00:00Z") });
    const r = encryptionRotation(current, { random, now: day });
    expect(r.key).toBe("key-20261206");
    expect(r.dropped).toEqual(["key-20260102"]);
    expect(keysOf(r.add)).toEqual(["secretbox:key-20260102,key-20261206", "identity"]);
    expect(keysOf(r.write)).toEqual(["secretbox:key-20261206,key-20260102", "identity"]);
    expect(keysOf(r.final)).toEqual(["secretbox:key-20261206", "identity"]);
    // The old key's material is carried as it was; the new one is 32 fresh bytes, the same in all three.
    const secretOf = (text: string, name: string) => providersOf(text)[0]!.secretbox?.keys.find((k) => k.name === name)?.secret ?? providersOf(text)[1]?.secretbox?.keys.find((k) => k.name === name)?.secret;
    expect(secretOf(r.add, "key-20260102")).toBe(secretOf(current, "key-20260102"));
    expect(Buffer.from(secretOf(r.final, "key-20261206")!, "base64")).toHaveLength(32);
    expect(new Set([r.add, r.write, r.final].map((t) => secretOf(t, "key-20261206")))).toHaveProperty("size", 1);
    expect(encryptionWrites(r.add)).toEqual({ provider: "secretbox", keyName: "key-20260102" });
    expect(encryptionWrites(r.write)).toEqual({ provider: "secretbox", keyName: "key-20261206" });
    expect(encryptionKeys(r.final).map((k) => k.name)).toEqual(["key-20261206"]);
  });

  it("starts encrypting a cluster that wrote plain text: the first write with a key comes after every API server can read it", () => {
    const plain = encryptionConfig({ random, now: new Date("2026-01-02T00:00:00Z"), writes: "plain" });
    const r = encryptionRotation(plain, { random, now: day });
    expect(keysOf(r.add)).toEqual(["identity", "secretbox:key-20260102,key-20261206"]);
    expect(keysOf(r.write)).toEqual(["secretbox:key-20261206,key-20260102", "identity"]);
    expect(keysOf(r.final)).toEqual(["secretbox:key-20261206", "identity"]);
  });

  it("names a second key made the same day apart, and reads a key's day from its name", () => {
    const current = encryptionConfig({ random, now: day });
    const r = encryptionRotation(current, { random, now: day });
    expect(r.key).toBe("key-20261206-2");
    expect(encryptionRotation(r.write, { random, now: day }).key).toBe("key-20261206-3");
    expect(keyName(day, new Set(["key-20261206", "key-20261206-2"]))).toBe("key-20261206-3");
    // A name a dropped key had is never given to another: Secrets in old snapshots carry it.
    expect(encryptionRotation(r.final, { random, now: day, taken: ["key-20261206"] }).key).toBe("key-20261206-3");
    expect(keyMadeOn("key-20261206-2")).toBe("2026-12-06");
    expect(keyMadeOn("key-20260304")).toBe("2026-03-04");
    expect(keyMadeOn("mine")).toBeUndefined();
  });

  it("refuses a configuration Bootdeck did not write, rather than drop what it cannot read", () => {
    const aescbc = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n      - aescbc: {keys: [{name: a, secret: eA==}]}\n      - identity: {}\n";
    expect(() => encryptionRotation(aescbc, { random, now: day })).toThrow(EncryptionRotationError);
    expect(() => encryptionRotation(aescbc, { random, now: day })).toThrow(/0 secretbox providers/);
    const twoResources = "kind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers: [{identity: {}}]\n  - resources: [configmaps]\n    providers: [{identity: {}}]\n";
    expect(() => encryptionRotation(twoResources, { random, now: day })).toThrow(/one resource entry/);
    expect(encryptionKeys(aescbc)).toEqual([]);
  });
});

describe("a restore's configuration", () => {
  it("reads with keys a rotation dropped, after the cluster's own, writing as before", () => {
    const old = encryptionConfig({ random: () => Buffer.alloc(32, 1), now: new Date("2026-01-01T00:00:00Z") });
    const r = encryptionRotation(old, { random: () => Buffer.alloc(32, 2), now: new Date("2026-12-06T00:00:00Z") });
    const merged = withReadKeys(r.final, [...encryptionKeys(old), ...encryptionKeys(r.final)]);
    expect(encryptionKeys(merged).map((k) => k.name)).toEqual(["key-20261206", "key-20260101"]);
    expect(encryptionKeys(merged)[1]).toEqual(encryptionKeys(old)[0]);
    expect(encryptionWrites(merged)).toEqual({ provider: "secretbox", keyName: "key-20261206" });
    expect(withReadKeys(r.final, encryptionKeys(r.final))).toBe(r.final);
  });
});
