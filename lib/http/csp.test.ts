import { describe, expect, test } from "vitest";
import { buildCsp, newNonce } from "./csp";

describe("page Content-Security-Policy", () => {
  const prod = buildCsp({ nonce: "abc123", dev: false, https: false });
  const directives = Object.fromEntries(prod.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));

  test("scripts need the nonce: no 'unsafe-inline', no eval in production", () => {
    expect(directives["script-src"]).toEqual(["'self'", "'nonce-abc123'", "'strict-dynamic'"]);
    expect(prod).not.toContain("unsafe-inline");
    expect(prod).not.toContain("unsafe-eval");
  });

  test("no framing, no plugins, no foreign base or form targets", () => {
    expect(directives["frame-ancestors"]).toEqual(["'none'"]);
    expect(directives["object-src"]).toEqual(["'none'"]);
    expect(directives["base-uri"]).toEqual(["'self'"]);
    expect(directives["form-action"]).toEqual(["'self'"]);
  });

  test("upgrade-insecure-requests only over HTTPS; eval only in development", () => {
    expect(prod).not.toContain("upgrade-insecure-requests");
    expect(buildCsp({ nonce: "n", dev: false, https: true })).toContain("upgrade-insecure-requests");
    expect(buildCsp({ nonce: "n", dev: true, https: false })).toContain("'unsafe-eval'");
  });

  test("nonces are fresh and base64 of 16 random bytes", () => {
    const a = newNonce();
    expect(a).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(newNonce()).not.toBe(a);
  });
});
