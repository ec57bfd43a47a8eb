import "server-only";
import { getDb } from "../db/client";
import { AppError } from "../http/errors";
import { recordAudit } from "../audit/record";
import { hashPassword, verifyPassword } from "./password";
import { createSession } from "./sessions";

// Failed attempts per username and per address in a sliding window; in-process, which is enough
// for the single dashboard process (a multi-process deployment moves it to the database).
const window = 5 * 60_000;
const maxFailures = 10;
const failures = new Map<string, number[]>();

let dummy: Promise<string> | undefined;
const dummyHash = () => (dummy ??= hashPassword("not-a-real-password-only-for-timing"));

function recentFailures(key: string, now: number): number[] {
  const list = (failures.get(key) ?? []).filter((t) => now - t < window);
  failures.set(key, list);
  return list;
}

export async function login(input: { username: string; password: string; ip?: string; userAgent?: string }) {
  const now = Date.now();
  const keys = [`u:${input.username.toLowerCase()}`, `ip:${input.ip ?? "?"}`];
  if (keys.some((k) => recentFailures(k, now).length >= maxFailures))
    throw new AppError(429, "rate_limited", "Too many failed sign-ins; wait five minutes and try again");
  const user = await getDb().user.findUnique({ where: { username: input.username.toLowerCase() } });
  // An unknown user costs the same scrypt as a known one, so timing does not tell which names exist.
  const ok = (await verifyPassword(input.password, user?.passwordHash ?? (await dummyHash()))) && !!user && !user.disabled;
  if (!ok) {
    for (const k of keys) recentFailures(k, now).push(now);
    await recordAudit({ action: "auth.login_failed", username: input.username.slice(0, 64), ip: input.ip });
    throw new AppError(401, "bad_credentials", "Wrong user name or password");
  }
  if (!user) throw new AppError(401, "bad_credentials", "Wrong user name or password");
  const session = await createSession({ userId: user.id, ip: input.ip, userAgent: input.userAgent });
  await recordAudit({ action: "auth.login", userId: user.id, username: user.username, ip: input.ip });
  return session;
}
