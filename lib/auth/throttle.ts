// Sign-in throttling with exponential back-off: in memory here (one dashboard process, SQLite), in the
// database (throttle-store.ts) when several dashboards share PostgreSQL. A key (an address, an account, an account from one address) gets
// some failures free; after that each failure doubles the wait before the next attempt, up to a cap.
// Nothing locks for good: the wait ends by itself, and a key with no failure for `forgetMs` is dropped.

export type BackoffRule = { free: number; baseMs: number; capMs: number };
type Entry = { failures: number; last: number; until: number };

/** The wait after a key's `failures`-th failure in a row. */
export function backoffWaitMs(failures: number, rule: BackoffRule): number {
  const over = failures - rule.free;
  return over > 0 ? Math.min(rule.capMs, rule.baseMs * 2 ** Math.min(over - 1, 40)) : 0;
}

export class BackoffThrottle {
  private readonly entries = new Map<string, Entry>();
  private lastSweep = 0;

  constructor(private readonly opts: { forgetMs: number; maxEntries: number; sweepEveryMs?: number }) {}

  /** Milliseconds until `key` may try again (0: now). */
  waitMs(key: string, now: number): number {
    this.sweep(now);
    const e = this.entries.get(key);
    return e ? Math.max(0, e.until - now) : 0;
  }

  /** Failures of `key` in its current run (0 when unknown or forgotten). */
  failures(key: string, now: number): number {
    const e = this.entries.get(key);
    return e && now - e.last < this.opts.forgetMs ? e.failures : 0;
  }

  fail(key: string, rule: BackoffRule, now: number): void {
    const prev = this.entries.get(key);
    const failures = (prev && now - prev.last < this.opts.forgetMs ? prev.failures : 0) + 1;
    const wait = backoffWaitMs(failures, rule);
    // Re-inserted so the map stays ordered by last failure (the oldest go first when it is full).
    this.entries.delete(key);
    this.entries.set(key, { failures, last: now, until: now + wait });
    while (this.entries.size > this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  clear(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Drops keys whose last failure is older than `forgetMs` (at most once per sweep interval). */
  sweep(now: number): void {
    if (now - this.lastSweep < (this.opts.sweepEveryMs ?? 60_000)) return;
    this.lastSweep = now;
    for (const [k, e] of this.entries) {
      if (now - e.last < this.opts.forgetMs) break; // ordered by last failure: the rest are newer
      this.entries.delete(k);
    }
  }
}
