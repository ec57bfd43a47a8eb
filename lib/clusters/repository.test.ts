import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { getDb } from "../db/client";
import { ValidationError } from "../http/errors";
import { decryptSecret, secretContexts } from "../secrets/cipher";
import { clusterEncryptionAlgorithm } from "../assets/store";
import { createCluster, deleteCluster, getClusterOrThrow, getExportableDefinition, listClusters, updateCluster } from "./repository";
import { importClusterYaml } from "./import";
import { toClusterYaml } from "../cluster/yaml";

let db: TempDb;
let key: string;
let keyFingerprint: string;

beforeAll(async () => {
  db = await createTempDb();
  const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-key-"));
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", path.join(dir, "id")]);
  key = readFileSync(path.join(dir, "id"), "utf8");
  keyFingerprint = execFileSync("ssh-keygen", ["-l", "-f", path.join(dir, "id.pub")], { encoding: "utf8" }).split(" ")[1]!;
});
afterAll(() => db.cleanup());

describe("cluster definitions in the database", () => {
  it("saves a valid definition with its hosts and an encrypted key, and shows only the fingerprint", async () => {
    const { id } = await createCluster({ definition: exampleDefinition({ name: "alpha" }), secrets: { "admin-key": { privateKey: key } } });
    const view = await getClusterOrThrow({ id });
    expect(view.hosts.map((h) => `${h.name}:${h.role}`)).toEqual(["master-1:master", "master-2:master", "master-3:master", "worker-1:worker", "worker-2:worker", "worker-3:worker"]);
    expect(view.credentials).toEqual([{ name: "admin-key", type: "privateKey", fingerprint: keyFingerprint, hasSecret: true }]);
    expect(JSON.stringify(view)).not.toContain("PRIVATE KEY");
    const row = await getDb().credential.findFirstOrThrow({ where: { clusterId: id } });
    expect(row.secretCipher).toMatch(/^v2:/);
    expect(decryptSecret(row.secretCipher!, secretContexts.credential(id, "admin-key", "secretCipher"))).toBe(key);
    // Bound to its row: the same value under another cluster's credential does not open.
    expect(() => decryptSecret(row.secretCipher!, secretContexts.credential("cl_othercluster0001", "admin-key", "secretCipher"))).toThrow(/does not authenticate/);
  });

  it("never saves an invalid definition, and says what is wrong by field", async () => {
    const bad = exampleDefinition({ name: "beta" });
    bad.spec.network.serviceCidr = bad.spec.network.podCidr;
    const err = await createCluster({ definition: bad, secrets: { "admin-key": { privateKey: key } } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).errors.map((e) => e.path)).toEqual(["spec.network.serviceCidr", "spec.network.dnsServiceIp"]);
    expect((await listClusters()).map((c) => c.name)).toEqual(["alpha"]);
  });

  it("refuses a key that SSH cannot use, or a missing one", async () => {
    const err1 = (await createCluster({ definition: exampleDefinition({ name: "gamma" }), secrets: { "admin-key": { privateKey: "not a key" } } }).catch((e: unknown) => e)) as ValidationError;
    expect(err1.errors).toEqual([{ path: "secrets.admin-key.privateKey", message: expect.stringContaining("not a private key") }]);
    const err2 = (await createCluster({ definition: exampleDefinition({ name: "gamma" }), secrets: {} }).catch((e: unknown) => e)) as ValidationError;
    expect(err2.errors[0]?.path).toBe("secrets.admin-key.privateKey");
  });

  it("refuses a second cluster with the same name", async () => {
    const err = (await createCluster({ definition: exampleDefinition({ name: "alpha" }), secrets: { "admin-key": { privateKey: key } } }).catch((e: unknown) => e)) as { status: number };
    expect(err.status).toBe(409);
  });

  it("keeps host state by name on edit, and drops the pinned key of a host that moved", async () => {
    const [alpha] = await listClusters();
    const id = alpha!.id;
    await getDb().host.updateMany({ where: { clusterId: id }, data: { hostKeyFingerprint: "SHA256:pinned" } });
    const def = exampleDefinition({ name: "alpha" });
    def.spec.hosts[1]!.address = "192.0.2.99";
    def.spec.hosts.pop();
    await updateCluster({ id, definition: def, secrets: {} });
    const view = await getClusterOrThrow({ id });
    expect(view.hosts.map((h) => [h.name, h.hostKeyFingerprint])).toEqual([
      ["master-1", "SHA256:pinned"],
      ["master-2", null],
      ["master-3", "SHA256:pinned"],
      ["worker-1", "SHA256:pinned"],
      ["worker-2", "SHA256:pinned"],
    ]);
    expect(view.credentials[0]?.hasSecret).toBe(true);
  });

  it("exports YAML without secrets that re-imports to the same definition", async () => {
    const [alpha] = await listClusters();
    const exported = await getExportableDefinition({ id: alpha!.id });
    const yaml = toClusterYaml(exported);
    expect(yaml).not.toMatch(/PRIVATE KEY|passphrase:|password:/);
    expect(yaml).toContain(keyFingerprint);
    const res = await importClusterYaml({ yaml, secrets: {}, replace: true });
    expect(res).toMatchObject({ id: alpha!.id, created: false });
    expect((await getExportableDefinition({ id: alpha!.id }))).toEqual(exported);
    await expect(importClusterYaml({ yaml, secrets: {}, replace: false })).rejects.toMatchObject({ status: 409 });
  });

  it("deletes only when the typed name matches, with everything it owns", async () => {
    const [alpha] = await listClusters();
    await expect(deleteCluster({ id: alpha!.id, confirmName: "alpha " })).rejects.toBeInstanceOf(ValidationError);
    await deleteCluster({ id: alpha!.id, confirmName: "alpha" });
    expect(await listClusters()).toEqual([]);
    expect(await getDb().host.count()).toBe(0);
    expect(await getDb().credential.count()).toBe(0);
  });
});

