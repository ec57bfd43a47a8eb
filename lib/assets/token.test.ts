import { describe, expect, it } from "vitest";
import { seededRandom } from "./test-helpers";
import { BOOTSTRAP_TOKEN_TTL_MS, TOKEN_PATTERN, bootstrapTokenSecret, generateBootstrapToken, isBootstrapTokenSecret, withExpiration } from "./token";

describe("bootstrap tokens", () => {
  it("match the pattern the API server's bootstrap authenticator accepts", () => {
    for (let i = 0; i < 200; i++) expect(generateBootstrapToken().token).toMatch(TOKEN_PATTERN);
  });

  it("skip bytes that would bias the alphabet and stay deterministic for a seeded source", () => {
    const allHigh = (n: number) => Buffer.alloc(n, 255);
    let calls = 0;
    const mixed = (n: number) => (calls++ === 0 ? allHigh(n) : seededRandom("t")(n));
    expect(generateBootstrapToken(mixed).token).toMatch(TOKEN_PATTERN);
    expect(generateBootstrapToken(seededRandom("x"))).toEqual(generateBootstrapToken(seededRandom("x")));
  });

  it("become a kube-system Secret named after the token id", () => {
    const t = generateBootstrapToken(seededRandom("s"));
    const s = bootstrapTokenSecret(t, { description: "d" });
    expect(s.metadata).toEqual({ name: `bootstrap-token-${t.id}`, namespace: "kube-system" });
    expect(s.type).toBe("bootstrap.kubernetes.io/token");
    expect(s.stringData).toMatchObject({ "token-id": t.id, "token-secret": t.secret, "usage-bootstrap-authentication": "true" });
  });

  it("are rendered without an expiration and expire a day after they are applied (RFC 3339, whole seconds)", () => {
    const s = bootstrapTokenSecret(generateBootstrapToken(seededRandom("e")), { description: "d" });
    expect(s.stringData).not.toHaveProperty("expiration");
    expect(isBootstrapTokenSecret(s)).toBe(true);
    const applied = withExpiration(s, new Date("2026-12-01T10:00:00.123Z"));
    expect(applied.stringData.expiration).toBe("2026-12-02T10:00:00Z");
    expect(Date.parse(applied.stringData.expiration) - Date.parse("2026-12-01T10:00:00Z")).toBe(BOOTSTRAP_TOKEN_TTL_MS);
    expect(applied.stringData["token-secret"]).toBe(s.stringData["token-secret"]);
  });
});
