// The primes behind every RSA key: OpenSSL's own 64-round test is the referee.
import { checkPrimeSync, generatePrimeSync, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { millerRabin, millerRabinRounds, modPower, PrimeSearch } from "./primes";

function bigPow(b: bigint, e: bigint, n: bigint): bigint {
  let r = 1n;
  for (b %= n; e; e >>= 1n, b = (b * b) % n) if (e & 1n) r = (r * b) % n;
  return r;
}

describe("modular exponentiation through the RSA public operation", () => {
  it("agrees with BigInt arithmetic for 1024-bit moduli, exponents and bases", () => {
    for (let i = 0; i < 5; i++) {
      const n = BigInt(`0x${randomBytes(128).toString("hex")}`) | (1n << 1023n) | 1n;
      const e = BigInt(`0x${randomBytes(127).toString("hex")}`) | 1n;
      const power = modPower(e, n);
      for (const b of [2n, n - 1n, BigInt(`0x${randomBytes(128).toString("hex")}`) % n]) expect(power(b)).toBe(bigPow(b, e, n));
    }
  });
});

describe("Miller-Rabin", () => {
  it("takes 5 rounds for the 1024-bit primes of RSA-2048 and 4 for 1536 bits and more, as FIPS 186-5 Table B.1", () => {
    expect(millerRabinRounds(1024)).toBe(5);
    expect(millerRabinRounds(1536)).toBe(4);
    expect(() => millerRabinRounds(512)).toThrow(/below 2048 bits/);
  });

  it("passes OpenSSL's primes", () => {
    for (let i = 0; i < 5; i++) expect(millerRabin(generatePrimeSync(1024, { bigint: true }), 5)).toBe(true);
  });

  it("finds composites that trial division cannot: products of two 512-bit primes, and a prime's square", () => {
    for (let i = 0; i < 20; i++) {
      const [p, q] = [generatePrimeSync(512, { bigint: true }), generatePrimeSync(512, { bigint: true })];
      expect(millerRabin(p * q, 1)).toBe(false);
    }
    const p = generatePrimeSync(512, { bigint: true });
    expect(millerRabin(p * p, 1)).toBe(false);
  });
});

describe("a prime search", () => {
  it("returns 1024-bit primes with the top two bits set, which OpenSSL's 64 rounds also accept", () => {
    const search = new PrimeSearch(1024);
    for (let i = 0; i < 4; i++) {
      let p: bigint | null = null;
      while (p === null) p = search.step(64);
      expect(p >> 1022n).toBe(3n);
      expect(checkPrimeSync(p)).toBe(true);
    }
  });

  it("stops after the candidates it was allowed, so that the caller can yield, and goes on from there", () => {
    // Primes near 2^1024 are about 710 apart: two candidates rarely find one, and the walk goes on.
    const search = new PrimeSearch(1024);
    const slices = Array.from({ length: 20 }, () => search.step(2));
    expect(slices.filter((p) => p === null).length).toBeGreaterThan(10);
    let p: bigint | null = null;
    while (p === null) p = search.step(2);
    expect(checkPrimeSync(p)).toBe(true);
  });

  it("gives distinct primes, each from a fresh random start", () => {
    const search = new PrimeSearch(1024);
    const found: bigint[] = [];
    while (found.length < 3) {
      const p = search.step(64);
      if (p !== null) found.push(p);
    }
    const [a, b, c] = found;
    expect(a! - b! > 1n << 900n || b! - a! > 1n << 900n).toBe(true); // not neighbours on one walk
    expect(b! - c! > 1n << 900n || c! - b! > 1n << 900n).toBe(true);
  });

  it("refuses sizes that are not whole bytes", () => {
    expect(() => new PrimeSearch(1020)).toThrow(/whole bytes/);
  });
});