describe("pinned host keys across an update", () => {
  it("says which pins it kept, cleared (the host moved) and removed (the host left); never silently", async () => {
    const def = exampleDefinition({ name: "pins" });
    const { id } = await createCluster({ definition: def, secrets: { "admin-key": { privateKey: key } } });
    const fp = (n: number) => `SHA256:${String(n).repeat(43).slice(0, 43)}`;
    for (const [i, name] of ["master-1", "worker-1", "worker-3"].entries()) await getDb().host.updateMany({ where: { clusterId: id, name }, data: { hostKeyFingerprint: fp(i + 1) } });
    const next = structuredClone(def);
    next.spec.hosts = next.spec.hosts.filter((h) => h.name !== "worker-3").map((h) => (h.name === "worker-1" ? { ...h, address: "192.0.2.99" } : h));
    const { hostKeys } = await updateCluster({ id, definition: next, secrets: {} });
    expect(hostKeys).toEqual({
      kept: [{ host: "master-1", fingerprint: fp(1) }],
      cleared: [{ host: "worker-1", fingerprint: fp(2), from: "192.0.2.14:22", to: "192.0.2.99:22" }],
      removed: [{ host: "worker-3", fingerprint: fp(3) }],
    });
    const rows = await getDb().host.findMany({ where: { clusterId: id }, orderBy: { position: "asc" } });
    expect(rows.find((h) => h.name === "master-1")?.hostKeyFingerprint).toBe(fp(1));
    expect(rows.find((h) => h.name === "worker-1")?.hostKeyFingerprint).toBeNull();
  });
});

describe("the key algorithm of a cluster", () => {
  const saveSet = async (clusterId: string, options: Record<string, unknown>) =>
    (await getDb().assetSet.create({ data: { id: `as_${Math.random().toString(36).slice(2, 18).padEnd(16, "x")}`, clusterId, version: ((await getDb().assetSet.count({ where: { clusterId } })) + 1), options: JSON.stringify(options) } })).id;

  it("is ECDSA-P256 for a new cluster, and an existing one's set's (RSA-2048 for a set of before the choice)", async () => {
    const { id } = await createCluster({ definition: exampleDefinition({ name: "algo-new" }), secrets: { "admin-key": { privateKey: key } } });
    const { definition } = await getClusterOrThrow({ id });
    expect(await clusterEncryptionAlgorithm({ clusterId: id, definition })).toBe("ECDSA-P256");
    await saveSet(id, { keyType: "rsa", caValidityDays: 3650, leafValidityDays: 365, importedCa: false });
    expect(await clusterEncryptionAlgorithm({ clusterId: id, definition })).toBe("RSA-2048");
    await saveSet(id, {});
    expect(await clusterEncryptionAlgorithm({ clusterId: id, definition })).toBe("RSA-2048");
    expect(await clusterEncryptionAlgorithm({ clusterId: id, definition: { ...definition, spec: { ...definition.spec, pki: { encryptionAlgorithm: "RSA-3072" } } } })).toBe("RSA-3072");
  });

  it("may change before a bootstrap, and is refused once a run has pushed the cluster's PKI, until a reset", async () => {
    const def = exampleDefinition({ name: "algo-running" });
    const { id } = await createCluster({ definition: def, secrets: { "admin-key": { privateKey: key } } });
    const setId = await saveSet(id, { encryptionAlgorithm: "RSA-2048" });
    const withAlgorithm = (encryptionAlgorithm: "RSA-2048" | "ECDSA-P256") => ({ ...def, spec: { ...def.spec, pki: { encryptionAlgorithm } } });
    await updateCluster({ id, definition: withAlgorithm("ECDSA-P256"), secrets: {} });
    const run = await getDb().run.create({ data: { id: "run_algorithmrunning1", clusterId: id, type: "bootstrap", status: "succeeded", assetSetId: setId, startedAt: new Date() } });
    const err = await updateCluster({ id, definition: withAlgorithm("ECDSA-P256"), secrets: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).errors).toEqual([
      {
        path: "spec.pki.encryptionAlgorithm",
        message: "the cluster runs RSA-2048 keys (asset set v1); ECDSA-P256 needs new CAs, and a certificate rotation keeps the CAs: keep RSA-2048 (or leave the field out), or reset the cluster and bootstrap it again with ECDSA-P256",
      },
    ]);
    // Its own algorithm, or none (keep it), is fine.
    await updateCluster({ id, definition: withAlgorithm("RSA-2048"), secrets: {} });
    await updateCluster({ id, definition: def, secrets: {} });
    await getDb().run.create({ data: { id: "run_algorithmrunning2", clusterId: id, type: "reset", status: "succeeded", assetSetId: setId, startedAt: new Date(), createdAt: new Date(run.createdAt.getTime() + 1000) } });
    await updateCluster({ id, definition: withAlgorithm("ECDSA-P256"), secrets: {} });
  });
});
