// Key generation off the request path. ECDSA keys, and RSA primes from OpenSSL, come from libuv's
// thread pool: at most as many at once as there are cores, leaving two of the pool's threads free, since
// the pool also does every file read and async crypto of the process (with all of them on keys a
// render stalled the whole dashboard: a file read waited 1.6 s during a 16-key render). Certificates
// are signed as their keys arrive.
import { createPrivateKey, createPublicKey, generateKeyPair, generatePrime, sign, verify, type KeyObject } from "node:crypto";
import { availableParallelism } from "node:os";
import { Semaphore } from "../ssh/semaphore";
import { PrimeSearch, toBytes } from "./primes";
import type { KeyType } from "./types";

export type KeyPair = { privateKey: KeyObject; publicKey: KeyObject };

const THREAD_POOL = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const keySlots = new Semaphore(Math.max(1, Math.min(availableParallelism(), THREAD_POOL - 2)));

function generate(type: KeyType): Promise<KeyPair> {
  return type === "rsa" ? generateRsa() : keySlots.use(generateEc);
}

function generateEc(): Promise<KeyPair> {
  return new Promise((resolve, reject) =>
    generateKeyPair("ec", { namedCurve: "P-256" }, (err, publicKey, privateKey) => (err ? reject(err) : resolve({ publicKey, privateKey }))),
  );
}

// RSA-2048 from two 1024-bit probable primes, as OpenSSL 1.1 and Go build their keys. OpenSSL 3 (Node
// 20's) builds a two-prime key of 2048 bits or more by SP 800-56B's method instead, with auxiliary
// primes, at 2.3 times the CPU (about 145 against 60 ms a key here). What FIPS 186 asks of the pair and
// of d is checked here, and every key passes a sign-and-verify test before use.
const E = 65537n;
const HALF = 1024;

async function generateRsa(): Promise<KeyPair> {
  for (;;) {
    const [p, q] = await Promise.all([primes.next(), primes.next()]);
    const privateKey = rsaKeyFromPrimes(p, q);
    if (privateKey) return keyPairFrom(privateKey);
  }
}

/**
 * Primes for RSA keys, handed out in request order by two searches at once: a `PrimeSearch` on this
 * thread, a slice per turn of the event loop, and OpenSSL's generatePrime on the thread pool (within
 * `keySlots`), on the cores this thread leaves. Ours costs less than half of OpenSSL's CPU (5
 * Miller-Rabin rounds for the prime found, not 64: see primes.ts) but has only this thread; OpenSSL's
 * adds the other cores. A prime that arrives when no key waits for one is dropped, never kept.
 */
class PrimeSupply {
  private readonly waiting: { resolve: (p: bigint) => void; reject: (e: Error) => void }[] = [];
  private inPool = 0;
  private searchQueued = false;
  private here: PrimeSearch | undefined;

  constructor(private readonly poolSlots: number) {}

  next(): Promise<bigint> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inPool < Math.min(this.waiting.length, this.poolSlots)) {
      this.inPool++;
      keySlots
        .use(() => new Promise<bigint>((resolve, reject) => generatePrime(HALF, { bigint: true }, (err, prime) => (err ? reject(err) : resolve(prime as bigint)))))
        .then(
          (prime) => this.waiting.shift()?.resolve(prime),
          (err: Error) => this.waiting.shift()?.reject(err),
        )
        .finally(() => {
          this.inPool--;
          this.pump();
        });
    }
    if (this.waiting.length && !this.searchQueued) {
      this.searchQueued = true;
      setImmediate(() => this.searchHere());
    }
  }

  private searchHere(): void {
    this.searchQueued = false;
    if (!this.waiting.length) return;
    try {
      this.here ??= new PrimeSearch(HALF);
      const prime = this.here.step(64); // about 2 ms: a turn short enough for the rest of the process
      if (prime !== null) this.waiting.shift()?.resolve(prime);
    } catch (err) {
      this.waiting.shift()?.reject(err as Error);
    }
    this.pump();
  }
}

const primes = new PrimeSupply(Math.max(1, Math.min(availableParallelism() - 1, THREAD_POOL - 2)));

/** The RSA-2048 private key of primes p and q with e = 65537, or null where the pair is unfit. */
export function rsaKeyFromPrimes(p: bigint, q: bigint): KeyObject | null {
  const min = 1n << BigInt(2 * HALF - 1); // p² ≥ 2^2047, that is p ≥ √2·2^1023: n has exactly 2048 bits
  const gap = 1n << BigInt(HALF - 100);
  if (p * p < min || q * q < min || p >> BigInt(HALF) || q >> BigInt(HALF)) return null;
  if ((p > q ? p - q : q - p) <= gap) return null;
  if (gcd(p - 1n, E) !== 1n || gcd(q - 1n, E) !== 1n) return null;
  const lambda = ((p - 1n) * (q - 1n)) / gcd(p - 1n, q - 1n);
  const d = modInverse(E, lambda);
  if (d <= 1n << BigInt(HALF)) return null;
  const [hi, lo] = p > q ? [p, q] : [q, p];
  const key = createPrivateKey({
    format: "jwk",
    key: { kty: "RSA", n: b64u(hi * lo), e: b64u(E), d: b64u(d), p: b64u(hi), q: b64u(lo), dp: b64u(d % (hi - 1n)), dq: b64u(d % (lo - 1n)), qi: b64u(modInverse(lo, hi)) },
  });
  const probe = Buffer.from("bootdeck pairwise test");
  return verify("sha256", probe, createPublicKey(key), sign("sha256", probe, key)) ? key : null;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a;
}

function modInverse(a: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [a % m, m, 1n, 0n];
  while (r1) {
    const k = r0 / r1;
    [r0, r1] = [r1, r0 - k * r1];
    [s0, s1] = [s1, s0 - k * s1];
  }
  if (r0 !== 1n) throw new Error("no modular inverse");
  return ((s0 % m) + m) % m;
}

function b64u(x: bigint): string {
  return toBytes(x).toString("base64url");
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
