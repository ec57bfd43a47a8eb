// Service-account tokens: JWTs signed with the rendered service-account key (RS256 for RSA, ES256
// for ECDSA P-256, ES384 for P-384, as the API server signs them), verified with the public key given
// to the API server.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url");

function alg(key: KeyObject): { name: "RS256" | "ES256" | "ES384"; hash: "sha256" | "sha384" } {
  if (key.asymmetricKeyType !== "ec") return { name: "RS256", hash: "sha256" };
  return key.asymmetricKeyDetails?.namedCurve === "secp384r1" ? { name: "ES384", hash: "sha384" } : { name: "ES256", hash: "sha256" };
}

export function signJwt(claims: Record<string, unknown>, privateKeyPem: string): string {
  const key = createPrivateKey(privateKeyPem);
  const a = alg(key);
  const head = b64url(JSON.stringify({ alg: a.name, typ: "JWT" }));
  const body = b64url(JSON.stringify(claims));
  const sig = sign(a.hash, Buffer.from(`${head}.${body}`), a.name === "RS256" ? key : { key, dsaEncoding: "ieee-p1363" });
  return `${head}.${body}.${b64url(sig)}`;
}

/** The claims when some key verifies the signature and the token has not expired; undefined otherwise. */
export function verifyJwt(token: string, publicKeysPem: string[], nowSec = Date.now() / 1000): Record<string, unknown> | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const [h, b, s] = parts as [string, string, string];
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(b, "base64url").toString());
  } catch {
    return undefined;
  }
  for (const pem of publicKeysPem) {
    try {
      const key = createPublicKey(pem);
      const a = alg(key);
      const ok = verify(a.hash, Buffer.from(`${h}.${b}`), a.name === "RS256" ? key : { key, dsaEncoding: "ieee-p1363" }, Buffer.from(s, "base64url"));
      if (!ok) continue;
      if (typeof claims.exp === "number" && claims.exp < nowSec) return undefined;
      return claims;
    } catch {
      /* try the next key */
    }
  }
  return undefined;
}
