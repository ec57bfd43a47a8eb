import "server-only";
// Sign-in: a password check behind throttling that slows guessing without letting a stranger lock an
// account. Three keys, each with exponential back-off (lib/auth/throttle.ts):
// - the address: 10 failures free, then 1 s, 2 s, 4 s … at most 15 min, whatever names it tries;
// - the account from that address: 5 free, then the same back-off;
// - the account from anywhere: 20 free, then 1 s, 2 s … at most 30 s; it applies only to addresses
//   that have already failed on this account (and to unknown ones), so guesses spread over many
//   addresses are slowed while its owner, signing in from an address with no failure, is not.
import { getDb } from "../db/client";
import { AppError } from "../http/errors";
import { recordAudit } from "../audit/record";
import { hashPassword, verifyPassword } from "./password";
import { createSession } from "./sessions";
import { BackoffThrottle, type BackoffRule } from "./throttle";

export const loginRules = {
  address: { free: 10, baseMs: 1_000, capMs: 15 * 60_000 },
  accountFromAddress: { free: 5, baseMs: 1_000, capMs: 15 * 60_000 },
  account: { free: 20, baseMs: 1_000, capMs: 30_000 },
} as const satisfies Record<string, BackoffRule>;

const holder = globalThis as unknown as { bootdeckLoginThrottle?: BackoffThrottle };
/** Keys are forgotten 15 minutes after their last failure; at most 50 000 are kept (oldest dropped). */
export const loginThrottle = (holder.bootdeckLoginThrottle ??= new BackoffThrottle({ forgetMs: 15 * 60_000, maxEntries: 50_000 }));

let dummy: Promise<string> | undefined;
const dummyHash = () => (dummy ??= hashPassword("not-a-real-password-only-for-timing"));

export async function login(input: { username: string; password: string; ip?: string; userAgent?: string; now?: number }) {
  const now = input.now ?? Date.now();
  const name = input.username.toLowerCase();
  const keys = {
    address: input.ip ? `addr:${input.ip}` : undefined,
    accountFromAddress: `pair:${name}|${input.ip ?? "?"}`,
    account: `user:${name}`,
  };
  const accountApplies = !input.ip || loginThrottle.failures(keys.accountFromAddress, now) > 0;
  const wait = Math.max(
    keys.address ? loginThrottle.waitMs(keys.address, now) : 0,
    loginThrottle.waitMs(keys.accountFromAddress, now),
    accountApplies ? loginThrottle.waitMs(keys.account, now) : 0,
  );
  if (wait > 0) {
    const s = Math.ceil(wait / 1000);
    throw new AppError(429, "rate_limited", `Too many failed sign-ins; try again in ${s} s`, { retryAfterSeconds: s });
  }
  const user = await getDb().user.findUnique({ where: { username: name } });
  // An unknown user costs the same scrypt as a known one, so timing does not tell which names exist.
  const ok = (await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash()))) && !!user && !user.disabled;
  if (!ok || !user) {
    if (keys.address) loginThrottle.fail(keys.address, loginRules.address, now);
    loginThrottle.fail(keys.accountFromAddress, loginRules.accountFromAddress, now);
    loginThrottle.fail(keys.account, loginRules.account, now);
    await recordAudit({ action: "auth.login_failed", username: input.username.slice(0, 64), ip: input.ip });
    throw new AppError(401, "bad_credentials", "Wrong user name or password");
  }
  loginThrottle.clear(keys.accountFromAddress);
  const session = await createSession({ userId: user.id, ip: input.ip, userAgent: input.userAgent });
  await recordAudit({ action: "auth.login", userId: user.id, username: user.username, ip: input.ip });
  return session;
}
