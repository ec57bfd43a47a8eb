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
    expect(new Redactor().redact(text)).toBe(
      `${REDACTED} (OPENSSH PRIVATE KEY)\n${REDACTED}\n${REDACTED}\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----`,
    );
  });

  it("hides lines of a registered multi-line secret (a key file)", () => {
    const key = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----";
    const r = new Redactor().add(key);
    expect(r.redact("leaked: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC")).toBe(`leaked: ${REDACTED}`);
  });
});
