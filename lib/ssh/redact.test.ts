import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "./redact";

describe("Redactor", () => {
  it("hides registered secrets wherever they appear, longest first", () => {
    const r = new Redactor().add("hunter22", "hunter22-extended", "abc");
    expect(r.redact("pw=x hunter22-extended and hunter22.")).toBe(`pw=x ${REDACTED} and ${REDACTED}.`);
    expect(r.redact("abc is too short to register")).toBe("abc is too short to register");
  });

  it("hides bootstrap tokens, bearer tokens and key=value secrets", () => {
    const r = new Redactor();
    expect(r.redact("token abcdef.0123456789abcdef used")).toBe(`token ${REDACTED} used`);
    expect(r.redact("Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.x.y")).toBe(`Authorization: ${REDACTED}`);
    expect(r.redact('password="s3cret" user=bob')).toBe(`password="${REDACTED}" user=bob`);
    expect(r.redact("api_key: AKIA123")).toBe(`api_key: ${REDACTED}`);
    expect(r.redact("plain line 10.0.0.1 kube-apiserver")).toBe("plain line 10.0.0.1 kube-apiserver");
  });

  it("hides a whole private key printed line by line", () => {
    const lr = new Redactor().forStream();
    const out = [
      "before",
      "-----BEGIN RSA PRIVATE KEY-----",
      "MIIEowIBAAKCAQEA1",
      "abcdef",
      "-----END RSA PRIVATE KEY-----",
      "after",
    ].map(lr);
    expect(out).toEqual(["before", `${REDACTED} (RSA PRIVATE KEY)`, REDACTED, REDACTED, REDACTED, "after"]);
  });

  it("hides OpenSSH and PKCS#8 keys in one text, but leaves certificates", () => {
    const text = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
    expect(new Redactor().redact(text)).toBe(`${REDACTED}\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----`);
  });

  it("hides lines of a registered multi-line secret (a key file)", () => {
    const key = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----";
    const r = new Redactor().add(key);
    expect(r.redact("leaked: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")).toBe(`leaked: ${REDACTED}`);
  });

  it("hides a kubeconfig's client-key-data and token, in YAML and JSON, and keeps its certificates", () => {
    const key = Buffer.from("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1\n-----END RSA PRIVATE KEY-----\n").toString("base64");
    const cert = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").toString("base64");
    const yaml = `users:\n- name: admin\n  user:\n    client-certificate-data: ${cert}\n    client-key-data: ${key}\n    token: 3f1c0b6e9a7d4c2b8e5f0a1d\n`;
    const out = new Redactor().redact(yaml);
    expect(out).toBe(`users:\n- name: admin\n  user:\n    client-certificate-data: ${cert}\n    client-key-data: ${REDACTED}\n    token: ${REDACTED}\n`);
    const json = JSON.stringify({ users: [{ user: { "client-certificate-data": cert, "client-key-data": key } }] });
    expect(new Redactor().redact(json)).toBe(JSON.stringify({ users: [{ user: { "client-certificate-data": cert, "client-key-data": REDACTED } }] }));
    // Line by line (live step output) too.
    expect(new Redactor().forStream()(`    client-key-data: ${key}`)).toBe(`    client-key-data: ${REDACTED}`);
  });

  it("hides a base64 private key wherever it stands, without a field name", () => {
    const key = Buffer.from("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\n-----END EC PRIVATE KEY-----\n").toString("base64");
    expect(new Redactor().redact(`echo ${key} | base64 -d`)).toBe(`echo ${REDACTED} | base64 -d`);
  });
});
