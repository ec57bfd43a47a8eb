// Secrets encrypted at rest: the API server's EncryptionConfiguration, with a key made for the cluster
// when it is first rendered and kept byte for byte by every later render (lib/assets/keep.ts) until a
// key rotation run replaces it (lib/engine/plans-encryption.ts).
//
// The provider is secretbox (XSalsa20-Poly1305 with a random 24-byte nonce per write): authenticated,
// fast, and without aesgcm's limit — upstream asks that an aesgcm key be rotated every 200 000 writes,
// since its 12-byte random nonces collide sooner, and a cluster lives for years. `identity` comes after
// it so that Secrets written in plain text before stay readable.
import { parse, stringify } from "yaml";
import { z } from "zod";

/** The asset every API server reads (bootstrap, self-hosted, checkpoint, static). */
export const ENCRYPTION_CONFIG_ASSET = "apiserver/encryption-config.yaml";

/** Every API server reads its configuration again when the file changes: a key rotation needs no restart. */
export const AUTOMATIC_RELOAD_FLAG = "--encryption-provider-config-automatic-reload";

/**
 * A key's name says the day it was made: `key-YYYYMMDD`, with `-2`, `-3` … for a second key made the same
 * day (a rotation on the day of the bootstrap). The name is stored with every Secret it encrypts
 * (`k8s:enc:secretbox:v1:<name>:`), so it never changes once made.
 */
export function keyName(now: Date, taken: ReadonlySet<string> = new Set()): string {
  const base = `key-${now.toISOString().slice(0, 10).replaceAll("-", "")}`;
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
  return name;
}

/** The day a key of keyName's was made (YYYY-MM-DD), or undefined for a name of another form. */
export function keyMadeOn(name: string): string | undefined {
  const day = /^key-(\d{4})(\d{2})(\d{2})(?:-\d+)?$/.exec(name);
  return day ? `${day[1]}-${day[2]}-${day[3]}` : undefined;
}

/**
 * A new configuration with one fresh 32-byte key named for its day. `writes: "plain"` keeps writing
 * Secrets as they were (identity first, the key only to read) — for a running cluster that had no
 * configuration: its API servers are rolled one at a time, and one that encrypted before the others
 * could read would break them.
 */
export function encryptionConfig({ random, now, writes = "encrypted" }: { random: (bytes: number) => Buffer; now: Date; writes?: "encrypted" | "plain" }): string {
  const secretbox = { secretbox: { keys: [{ name: keyName(now), secret: random(32).toString("base64") }] } };
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

/** A configuration that is not one Bootdeck can rotate (no secretbox key for Secrets). */
export class EncryptionRotationError extends Error {}

type Key = { name: string; secret: string };
type Provider = Record<string, unknown>;
const secretboxSchema = z.object({ secretbox: z.object({ keys: z.array(z.object({ name: z.string(), secret: z.string() })).min(1) }) });

function secretsProviders(text: string): { providers: Provider[]; keys: Key[] } {
  const config = configSchema.safeParse(parse(text));
  const providers = config.success ? config.data.resources.find((r) => r.resources.includes("secrets"))?.providers : undefined;
  if (!config.success || !providers || config.data.resources.length !== 1) throw new EncryptionRotationError("the cluster's encryption configuration is not one Bootdeck wrote (one resource entry, for secrets): rotate its key by hand");
  const boxes = providers.map((p) => secretboxSchema.safeParse(p)).filter((p) => p.success);
  if (boxes.length !== 1) throw new EncryptionRotationError(`the cluster's encryption configuration has ${boxes.length} secretbox providers for Secrets, Bootdeck's has one: rotate its key by hand`);
  return { providers, keys: boxes[0]!.data!.secretbox.keys };
}

const configWith = (providers: Provider[]) => stringify({ apiVersion: "apiserver.config.k8s.io/v1", kind: "EncryptionConfiguration", resources: [{ resources: ["secrets"], providers }] });
const isSecretbox = (p: Provider) => "secretbox" in p;

/**
 * The three configurations a key rotation rolls out, each only once every API server runs the one
 * before (they reload the file themselves, one at a time):
 *   - `add`: the new key added last, to read with — writes go on as before (an API server that wrote
 *     with it before the others could read it would break them);
 *   - `write`: the new key first, so every write uses it; the old keys stay to read what they wrote;
 *   - `final`: the new key alone (and identity, to read Secrets written before encryption), once every
 *     Secret was written again.
 */
export function encryptionRotation(
  current: string,
  { random, now, taken = [] }: { random: (bytes: number) => Buffer; now: Date; /** Names the cluster's keys ever had: a name stored with Secrets never means another key. */ taken?: readonly string[] },
): { add: string; write: string; final: string; key: string; dropped: string[] } {
  const { providers, keys } = secretsProviders(current);
  const key = { name: keyName(now, new Set([...taken, ...keys.map((k) => k.name)])), secret: random(32).toString("base64") };
  const box = (ks: Key[]) => ({ secretbox: { keys: ks } });
  const others = providers.filter((p) => !isSecretbox(p));
  return {
    add: configWith(providers.map((p) => (isSecretbox(p) ? box([...keys, key]) : p))),
    write: configWith([box([key, ...keys]), ...others]),
    final: configWith([box([key]), ...others.filter((p) => "identity" in p)]),
    key: key.name,
    dropped: keys.map((k) => k.name),
  };
}

/** The secretbox keys a configuration holds for Secrets (names and material), or none for one of another form. */
export function encryptionKeys(text: string): { name: string; secret: string }[] {
  try {
    return secretsProviders(text).keys;
  } catch {
    return [];
  }
}

/**
 * The configuration with `keys` added after its own secretbox keys, to read with only (writes are
 * unchanged): what a restore needs when its snapshot holds Secrets stored with keys a rotation dropped.
 */
export function withReadKeys(text: string, keys: readonly { name: string; secret: string }[]): string {
  const { providers, keys: own } = secretsProviders(text);
  const names = new Set(own.map((k) => k.name));
  const more = keys.filter((k) => !names.has(k.name) && names.add(k.name));
  return configWith(providers.map((p) => (isSecretbox(p) ? { secretbox: { keys: [...own, ...more] } } : p)));
}
