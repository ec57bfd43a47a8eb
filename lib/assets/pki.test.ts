// Key generation shares libuv's thread pool with every file read and async crypto call of the
// dashboard, and this thread with everything else: a render must leave room for both.
import { execFileSync } from "node:child_process";
import { generatePrimeSync } from "node:crypto";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { privateKeyPem, rsaKeyFromPrimes, startKeyGeneration } from "./pki";

describe("key generation", () => {
  it("lets the rest of the process read files while a render's keys are generated", async () => {
    const order: string[] = [];
    const keys = startKeyGeneration(["a", "b", "c", "d", "e", "f", "g", "h"], "rsa", {}, (name) => order.push(`key ${name}`));
    // Queued behind eight RSA keys (about 25 ms of CPU a key at best), a file read still gets a pool
    // thread at once and this thread between two slices of the prime search: at most one key can be
    // done before it. With every pool thread on a prime, it would wait 30 ms for one to finish.
    await readFile(__filename).then(() => order.push("file read"));
    await Promise.all(keys.values());
    expect(order.indexOf("file read")).toBeLessThanOrEqual(1);
    expect(order).toHaveLength(9);
  });

  it("resolves injected keys without generating them", async () => {
    const generated = await startKeyGeneration(["x"], "ecdsa").get("x")!;
    const injected = await startKeyGeneration(["y"], "ecdsa", { y: generated.privateKey }).get("y")!;
    expect(injected.privateKey).toBe(generated.privateKey);
  });
});

describe("RSA keys", () => {
  it("are 2048-bit keys with e = 65537 that OpenSSL's own consistency check accepts", async () => {
    const { privateKey } = await startKeyGeneration(["k"], "rsa").get("k")!;
    expect(privateKey.asymmetricKeyDetails).toEqual({ modulusLength: 2048, publicExponent: 65537n });
    const check = execFileSync("openssl", ["rsa", "-check", "-noout"], { input: privateKeyPem(privateKey) }).toString();
    expect(check).toContain("RSA key ok");
  });

  it("refuse a pair of primes FIPS 186 would not: equal, too close, too small, or with e dividing p − 1", () => {
    const p = generatePrimeSync(1024, { bigint: true });
    const q = generatePrimeSync(1024, { bigint: true });
    expect(rsaKeyFromPrimes(p, q)).not.toBeNull();
    expect(rsaKeyFromPrimes(p, p)).toBeNull();
    expect(rsaKeyFromPrimes(p, p + 2n)).toBeNull(); // |p − q| must exceed 2^924
    expect(rsaKeyFromPrimes(generatePrimeSync(1023, { bigint: true }), q)).toBeNull(); // n would have 2047 bits
    expect(rsaKeyFromPrimes(generatePrimeSync(1024, { bigint: true, add: 65537n, rem: 1n }), q)).toBeNull();
  });
});
