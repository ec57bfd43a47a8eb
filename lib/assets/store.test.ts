// Asset sets against a real, migrated SQLite file (test/temp-db.ts).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { renderAssets } from "./render";
import { renderAndSaveAssetSet } from "../clusters/render-assets";
import { assetSetTarball, diffAssetSets, getAssetSet, listAssetSets, saveAssetSet } from "./store";
import type { RenderedAsset } from "./types";

let db: TempDb;
let clusterId: string;
let first: RenderedAsset[];
const options = { encryptionAlgorithm: "ECDSA-P256" as const, caValidityDays: 3650, leafValidityDays: 365, importedCa: false };

beforeAll(async () => {
  db = await createTempDb();
  const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-key-"));
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", path.join(dir, "id")]);
  const key = readFileSync(path.join(dir, "id"), "utf8");
  rmSync(dir, { recursive: true, force: true });
  ({ id: clusterId } = await createCluster({ definition: exampleDefinition({ name: "assets", hosts: 4 }), secrets: { "admin-key": { privateKey: key } } }));
  first = await renderAssets(exampleDefinition({ name: "assets", hosts: 4 }));
});
afterAll(() => db.cleanup());

describe("asset sets in the database", () => {
  let v1: string;

  it("saves each render as the next version, sealing sensitive contents and hashing the plain text", async () => {
    const saved = await saveAssetSet({ clusterId, assets: first, options });
    v1 = saved.id;
    expect(saved.version).toBe(1);
    const rows = await getDb().asset.findMany({ where: { assetSetId: saved.id } });
    expect(rows.length).toBe(first.length);
    const key = rows.find((r) => r.path === "tls/ca.key");
    const plain = first.find((a) => a.path === "tls/ca.key")?.content ?? "";
    expect(key?.content).toMatch(/^v2:/); // sealed for its own row (docs/access.md)
    expect(key?.content).not.toContain("PRIVATE KEY");
    expect(key?.sha256).toBe(execFileSync("sha256sum", { input: plain, encoding: "utf8" }).split(" ")[0]);
    expect(key?.size).toBe(Buffer.byteLength(plain));
    expect(rows.find((r) => r.path === "tls/ca.crt")?.content).toContain("BEGIN CERTIFICATE");
    expect((await saveAssetSet({ clusterId, assets: first, options })).version).toBe(2);
  });

  it("says the cluster is gone when it was deleted while its assets rendered", async () => {
    await expect(saveAssetSet({ clusterId: "cl_deletedmeanwhile", assets: first, options })).rejects.toMatchObject({ status: 404, message: expect.stringMatching(/Cluster/) });
  });

  it("hides sensitive contents unless secrets are asked for", async () => {
    const hidden = await getAssetSet({ id: v1 });
    expect(hidden.assets.find((a) => a.path === "tls/ca.key")?.content).toBeUndefined();
    expect(hidden.assets.find((a) => a.path === "auth/kubeconfig")?.content).toBeUndefined();
    expect(JSON.stringify(hidden)).not.toContain("PRIVATE KEY");
    const shown = await getAssetSet({ id: v1, includeSecrets: true });
    expect(shown.assets.find((a) => a.path === "tls/ca.key")?.content).toBe(first.find((a) => a.path === "tls/ca.key")?.content);
  });

  it("describes certificates: subject, SANs, issuer and expiry", async () => {
    const set = await getAssetSet({ id: v1 });
    const api = set.assets.find((a) => a.path === "tls/apiserver.crt")?.certificate;
    expect(api?.subject).toBe("CN=kube-apiserver");
    expect(api?.issuer).toBe("CN=kube-ca");
    expect(api?.altNames).toEqual(expect.arrayContaining(["IP:192.0.2.11", "DNS:api.example.internal", "IP:10.3.0.1", "DNS:kubernetes.default.svc.cluster.local"]));
    expect(api?.daysLeft).toBeGreaterThanOrEqual(364);
    expect(api?.keyType).toBe("ECDSA P-256");
    expect(set.assets.find((a) => a.path === "tls/admin.crt")?.certificate?.subject).toBe("O=system:masters, CN=kubernetes-admin");
    expect(set.assets.find((a) => a.path === "tls/ca.crt")?.certificate?.isCa).toBe(true);
  });

  it("lists versions newest first with their options", async () => {
    const sets = await listAssetSets({ clusterId });
    expect(sets.map((s) => s.version)).toEqual([2, 1]);
    expect(sets[0]).toMatchObject({ options, fileCount: first.length });
  });

  it("diffs two renders: text for public files, checksums only for sensitive ones, added and removed files", async () => {
    const bigger = await renderAssets(exampleDefinition({ name: "assets", hosts: 5 }));
    const v3 = await saveAssetSet({ clusterId, assets: bigger, options });
    const { entries } = await diffAssetSets({ a: v1, b: v3.id });
    const e = (p: string) => entries.find((x) => x.path === p);
    expect(e("kubelet/hosts/worker-2.env")?.status).toBe("added");
    expect(e("kubelet/kubelet.service")?.status).toBe("unchanged");
    expect(e("tls/ca.crt")).toMatchObject({ status: "changed", sensitive: false });
    // Certificates diff by their facts: same names, new serial and key.
    expect(e("tls/ca.crt")?.diff).toMatch(/^ subject: CN=kube-ca$/m);
    expect(e("tls/ca.crt")?.diff).toMatch(/^-serial: [0-9A-F]+$/m);
    expect(e("tls/ca.crt")?.diff).toMatch(/^\+serial: [0-9A-F]+$/m);
    expect(e("tls/ca.key")).toEqual({ path: "tls/ca.key", status: "changed", sensitive: true });
    const cm = e("manifests/coredns-service.yaml");
    expect(cm?.status).toBe("unchanged");
    const removed = await diffAssetSets({ a: v3.id, b: v1 });
    expect(removed.entries.find((x) => x.path === "kubelet/hosts/worker-2.env")?.status).toBe("removed");
  });

  it("downloads as a .tar.gz that leaves out private keys and tokens unless asked", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-tar-"));
    for (const includeSecrets of [false, true]) {
      const { fileName, stream } = await assetSetTarball({ id: v1, includeSecrets });
      const chunks: Buffer[] = [];
      for await (const c of stream) chunks.push(c as Buffer);
      const file = path.join(dir, fileName);
      writeFileSync(file, Buffer.concat(chunks));
      const listing = execFileSync("tar", ["-tzvf", file], { encoding: "utf8" });
      expect(listing).toContain("assets-assets-v1/tls/ca.crt");
      expect(listing).toMatch(/^-rw------- .*tls\/ca\.crt$/m);
      expect(listing).toMatch(/^drwx------ .*assets-assets-v1\/tls\/$/m);
      if (includeSecrets) {
        expect(listing).toContain("tls/ca.key");
        expect(listing.trim().split("\n").filter((l) => l.startsWith("-")).length).toBe(first.length);
      } else {
        expect(fileName).toBe("assets-assets-v1-public.tar.gz");
        expect(listing).not.toMatch(/\.key$|auth\/kubeconfig|bootstrap-token|-secret\.yaml/m);
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it("renders the stored definition and saves it, reporting progress", async () => {
    const progress: number[] = [];
    const saved = await renderAndSaveAssetSet({ clusterId, options: { onProgress: (d) => progress.push(d) } });
    expect(saved.version).toBe(4);
    // The definition names no algorithm: the cluster's latest set's (ECDSA-P256) is kept.
    expect((await listAssetSets({ clusterId }))[0]?.options.encryptionAlgorithm).toBe("ECDSA-P256");
    expect(saved.fileCount).toBe(first.length);
    expect(progress.length).toBeGreaterThan(10);
  });
});
