// Kubelet bootstrap token (TLS bootstrapping): `<id>.<secret>` with the alphabet and lengths the
// API server's bootstrap authenticator accepts.
import { randomBytes } from "node:crypto";

export const TOKEN_PATTERN = /^[a-z0-9]{6}\.[a-z0-9]{16}$/;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

export type BootstrapToken = { id: string; secret: string; token: string };

/** Unbiased: bytes ≥ 252 (= 7 × 36) are drawn again. */
function randomString(length: number, random: (n: number) => Buffer): string {
  let out = "";
  while (out.length < length) {
    for (const b of random(length * 2)) {
      if (b < 252 && out.length < length) out += ALPHABET[b % 36];
    }
  }
  return out;
}

export function generateBootstrapToken(random: (n: number) => Buffer = randomBytes): BootstrapToken {
  const id = randomString(6, random);
  const secret = randomString(16, random);
  return { id, secret, token: `${id}.${secret}` };
}

/** A kept token (`<id>.<secret>`), checked. */
export function parseBootstrapToken(token: string): BootstrapToken {
  if (!TOKEN_PATTERN.test(token)) throw new Error("the kept bootstrap token is not <6 chars>.<16 chars>");
  const [id = "", secret = ""] = token.split(".");
  return { id, secret, token };
}

/**
 * How long a kubelet bootstrap token is valid once applied: as kubeadm's default. The rendered Secret
 * has no expiration (a render is done ahead of time); the engine sets it when it applies the Secret,
 * and a join renews it, so a token read off a host years later is long expired and deleted (the
 * controller-manager's tokencleaner).
 */
export const BOOTSTRAP_TOKEN_TTL_MS = 24 * 3600_000;
/** A join renews a token that has less than this left, so it cannot run out while kubelets bootstrap. */
export const BOOTSTRAP_TOKEN_RENEW_MS = 2 * 3600_000;

export const isBootstrapTokenSecret = (o: { kind?: string; type?: unknown }) => o.kind === "Secret" && o.type === "bootstrap.kubernetes.io/token";

/** The Secret as applied at `now`: valid for BOOTSTRAP_TOKEN_TTL_MS (RFC 3339, as the API server reads it). */
export function withExpiration<T extends { stringData?: Record<string, string> }>(secret: T, now: Date): T & { stringData: { expiration: string } } {
  const expiration = new Date(now.getTime() + BOOTSTRAP_TOKEN_TTL_MS).toISOString().replace(/\.\d{3}Z$/, "Z");
  return { ...secret, stringData: { ...secret.stringData, expiration } };
}

export function bootstrapTokenSecret(t: BootstrapToken, opts: { description: string }) {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `bootstrap-token-${t.id}`, namespace: "kube-system" },
    type: "bootstrap.kubernetes.io/token",
    stringData: {
      description: opts.description,
      "token-id": t.id,
      "token-secret": t.secret,
      "usage-bootstrap-authentication": "true",
      "usage-bootstrap-signing": "true",
    },
  };
}
