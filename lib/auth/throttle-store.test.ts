// Sign-in throttling kept in the database, as dashboards sharing PostgreSQL keep it: what one instance
// counts, another enforces; the back-off is the in-memory throttle's; a success clears the pair's key;
// keys are forgotten after forgetMs. (The store is plain Prisma, so it runs on SQLite too.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { loginRules } from "./login";
import { backoffWaitMs } from "./throttle";
import { DatabaseThrottleStore } from "./throttle-store";

let db: TempDb;
beforeAll(async () => {
  db = await createTempDb();
});
afterAll(async () => db?.cleanup());

describe("the sign-in throttle in the database", () => {
  it("failures counted by one instance hold back sign-ins on another, with the same back-off", async () => {
    const [a, b] = [new DatabaseThrottleStore({ forgetMs: 15 * 60_000 }), new DatabaseThrottleStore({ forgetMs: 15 * 60_000 })];
    const rule = loginRules.accountFromAddress;
    const t0 = 1_800_000_000_000;
    for (let i = 1; i <= rule.free + 2; i++) await (i % 2 ? a : b).fail("pair:alice|10.0.0.1", rule, t0 + i);
    const last = t0 + rule.free + 2;
    expect(await b.failures("pair:alice|10.0.0.1", last)).toBe(rule.free + 2);
    expect(await a.waitMs("pair:alice|10.0.0.1", last)).toBe(backoffWaitMs(rule.free + 2, rule));
    expect(backoffWaitMs(rule.free + 2, rule)).toBe(2_000);
    expect(await b.waitMs("pair:alice|10.0.0.1", last + 2_000)).toBe(0);
    await a.clear("pair:alice|10.0.0.1");
    expect(await b.failures("pair:alice|10.0.0.1", last)).toBe(0);
  });

  it("forgets a key forgetMs after its last failure", async () => {
    const s = new DatabaseThrottleStore({ forgetMs: 60_000, sweepEveryMs: 0 });
    const t0 = 1_800_000_000_000;
    for (let i = 0; i < loginRules.address.free + 5; i++) await s.fail("addr:10.0.0.2", loginRules.address, t0);
    expect(await s.waitMs("addr:10.0.0.2", t0)).toBeGreaterThan(0);
    expect(await s.failures("addr:10.0.0.2", t0 + 60_000)).toBe(0);
    expect(await s.waitMs("addr:10.0.0.2", t0 + 60_000)).toBe(0);
  });
});
