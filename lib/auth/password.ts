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

/**
 * The parameters a stored hash may ask for. A row is data, not code: a tampered one must not make a
 * sign-in allocate gigabytes (scrypt needs 128·N·r bytes) or run for minutes. The bounds leave room
 * to raise N and r later (up to 256 MiB), and hold what hashPassword writes.
 */
export const scryptBounds = { minLogN: 14, maxLogN: 20, maxR: 16, maxP: 4 } as const;

function storedParams(n: string, rr: string, pp: string): ScryptOptions | undefined {
  if (![n, rr, pp].every((v) => /^[1-9][0-9]{0,7}$/.test(v))) return undefined;
  const [N, r, p] = [Number(n), Number(rr), Number(pp)];
  const logN = Math.log2(N);
  if (!Number.isInteger(logN) || logN < scryptBounds.minLogN || logN > scryptBounds.maxLogN) return undefined;
  if (r > scryptBounds.maxR || p > scryptBounds.maxP) return undefined;
  return { N, r, p };
}

/** Whether `password` matches a stored hash; false too for a hash whose parameters are out of bounds. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, rr, pp, salt, hash, ...rest] = stored.split("$");
  if (scheme !== "scrypt" || !n || !rr || !pp || !salt || !hash || rest.length) return false;
  const params = storedParams(n, rr, pp);
  const expected = Buffer.from(hash, "base64");
  if (!params || expected.length !== keyLength) return false;
  const actual = await scrypt(password, Buffer.from(salt, "base64"), params);
  return timingSafeEqual(actual, expected);
}

export const passwordRules = { min: 10, max: 256 } as const;

/** Why a new password is refused (too short, too long, or common and trivial), or undefined. */
export function passwordProblem(password: string, userInputs: string[] = []): string | undefined {
  if (password.length < passwordRules.min) return `must be at least ${passwordRules.min} characters`;
  if (password.length > passwordRules.max) return `must be at most ${passwordRules.max} characters`;
  return weakPasswordProblem(password, userInputs);
}
