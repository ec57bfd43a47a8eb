import { generateKeyPairSync, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "./test-helpers";
import { buildCertificate, certificatePem, keyIdentifier, subjectKeyIdentifierOf } from "./x509";

const rsa = () => generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = () => generateKeyPairSync("ec", { namedCurve: "P-256" });

function ca(keys: ReturnType<typeof rsa>, notAfter: Date) {
  return buildCertificate({
    subject: [{ shortName: "CN", value: "test-ca" }],
    serial: Buffer.from([0x01, 0x02]),
    notBefore: new Date("2026-01-01T00:00:00Z"),
    notAfter,
    publicKey: keys.publicKey,
    isCa: true,
    usages: [],
    altNames: [],
    signingKey: keys.privateKey,
  });
}

describe("buildCertificate", () => {
  it("lets an RSA CA sign an ECDSA leaf with sha256WithRSAEncryption, and openssl verify it", () => {
    const caKeys = rsa();
    const caDer = ca(caKeys, new Date("2036-01-01T00:00:00Z"));
    const leafKeys = ec();
    const leafDer = buildCertificate({
      subject: [{ shortName: "O", value: "org" }, { shortName: "CN", value: "leaf" }],
      serial: Buffer.from([0x7f, 0xff]),
      notBefore: new Date("2026-01-01T00:00:00Z"),
      notAfter: new Date("2027-01-01T00:00:00Z"),
      publicKey: leafKeys.publicKey,
      isCa: false,
      usages: ["serverAuth"],
      altNames: [{ dns: "example.test" }, { ip: "10.0.0.1" }, { ip: "fd00::1" }],
      issuer: { certDer: caDer },
      signingKey: caKeys.privateKey,
    });
    const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-x509-"));
    try {
      writeFileSync(path.join(dir, "ca.crt"), certificatePem(caDer));
      writeFileSync(path.join(dir, "leaf.crt"), certificatePem(leafDer));
      expect(run("openssl", ["verify", "-x509_strict", "-CAfile", path.join(dir, "ca.crt"), path.join(dir, "leaf.crt")]).code).toBe(0);
      const text = run("openssl", ["x509", "-in", path.join(dir, "leaf.crt"), "-noout", "-text"]).out;
      expect(text).toContain("Signature Algorithm: sha256WithRSAEncryption");
      expect(text).toContain("Subject: O = org, CN = leaf");
      expect(text).toContain("DNS:example.test, IP Address:10.0.0.1, IP Address:FD00:0:0:0:0:0:0:1");
      expect(text).not.toContain("Key Encipherment"); // ECDSA keys only sign
      const leaf = new X509Certificate(leafDer);
      expect(leaf.checkIssued(new X509Certificate(caDer))).toBe(true);
      expect(subjectKeyIdentifierOf(leafDer)).toEqual(keyIdentifier(leafKeys.publicKey));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("encodes dates from 2050 as GeneralizedTime so a 30-year CA stays valid", () => {
    const der = ca(ec(), new Date("2056-06-01T00:00:00Z"));
    expect(new Date(new X509Certificate(der).validTo).toISOString()).toBe("2056-06-01T00:00:00.000Z");
  });
});
