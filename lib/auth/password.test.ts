import { describe, expect, test } from "vitest";
import { passwordProblem } from "./password";
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
