// The hardening summary: what a rendered set says about encryption, the audit log, Pod Security and
// profiling, and that no key leaves the server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testKeyPair } from "../../test/ssh-key";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { ENCRYPTION_CONFIG_ASSET, encryptionConfig } from "../assets/encryption";
import { ADMISSION_CONFIG_ASSET, AUDIT_POLICY_ASSET } from "../assets/api-policy";
import { renderAssets } from "../assets/render";
import { assetContent } from "../assets/store";
import { exampleDefinition } from "../cluster/example";
import { renderAndSaveAssetSet } from "../clusters/render-assets";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { clusterHardening, hardeningOf } from "./summary";

const filesOf = async (def: unknown, now = new Date("2026-12-01T10:00:00Z")) => new Map((await renderAssets(def, { now })).map((a) => [a.path, a.content]));

describe("hardeningOf a rendered set", () => {
  it("reports Secrets encrypted under the day's key, the audit log with its rotation, Pod Security's defaults and profiling off", async () => {
    const h = hardeningOf(await filesOf(exampleDefinition({ hosts: 4 })), 3, new Date("2026-12-31T09:00:00Z"));
    expect(h).toEqual({
      assetSetVersion: 3,
      encryption: { state: "encrypted", provider: "secretbox", keyName: "key-20261201", keyCreated: "2026-12-01", keyAgeDays: 30 },
      audit: { on: true, log: "/var/log/kubernetes/audit/audit.log", maxSizeMb: 100, maxBackups: 10, maxAgeDays: 30 },
      podSecurity: { enforce: "baseline", warn: "restricted", audit: "restricted", exemptNamespaces: ["kube-system"] },
      profilingOff: true,
    });
  });

  it("follows the definition's Pod Security levels and exemptions, in the static mode too", async () => {
    const def = exampleDefinition({ hosts: 4 });
    const input = { ...def, spec: { ...def.spec, kubernetes: { ...def.spec.kubernetes, controlPlane: "static" }, podSecurity: { enforce: "restricted", exemptNamespaces: ["monitoring"] } } };
    const h = hardeningOf(await filesOf(input), 1);
    expect(h.podSecurity).toEqual({ enforce: "restricted", warn: "restricted", audit: "restricted", exemptNamespaces: ["kube-system", "monitoring"] });
    expect(h.profilingOff).toBe(true);
  });

  it("says when Secrets are still written in plain text, and when a set predates each piece", async () => {
    const files = await filesOf(exampleDefinition({ hosts: 4 }));
    files.set(ENCRYPTION_CONFIG_ASSET, encryptionConfig({ random: () => Buffer.alloc(32, 1), now: new Date(), writes: "plain" }));
    expect(hardeningOf(files, 2).encryption).toEqual({ state: "plain", provider: "identity" });

    for (const p of [ENCRYPTION_CONFIG_ASSET, AUDIT_POLICY_ASSET, ADMISSION_CONFIG_ASSET]) files.delete(p);
    for (const [p, c] of files) if (p.endsWith("kube-scheduler.yaml")) files.set(p, c.replace("--profiling=false", "--profiling=true"));
    expect(hardeningOf(files, 2)).toMatchObject({ encryption: { state: "none" }, audit: { on: false }, podSecurity: null, profilingOff: false });
  });
});

describe("clusterHardening", () => {
  let db: TempDb;
  let clusterId: string;
  beforeAll(async () => {
    db = await createTempDb();
    clusterId = (await createCluster({ definition: exampleDefinition({ name: "hardened", hosts: 2 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
  });
  afterAll(async () => db?.cleanup());

  it("is empty before any render, then reads the newest set without letting the key out", async () => {
    expect(await clusterHardening({ clusterId })).toMatchObject({ assetSetVersion: null, encryption: { state: "none" }, audit: { on: false }, podSecurity: null, profilingOff: false });
    await renderAndSaveAssetSet({ clusterId, options: {} });
    const h = await clusterHardening({ clusterId });
    expect(h).toMatchObject({ assetSetVersion: 1, encryption: { state: "encrypted", provider: "secretbox", keyName: expect.stringMatching(/^key-\d{8}$/) }, audit: { on: true }, profilingOff: true });
    const set = await getDb().assetSet.findFirstOrThrow({ where: { clusterId } });
    const row = await getDb().asset.findFirstOrThrow({ where: { assetSetId: set.id, path: ENCRYPTION_CONFIG_ASSET } });
    const secret = /secret: (\S+)/.exec(assetContent(row))![1]!;
    expect(JSON.stringify(h)).not.toContain(secret);
  });

  it("stays with the set a run rolled out while a newer one waits (a key rotation planned, not run)", async () => {
    const first = await getDb().assetSet.findFirstOrThrow({ where: { clusterId }, orderBy: { version: "asc" } });
    await getDb().run.create({ data: { id: "run_HARDENINGAAAAAAA", clusterId, type: "bootstrap", status: "succeeded", assetSetId: first.id, startedAt: new Date() } });
    await renderAndSaveAssetSet({ clusterId, options: {} });
    expect((await clusterHardening({ clusterId })).assetSetVersion).toBe(first.version);
  });

  it("is a 404 for an unknown cluster", async () => {
    await expect(clusterHardening({ clusterId: "cl_AAAAAAAAAAAAAAAA" })).rejects.toMatchObject({ status: 404 });
  });
});
