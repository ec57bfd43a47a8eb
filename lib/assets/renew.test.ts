// A renewal keeps every CA, key and the bootstrap token and issues each leaf again: openssl verifies
// the new leaves against the old CAs, and their keys are the old keys.
import { X509Certificate } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exampleDefinition } from "../cluster/example";
import { renderAssets } from "./render";
import { renderRenewed, RenewError } from "./renew";
import { run, writeAssetsToTemp } from "./test-helpers";

describe("renderRenewed", async () => {
  const def = exampleDefinition({ hosts: 5 });
  const before = await renderAssets(def, { leafValidityDays: 30 });
  const prev = new Map(before.map((a) => [a.path, a.content]));
  const later = new Date(Date.now() + 10 * 86_400_000);
  const { assets, report } = await renderRenewed(def, prev, { leafValidityDays: 365, caValidityDays: 3650, now: later });
  const after = new Map(assets.map((a) => [a.path, a.content]));

  it("keeps the CAs, every key, the service-account pair and the bootstrap token byte for byte", () => {
    expect(report.keptCas.sort()).toEqual(["ca", "etcd-ca", "front-proxy-ca"]);
    for (const [path, content] of prev) if (/\.key$|^tls\/(ca|etcd\/ca|front-proxy-ca)\.crt$|service-account\.pub$|kubelet-bootstrap-token/.test(path)) expect(after.get(path), path).toBe(content);
    expect(after.get("auth/kubeconfig-kubelet")).toBe(prev.get("auth/kubeconfig-kubelet"));
  });

  it("issues every leaf again: a new serial, the new validity, the same key and names, verified by the old CA", () => {
    expect(report.renewed.map((r) => r.path)).toContain("tls/apiserver.crt");
    expect(report.renewed.length).toBe(before.filter((a) => a.path.endsWith(".crt")).length - 3);
    const dir = writeAssetsToTemp(assets);
    const oldDir = writeAssetsToTemp(before);
    try {
      for (const r of report.renewed) {
        expect(r.newSerial).not.toBe(r.oldSerial);
        const n = new X509Certificate(after.get(r.path)!);
        const o = new X509Certificate(prev.get(r.path)!);
        expect(n.subject).toBe(o.subject);
        expect(n.subjectAltName).toBe(o.subjectAltName);
        expect(n.publicKey.export({ format: "der", type: "spki" }).equals(o.publicKey.export({ format: "der", type: "spki" }))).toBe(true);
        expect(Math.round((Date.parse(n.validTo) - later.getTime()) / 86_400_000)).toBe(365);
        const ca = r.path.startsWith("tls/etcd") ? "tls/etcd/ca.crt" : r.path.startsWith("tls/front-proxy") ? "tls/front-proxy-ca.crt" : "tls/ca.crt";
        const v = run("openssl", ["verify", "-x509_strict", "-attime", String(Math.floor(later.getTime() / 1000) + 600), "-CAfile", join(oldDir, ca), join(dir, r.path)]);
        expect(v.out, r.path).toMatch(/: OK/);
      }
      // The admin kubeconfig carries the new admin certificate.
      expect(after.get("auth/kubeconfig")).not.toBe(prev.get("auth/kubeconfig"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(oldDir, { recursive: true, force: true });
    }
  });

  it("gives the masters' kubelets their own identities when the set predates them, with keys of the set's algorithm", async () => {
    const rsa = exampleDefinition({ hosts: 4 });
    rsa.spec.pki = { encryptionAlgorithm: "RSA-2048" };
    const old = new Map((await renderAssets(rsa)).map((a) => [a.path, a.content]));
    for (const p of [...old.keys()]) if (p.startsWith("tls/kubelet/") || p.startsWith("auth/kubeconfig-kubelet-")) old.delete(p);
    // As a definition saved before the algorithm was a field: the kept CA says RSA-2048.
    const renewed = await renderRenewed(exampleDefinition({ hosts: 4 }), old, { leafValidityDays: 365, caValidityDays: 3650 });
    expect(renewed.report.added.sort()).toEqual(["tls/kubelet/master-1.crt", "tls/kubelet/master-2.crt", "tls/kubelet/master-3.crt"]);
    const m1 = renewed.assets.find((a) => a.path === "tls/kubelet/master-1.crt")!;
    const key = new X509Certificate(m1.content).publicKey;
    expect([key.asymmetricKeyType, key.asymmetricKeyDetails?.modulusLength]).toEqual(["rsa", 2048]);
    expect(new X509Certificate(m1.content).verify(new X509Certificate(old.get("tls/ca.crt")!).publicKey)).toBe(true);
    expect(renewed.assets.find((a) => a.path === "tls/ca.crt")?.content).toBe(old.get("tls/ca.crt"));
  });

  it("refuses a set without the keys it must keep", async () => {
    const partial = new Map(prev);
    partial.delete("tls/apiserver.key");
    await expect(renderRenewed(def, partial, { leafValidityDays: 365, caValidityDays: 3650 })).rejects.toThrow(RenewError);
  });
});
