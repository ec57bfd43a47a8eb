// The lab API server's service-account tokens, for every key algorithm a cluster may choose.
import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signJwt, verifyJwt } from "./jwt";

const pair = (type: "rsa" | "ec", opts: object) => {
  const k = generateKeyPairSync(type as "ec", opts as { namedCurve: string });
  return { priv: k.privateKey.export({ type: "pkcs8", format: "pem" }) as string, pub: k.publicKey.export({ type: "spki", format: "pem" }) as string };
};

describe("service-account JWTs", () => {
  it.each([
    ["RS256", pair("rsa", { modulusLength: 2048 })],
    ["ES256", pair("ec", { namedCurve: "P-256" })],
    ["ES384", pair("ec", { namedCurve: "P-384" })],
  ] as const)("%s: signed with the key's algorithm, verified by its public key only", (alg, k) => {
    const token = signJwt({ sub: "system:serviceaccount:kube-system:x", exp: 2_000_000_000 }, k.priv);
    expect(JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString())).toEqual({ alg, typ: "JWT" });
    expect(verifyJwt(token, [k.pub], 1_900_000_000)).toMatchObject({ sub: "system:serviceaccount:kube-system:x" });
    expect(verifyJwt(token, [pair("ec", { namedCurve: "P-256" }).pub], 1_900_000_000)).toBeUndefined();
  });
});
