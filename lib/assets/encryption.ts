// Secrets encrypted at rest: the API server's EncryptionConfiguration, with a key made for the cluster
// when it is first rendered and kept byte for byte by every later render (lib/assets/keep.ts).
//
// The provider is secretbox (XSalsa20-Poly1305 with a random 24-byte nonce per write): authenticated,
// fast, and without aesgcm's limit — upstream asks that an aesgcm key be rotated every 200 000 writes,
// since its 12-byte random nonces collide sooner, and a cluster lives for years. `identity` comes after
// it so that Secrets written in plain text before stay readable.
import { parse, stringify } from "yaml";
import { z } from "zod";

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

const configSchema = z.object({ resources: z.array(z.object({ resources: z.array(z.string()), providers: z.array(z.record(z.string(), z.unknown())) })) });
const keysSchema = z.object({ keys: z.array(z.object({ name: z.string() })).min(1) });

/**
 * How a configuration writes Secrets: its first provider for them (`identity`: plain text) and that
 * provider's first key, the one new writes use. Undefined for a text that is no such configuration.
 */
export function encryptionWrites(text: string): { provider: string; keyName?: string } | undefined {
  const config = configSchema.safeParse(parse(text));
  const first = config.success ? config.data.resources.find((r) => r.resources.includes("secrets"))?.providers[0] : undefined;
  const provider = first ? Object.keys(first)[0] : undefined;
  if (!first || !provider) return undefined;
  const keys = keysSchema.safeParse(first[provider]);
  return { provider, ...(keys.success ? { keyName: keys.data.keys[0]!.name } : {}) };
}

/** The asset's purpose line, from what the configuration does. */
export function encryptionPurpose(text: string): string {
  const writes = encryptionWrites(text);
  return writes?.provider === "identity"
    ? "API server encryption configuration: a key to read encrypted Secrets; writes stay plain text as the running cluster had them"
    : `API server encryption configuration: Secrets are written to etcd encrypted (${writes?.provider ?? "unknown provider"}, the cluster's own key)`;
}
