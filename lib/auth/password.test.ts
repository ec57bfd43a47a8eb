import { describe, expect, test } from "vitest";
import { hashPassword, passwordProblem, verifyPassword } from "./password";
import { generatePassword } from "./users";

describe("passwordProblem", () => {
  test.each(["aaaaaaaaaa", "password123", "1234567890", "qwertyuiop", "abcdefghij", "iloveyou12", "p4ssw0rd!!"])("refuses the common or trivial %s", (pw) => {
    expect(passwordProblem(pw)).toMatch(/^is too easy to guess/);
  });

  test("refuses a password made of the user's own name", () => {
    expect(passwordProblem("alice.smith2024", ["alice.smith"])).toMatch(/^is too easy to guess/);
  });

  test("accepts passphrases and generated passwords", () => {
    expect(passwordProblem("correct horse battery staple")).toBeUndefined();
    expect(passwordProblem("Tr0ub4dor&3x-vault")).toBeUndefined();
    for (let i = 0; i < 20; i++) expect(passwordProblem(generatePassword())).toBeUndefined();
  });

  test("keeps the length rules", () => {
    expect(passwordProblem("Xk9#")).toBe("must be at least 10 characters");
    expect(passwordProblem("x".repeat(257))).toBe("must be at most 256 characters");
  });
});

describe("verifyPassword", () => {
  test("accepts its own hashes and refuses a wrong password", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(await verifyPassword("correct horse battery staple", stored)).toBe(true);
    expect(await verifyPassword("correct horse battery stable", stored)).toBe(false);
  });

  test("refuses a stored hash whose parameters are out of bounds (a tampered row), rather than allocating for them", async () => {
    const stored = await hashPassword("correct horse battery staple");
    const [, , , , salt, hash] = stored.split("$");
    const tampered = (n: string, r: string, p: string) => ["scrypt", n, r, p, salt, hash].join("$");
    // 2^30 × r 8 would be 128 GiB; r and p huge; N not a power of two; not numbers at all.
    for (const [n, r, p] of [[String(2 ** 30), "8", "1"], [String(2 ** 15), "100000", "1"], [String(2 ** 15), "8", "10000"], ["40000", "8", "1"], ["32768e0", "8", "1"], ["1024", "8", "1"]] as const) {
      expect(await verifyPassword("correct horse battery staple", tampered(n, r, p)), `${n} ${r} ${p}`).toBe(false);
    }
    expect(await verifyPassword("correct horse battery staple", `${stored}$extra`)).toBe(false);
  });
});
