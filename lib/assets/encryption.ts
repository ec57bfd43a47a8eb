// Secrets encrypted at rest: the API server's EncryptionConfiguration, with a key made for the cluster
// when it is first rendered and kept byte for byte by every later render (lib/assets/keep.ts).
//
// The provider is secretbox (XSalsa20-Poly1305 with a random 24-byte nonce per write): authenticated,
// fast, and without aesgcm's limit — upstream asks that an aesgcm key be rotated every 200 000 writes,
// since its 12-byte random nonces collide sooner, and a cluster lives for years. `identity` comes after
// it so that Secrets written in plain text before stay readable.
import { stringify } from "yaml";

/** The asset every API server reads (bootstrap, self-hosted, checkpoint, static). */
export const ENCRYPTION_CONFIG_ASSET = "apiserver/encryption-config.yaml";

/**
 * A new configuration with one fresh 32-byte key named for its day. `writes: "plain"` keeps writing
 * Secrets as they were (identity first, the key only to read) — for a running cluster that had no
 * configuration: its API servers are rolled one at a time, and one that encrypted before the others
 * could read would break them.
 */
export function encryptionConfig({ random, now, writes = "encrypted" }: { random: (bytes: number) => Buffer; now: Date; writes?: "encrypted" | "plain" }): string {
  const secretbox = { secretbox: { keys: [{ name: `key-${now.toISOString().slice(0, 10).replaceAll("-", "")}`, secret: random(32).toString("base64") }] } };
  const identity = { identity: {} };
  return stringify({
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "EncryptionConfiguration",
    resources: [{ resources: ["secrets"], providers: writes === "encrypted" ? [secretbox, identity] : [identity, secretbox] }],
  });
}
