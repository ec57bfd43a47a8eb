// Key generation shares libuv's thread pool with every file read and async crypto call of the
// dashboard: a render must leave room for them.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { startKeyGeneration } from "./pki";

describe("key generation", () => {
  it("leaves the thread pool free for the rest of the process while a render's keys are generated", async () => {
    const order: string[] = [];
    const keys = startKeyGeneration(["a", "b", "c", "d", "e", "f", "g", "h"], "rsa", {}, (name) => order.push(`key ${name}`));
    // Queued behind eight RSA keys (hundreds of ms each), a file read still gets a thread at once.
    await readFile(__filename).then(() => order.push("file read"));
    await Promise.all(keys.values());
    expect(order[0]).toBe("file read");
    expect(order).toHaveLength(9);
  });

  it("resolves injected keys without generating them", async () => {
    const generated = await startKeyGeneration(["x"], "ecdsa").get("x")!;
    const injected = await startKeyGeneration(["y"], "ecdsa", { y: generated.privateKey }).get("y")!;
    expect(injected.privateKey).toBe(generated.privateKey);
  });
});
