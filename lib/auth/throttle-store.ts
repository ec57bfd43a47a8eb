import "server-only";
// Where sign-in throttling keeps its counts. SQLite deployments have one dashboard: in memory
// (throttle.ts). On PostgreSQL several dashboards may serve the same address, so the counts are rows of
// LoginThrottle that every instance reads and writes — the same rule, the same back-off. Two failures of
// one key at the same instant may count once; the in-memory throttle has the same window (the check
// comes before the password hash, the count after).
import { databaseKind, getDb } from "../db/client";
import { backoffWaitMs, BackoffThrottle, type BackoffRule } from "./throttle";

export interface ThrottleStore {
  waitMs(key: string, now: number): Promise<number>;
  failures(key: string, now: number): Promise<number>;
  fail(key: string, rule: BackoffRule, now: number): Promise<void>;
  clear(key: string): Promise<void>;
}

export class MemoryThrottleStore implements ThrottleStore {
  constructor(private readonly throttle: BackoffThrottle) {}
  async waitMs(key: string, now: number) {
    return this.throttle.waitMs(key, now);
  }
  async failures(key: string, now: number) {
    return this.throttle.failures(key, now);
  }
  async fail(key: string, rule: BackoffRule, now: number) {
    this.throttle.fail(key, rule, now);
  }
  async clear(key: string) {
    this.throttle.clear(key);
  }
}

export class DatabaseThrottleStore implements ThrottleStore {
  private lastSweep = 0;
  constructor(private readonly opts: { forgetMs: number; sweepEveryMs?: number }) {}

  private async row(key: string, now: number) {
    const row = await getDb().loginThrottle.findUnique({ where: { key } });
    return row && now - row.lastAt.getTime() < this.opts.forgetMs ? row : null;
  }
  async waitMs(key: string, now: number) {
    await this.sweep(now);
    const row = await this.row(key, now);
    return row ? Math.max(0, row.until.getTime() - now) : 0;
  }
  async failures(key: string, now: number) {
    return (await this.row(key, now))?.failures ?? 0;
  }
  async fail(key: string, rule: BackoffRule, now: number) {
    const failures = ((await this.row(key, now))?.failures ?? 0) + 1;
    const data = { failures, lastAt: new Date(now), until: new Date(now + backoffWaitMs(failures, rule)) };
    await getDb().loginThrottle.upsert({ where: { key }, create: { key, ...data }, update: data });
  }
  async clear(key: string) {
    await getDb().loginThrottle.deleteMany({ where: { key } });
  }
  /** Drops keys whose last failure is older than forgetMs (at most once per interval per process). */
  private async sweep(now: number) {
    if (now - this.lastSweep < (this.opts.sweepEveryMs ?? 60_000)) return;
    this.lastSweep = now;
    await getDb().loginThrottle.deleteMany({ where: { lastAt: { lt: new Date(now - this.opts.forgetMs) } } });
  }
}

const FORGET_MS = 15 * 60_000;
const holder = globalThis as unknown as { bootdeckLoginThrottle?: BackoffThrottle; bootdeckThrottleStore?: ThrottleStore };

/** This process's sign-in throttle: keys are forgotten 15 minutes after their last failure (in memory, at most 50 000 kept). */
export function getLoginThrottle(): ThrottleStore {
  return (holder.bootdeckThrottleStore ??=
    databaseKind() === "postgres"
      ? new DatabaseThrottleStore({ forgetMs: FORGET_MS })
      : new MemoryThrottleStore((holder.bootdeckLoginThrottle ??= new BackoffThrottle({ forgetMs: FORGET_MS, maxEntries: 50_000 }))));
}

/** Tests: forget the store (the database changed). */
export function resetLoginThrottle(): void {
  holder.bootdeckThrottleStore = undefined;
  holder.bootdeckLoginThrottle = undefined;
}
