import "server-only";
// Sign-in: a password check behind throttling that slows guessing without letting a stranger lock an
// account, as OWASP's guidance has it: the account and address pair is what is slowed; the address
// alone only has a much higher ceiling, since behind a proxy that is not in BOOTDECK_TRUSTED_PROXIES
// every user shares one address. Three keys, each with exponential back-off (lib/auth/throttle.ts):
// - the account from that address: 5 failures free, then 1 s, 2 s, 4 s … at most 15 min;
// - the address: 100 free whatever names it tries (a password spray), then 1 s, 2 s … at most 1 min,
//   so one attacker behind a shared address holds everyone else back by a minute at most;
// - the account from anywhere: 20 free, then 1 s, 2 s … at most 30 s; it applies only to addresses
//   that have already failed on this account (and to unknown ones), so guesses spread over many
//   addresses are slowed while its owner, signing in from an address with no failure, is not.
import { getDb } from "../db/client";
import { AppError } from "../errors";
import { recordAudit } from "../audit/record";
import { getAccessSettings } from "./access-settings";
import { hashPassword, verifyPassword } from "./password";
import { createSession } from "./sessions";
import type { BackoffRule } from "./throttle";
import { getLoginThrottle } from "./throttle-store";

export const loginRules = {
  address: { free: 100, baseMs: 1_000, capMs: 60_000 },
  accountFromAddress: { free: 5, baseMs: 1_000, capMs: 15 * 60_000 },
  account: { free: 20, baseMs: 1_000, capMs: 30_000 },
} as const satisfies Record<string, BackoffRule>;


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
  // In memory for one dashboard (SQLite), in the database when dashboards share PostgreSQL.
  const loginThrottle = getLoginThrottle();
  const accountApplies = !input.ip || (await loginThrottle.failures(keys.accountFromAddress, now)) > 0;
  const wait = Math.max(
    keys.address ? await loginThrottle.waitMs(keys.address, now) : 0,
    await loginThrottle.waitMs(keys.accountFromAddress, now),
    accountApplies ? await loginThrottle.waitMs(keys.account, now) : 0,
  );
  if (wait > 0) {
    const s = Math.ceil(wait / 1000);
    throw new AppError(429, "rate_limited", `Too many failed sign-ins; try again in ${s} s`, { retryAfterSeconds: s });
  }
  const user = await getDb().user.findUnique({ where: { username: name } });
  // An unknown user costs the same scrypt as a known one, so timing does not tell which names exist.
  const ok = (await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash()))) && !!user && !user.disabled && user.authProvider === "local";
  if (!ok || !user) {
    if (keys.address) await loginThrottle.fail(keys.address, loginRules.address, now);
    await loginThrottle.fail(keys.accountFromAddress, loginRules.accountFromAddress, now);
    await loginThrottle.fail(keys.account, loginRules.account, now);
    await recordAudit({ action: "auth.login_failed", username: input.username.slice(0, 64), ip: input.ip });
    throw new AppError(401, "bad_credentials", "Wrong user name or password");
  }
  await loginThrottle.clear(keys.accountFromAddress);
  // With sign-in through the identity provider on, an admin may keep local sign-in for break-glass
  // accounts only. Checked after the password, so a wrong one still counts as a failure.
  const access = await getAccessSettings();
  if (access.localSignIn === "break-glass" && !access.breakGlass.includes(user.username)) {
    await recordAudit({ action: "auth.login_refused", userId: user.id, username: user.username, ip: input.ip, details: { reason: "local sign-in is limited to break-glass accounts" } });
    throw new AppError(403, "local_sign_in_off", "Local sign-in is turned off for this account: use “Sign in with your identity provider”");
  }
  const session = await createSession({ userId: user.id, ip: input.ip, userAgent: input.userAgent });
  await recordAudit({ action: "auth.login", userId: user.id, username: user.username, ip: input.ip });
  return session;
}
