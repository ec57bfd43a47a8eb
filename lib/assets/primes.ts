// Random primes for RSA keys, found the way OpenSSL's search (and Go's before its FIPS 140 module) finds
// them, with the Miller-Rabin round count of FIPS 186-5 Table B.1: a random odd start with its top two
// bits set, then every second number from it, each checked against the odd primes below 2^14 through
// residues kept per small prime (a sieve: no big-number division per candidate), and a candidate
// without a small factor tested with random bases. One round rejects nearly every composite; the
// candidate that passes it gets 5 in all for a 1024-bit prime of an RSA-2048 key (error below 2^-112,
// RSA-2048's security strength).
//
// Why not OpenSSL's generator: it gives the candidate that survives 64 rounds whatever it is asked (its
// BN_is_prime_ex raises `checks` to that minimum), about half of a prime's cost. Node offers no modular
// exponentiation, so a round's b^m mod w is an RSA public operation with modulus w and exponent m, which
// runs OpenSSL's bignum code (a 1024-bit exponent in about 0.25 ms; BigInt takes 6 ms). Like Go's, this
// test is not constant-time.
import { constants, createPublicKey, publicEncrypt, randomFillSync } from "node:crypto";

const TRIAL_LIMIT = 1 << 14;
/** How far a search walks from its start before it draws a new one, as Go's did. */
const MAX_OFFSET = 1 << 20;

/** Miller-Rabin rounds for a random prime of `bits` bits, from FIPS 186-5 Table B.1 (error ≤ 2^-112). */
export function millerRabinRounds(bits: number): number {
  if (bits >= 1536) return 4;
  if (bits >= 1024) return 5;
  throw new Error(`no round count for ${bits}-bit RSA primes: RSA keys below 2048 bits are not generated`);
}

/** The search for one random prime of `bits` bits (a multiple of 8), run a slice at a time. */
export class PrimeSearch {
  private readonly rounds: number;
  private start = 0n;
  private readonly residues: Int32Array;
  private offset = 0;

  constructor(readonly bits: number) {
    if (bits % 8) throw new Error(`prime size must be whole bytes, got ${bits} bits`);
    this.rounds = millerRabinRounds(bits);
    this.residues = new Int32Array(trialPrimes().length);
    this.restart();
  }

  /** Tests the next `candidates` numbers and returns the first probable prime, or null when none was. */
  step(candidates: number): bigint | null {
    const primes = trialPrimes();
    for (let i = 0; i < candidates; i++) {
      if (this.offset >= MAX_OFFSET) this.restart();
      const offset = this.offset;
      this.offset += 2;
      let smallFactor = false;
      for (let j = 0; j < primes.length && !smallFactor; j++) smallFactor = (this.residues[j]! + offset) % primes[j]! === 0;
      if (smallFactor) continue;
      const w = this.start + BigInt(offset);
      if (w >> BigInt(this.bits)) {
        this.restart();
        continue;
      }
      // The first round that finds a witness ends the test: a composite nearly always costs one.
      if (millerRabin(w, this.rounds)) {
        this.restart(); // a search yields one prime: the next starts afresh
        return w;
      }
    }
    return null;
  }

  private restart(): void {
    // Top two bits set: p ≥ 1.5·2^(bits-1) > √2·2^(bits-1), so that p·q has all 2·bits bits.
    this.start = fromBytes(freshBytes(this.bits / 8)) | (3n << BigInt(this.bits - 2)) | 1n;
    let j = 0;
    for (const { product, primes } of trialGroups()) {
      const r = Number(this.start % product);
      for (const p of primes) this.residues[j++] = r % p;
    }
    this.offset = 0;
  }
}

/** Whether `rounds` Miller-Rabin rounds with random bases find no witness that odd w > 3 is composite. */
export function millerRabin(w: bigint, rounds: number): boolean {
  let m = w - 1n;
  let a = 0;
  while (!(m & 1n)) {
    m >>= 1n;
    a++;
  }
  const bits = bitLength(w);
  const size = Math.ceil(bits / 8);
  const excess = BigInt(size * 8 - bits);
  const power = modPower(m, w);
  for (let round = 0; round < rounds; ) {
    const b = fromBytes(freshBytes(size)) >> excess; // wlen random bits
    if (b <= 1n || b >= w - 1n) continue;
    round++;
    let z = power(b);
    if (z === 1n || z === w - 1n) continue;
    let witness = true;
    for (let j = 1; j < a && witness; j++) {
      z = (z * z) % w;
      if (z === w - 1n) witness = false;
      else if (z === 1n) break;
    }
    if (witness) return false;
  }
  return true;
}

/** b ↦ b^e mod n for odd n above 2^512 and 1 < e < n: the RSA public operation of the key (n, e). */
export function modPower(e: bigint, n: bigint): (b: bigint) => bigint {
  const size = Math.ceil(bitLength(n) / 8);
  const key = createPublicKey({ format: "jwk", key: { kty: "RSA", n: toBytes(n, size).toString("base64url"), e: toBytes(e).toString("base64url") } });
  return (b) => fromBytes(publicEncrypt({ key, padding: constants.RSA_NO_PADDING }, toBytes(b % n, size)));
}

// The odd primes below TRIAL_LIMIT, flat for the sieve and in groups whose product stays below 2^53
// (one BigInt remainder per group gives a new start's residues). Built on first use.
let trial: { primes: Int32Array; groups: { product: bigint; primes: number[] }[] } | undefined;

function trialPrimes(): Int32Array {
  return (trial ??= buildTrial()).primes;
}

function trialGroups(): { product: bigint; primes: number[] }[] {
  return (trial ??= buildTrial()).groups;
}

function buildTrial(): NonNullable<typeof trial> {
  const composite = new Uint8Array(TRIAL_LIMIT);
  const groups: { product: bigint; primes: number[] }[] = [];
  let product = 1;
  let primes: number[] = [];
  for (let i = 3; i < TRIAL_LIMIT; i += 2) {
    if (composite[i]) continue;
    for (let j = i * i; j < TRIAL_LIMIT; j += 2 * i) composite[j] = 1;
    if (product * i > Number.MAX_SAFE_INTEGER) {
      groups.push({ product: BigInt(product), primes });
      [product, primes] = [1, []];
    }
    product *= i;
    primes.push(i);
  }
  groups.push({ product: BigInt(product), primes });
  return { primes: Int32Array.from(groups.flatMap((g) => g.primes)), groups };
}

// Random bytes from a buffer filled 4 KiB at a time, each byte handed out once: a call to the CSPRNG
// per Miller-Rabin base cost more than the sieve.
const entropy = Buffer.alloc(4096);
let entropyUsed = entropy.length;

function freshBytes(n: number): Buffer {
  if (entropyUsed + n > entropy.length) {
    randomFillSync(entropy);
    entropyUsed = 0;
  }
  entropyUsed += n;
  return entropy.subarray(entropyUsed - n, entropyUsed);
}

function bitLength(x: bigint): number {
  const hex = x.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0]!, 16)));
}

function fromBytes(bytes: Buffer): bigint {
  return BigInt(`0x${bytes.toString("hex")}`);
}

/** x big-endian in `size` bytes (by default as few as hold it, at least one). */
export function toBytes(x: bigint, size = Math.max(1, Math.ceil(bitLength(x) / 8))): Buffer {
  return Buffer.from(x.toString(16).padStart(size * 2, "0"), "hex");
}
