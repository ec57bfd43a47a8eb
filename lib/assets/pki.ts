// Key generation through Node's asynchronous generateKeyPair: libuv's thread pool generates keys in
// parallel (RSA-2048 costs ~200 ms a key on these machines) while certificates are signed as their keys
// arrive. At most as many keys at once as there are cores, leaving two of the pool's threads free: the
// pool also does every file read and async crypto of the process, and with all of them on keys a
// render stalled the whole dashboard (a file read waited 1.6 s during a 16-key render).
import { createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from "node:crypto";
import { availableParallelism } from "node:os";
import { Semaphore } from "../ssh/semaphore";
import type { KeyType } from "./types";

export type KeyPair = { privateKey: KeyObject; publicKey: KeyObject };

const THREAD_POOL = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const keySlots = new Semaphore(Math.max(1, Math.min(availableParallelism(), THREAD_POOL - 2)));

function generate(type: KeyType): Promise<KeyPair> {
  return keySlots.use(() => generateOne(type));
}

function generateOne(type: KeyType): Promise<KeyPair> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, publicKey: KeyObject, privateKey: KeyObject) =>
      err ? reject(err) : resolve({ publicKey, privateKey });
    if (type === "rsa") generateKeyPair("rsa", { modulusLength: 2048, publicExponent: 0x10001 }, done);
    else generateKeyPair("ec", { namedCurve: "P-256" }, done);
  });
}

export function keyPairFrom(source: KeyObject | string): KeyPair {
  const privateKey = typeof source === "string" ? createPrivateKey(source) : source;
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/**
 * Starts generating every named key (as many at a time as `keySlots` allows) and returns one promise per name. Injected keys
 * (golden tests, an imported CA) resolve at once. `onKey` fires as each key becomes available.
 */
export function startKeyGeneration(
  names: readonly string[],
  type: KeyType,
  injected: Record<string, KeyObject | string> = {},
  onKey?: (name: string) => void,
): Map<string, Promise<KeyPair>> {
  const out = new Map<string, Promise<KeyPair>>();
  for (const name of names) {
    const given = injected[name];
    const p = given !== undefined ? Promise.resolve(keyPairFrom(given)) : generate(type);
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
