// Key generation: every key comes from OpenSSL through node:crypto's generateKeyPair, on libuv's
// thread pool. Nothing here, nor anywhere in the repo, implements a primitive (primes, modular
// arithmetic, signatures, hashes, random numbers): see docs/assets.md, "Keys". At most as many keys
// are generated at once as there are cores, leaving two of the pool's threads free, since the pool also
// does every file read and async crypto of the process (with all of them on keys a render stalled the
// whole dashboard: a file read waited 1.6 s during a 16-key render). Certificates are signed as their
// keys arrive.
import { createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from "node:crypto";
import { availableParallelism } from "node:os";
import type { EncryptionAlgorithm } from "../cluster/definition";
import { Semaphore } from "../ssh/semaphore";

export type KeyPair = { privateKey: KeyObject; publicKey: KeyObject };

const THREAD_POOL = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const keySlots = new Semaphore(Math.max(1, Math.min(availableParallelism(), THREAD_POOL - 2)));

function generate(algorithm: EncryptionAlgorithm): Promise<KeyPair> {
  return keySlots.use(
    () =>
      new Promise<KeyPair>((resolve, reject) => {
        const done = (err: Error | null, publicKey: KeyObject, privateKey: KeyObject) => (err ? reject(err) : resolve({ publicKey, privateKey }));
        switch (algorithm) {
          case "ECDSA-P256":
            return generateKeyPair("ec", { namedCurve: "P-256" }, done);
          case "ECDSA-P384":
            return generateKeyPair("ec", { namedCurve: "P-384" }, done);
          case "RSA-2048":
            return generateKeyPair("rsa", { modulusLength: 2048, publicExponent: 0x10001 }, done);
          case "RSA-3072":
            return generateKeyPair("rsa", { modulusLength: 3072, publicExponent: 0x10001 }, done);
          case "RSA-4096":
            return generateKeyPair("rsa", { modulusLength: 4096, publicExponent: 0x10001 }, done);
        }
      }),
  );
}

/** The algorithm of a key as the definition names it; undefined for a key Bootdeck never generates (P-521, Ed25519, RSA-1024…). */
export function algorithmOf(key: KeyObject): EncryptionAlgorithm | undefined {
  const d = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === "ec") return d?.namedCurve === "prime256v1" ? "ECDSA-P256" : d?.namedCurve === "secp384r1" ? "ECDSA-P384" : undefined;
  if (key.asymmetricKeyType === "rsa") {
    const bits = d?.modulusLength;
    return bits === 2048 ? "RSA-2048" : bits === 3072 ? "RSA-3072" : bits === 4096 ? "RSA-4096" : undefined;
  }
  return undefined;
}

export function keyPairFrom(source: KeyObject | string): KeyPair {
  const privateKey = typeof source === "string" ? createPrivateKey(source) : source;
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/**
 * Starts generating every named key (as many at a time as `keySlots` allows) and returns one promise per name. Injected keys
 * (golden tests, an imported CA, a kept PKI) resolve at once. `onKey` fires as each key becomes available.
 */
export function startKeyGeneration(
  names: readonly string[],
  algorithm: EncryptionAlgorithm,
  injected: Record<string, KeyObject | string> = {},
  onKey?: (name: string) => void,
): Map<string, Promise<KeyPair>> {
  const out = new Map<string, Promise<KeyPair>>();
  for (const name of names) {
    const given = injected[name];
    const p = given !== undefined ? Promise.resolve(keyPairFrom(given)) : generate(algorithm);
    out.set(
      name,
      p.then((k) => {
        onKey?.(name);
        return k;
      }),
    );
  }
  return out;
}

/** PEM as Kubernetes tools expect: PKCS#1 for RSA, SEC1 for EC (what kubeadm and bootkube write). */
export function privateKeyPem(key: KeyObject): string {
  return key.asymmetricKeyType === "ec"
    ? (key.export({ type: "sec1", format: "pem" }) as string)
    : (key.export({ type: "pkcs1", format: "pem" }) as string);
}

export function publicKeyPem(key: KeyObject): string {
  return key.export({ type: "spki", format: "pem" }) as string;
}
