// Key generation shares libuv's thread pool with every file read and async crypto call of the
// dashboard: a render must leave room for it. Every key is OpenSSL's, of the algorithm asked for.
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { encryptionAlgorithms } from "../cluster/definition";
import { algorithmOf, privateKeyPem, startKeyGeneration } from "./pki";

describe("key generation", () => {
  it("lets the rest of the process read files while a render's keys are generated", async () => {
    const order: string[] = [];
    const keys = startKeyGeneration(["a", "b", "c", "d", "e", "f", "g", "h"], "RSA-2048", {}, (name) => order.push(`key ${name}`));
    // Queued behind eight RSA keys (tens of ms of CPU each), a file read still gets a pool thread at
    // once: at most one key can be done before it. With every pool thread on a key, it would wait.
    await readFile(__filename).then(() => order.push("file read"));
    await Promise.all(keys.values());
    expect(order.indexOf("file read")).toBeLessThanOrEqual(1);
    expect(order).toHaveLength(9);
  });

  it("resolves injected keys without generating them", async () => {
    const generated = await startKeyGeneration(["x"], "ECDSA-P256").get("x")!;
    const injected = await startKeyGeneration(["y"], "ECDSA-P256", { y: generated.privateKey }).get("y")!;
    expect(injected.privateKey).toBe(generated.privateKey);
  });

  it.each(encryptionAlgorithms)("makes %s keys that OpenSSL's own consistency check accepts", async (algorithm) => {
    const { privateKey } = await startKeyGeneration(["k"], algorithm).get("k")!;
    expect(algorithmOf(privateKey)).toBe(algorithm);
    if (privateKey.asymmetricKeyType === "rsa") {
      expect(privateKey.asymmetricKeyDetails?.publicExponent).toBe(65537n);
      expect(execFileSync("openssl", ["rsa", "-check", "-noout"], { input: privateKeyPem(privateKey) }).toString()).toContain("RSA key ok");
    } else {
      expect(execFileSync("openssl", ["ec", "-check", "-noout"], { input: privateKeyPem(privateKey), stdio: ["pipe", "pipe", "pipe"] }).toString()).toBe("");
    }
  });
});
