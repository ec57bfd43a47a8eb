import "server-only";
// scrypt password hashes: "scrypt$N$r$p$salt$hash" so parameters can be raised later.
import { weakPasswordProblem } from "./password-strength";
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

const N = 2 ** 15;
const r = 8;
const p = 1;
const keyLength = 32;

function scrypt(password: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, keyLength, { ...opts, maxmem: 128 * opts.N! * (opts.r ?? 8) * 2 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, { N, r, p });
  return ["scrypt", N, r, p, salt.toString("base64"), hash.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, rr, pp, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !rr || !pp || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await scrypt(password, Buffer.from(salt, "base64"), { N: Number(n), r: Number(rr), p: Number(pp) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export const passwordRules = { min: 10, max: 256 } as const;

/** Why a new password is refused (too short, too long, or common and trivial), or undefined. */
export function passwordProblem(password: string, userInputs: string[] = []): string | undefined {
  if (password.length < passwordRules.min) return `must be at least ${passwordRules.min} characters`;
  if (password.length > passwordRules.max) return `must be at most ${passwordRules.max} characters`;
  return weakPasswordProblem(password, userInputs);
}
