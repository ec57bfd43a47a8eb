import { describe, expect, test } from "vitest";
import { BackoffThrottle } from "./throttle";

const rule = { free: 2, baseMs: 1_000, capMs: 8_000 };

describe("BackoffThrottle", () => {
  test("free failures, then a wait that doubles up to the cap", () => {
    const t = new BackoffThrottle({ forgetMs: 60_000, maxEntries: 100 });
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      t.fail("k", rule, 0);
      waits.push(t.waitMs("k", 0));
    }
    expect(waits).toEqual([0, 0, 1_000, 2_000, 4_000, 8_000, 8_000]);
    expect(t.waitMs("k", 8_000)).toBe(0);
  });

  test("a key with no failure for forgetMs starts over", () => {
    const t = new BackoffThrottle({ forgetMs: 60_000, maxEntries: 100 });
    for (let i = 0; i < 4; i++) t.fail("k", rule, 0);
    expect(t.failures("k", 59_999)).toBe(4);
    t.fail("k", rule, 60_000);
    expect(t.failures("k", 60_000)).toBe(1);
    expect(t.waitMs("k", 60_000)).toBe(0);
  });

  test("forgotten keys are pruned, and the map never holds more than maxEntries", () => {
    const t = new BackoffThrottle({ forgetMs: 60_000, maxEntries: 1_000, sweepEveryMs: 1_000 });
    for (let i = 0; i < 500; i++) t.fail(`old-${i}`, rule, 0);
    for (let i = 0; i < 10; i++) t.fail(`new-${i}`, rule, 30_000);
    expect(t.size).toBe(510);
    t.waitMs("anything", 70_000); // a sweep: the 500 old keys are past forgetMs
    expect(t.size).toBe(10);
    for (let i = 0; i < 5_000; i++) t.fail(`flood-${i}`, rule, 71_000);
    expect(t.size).toBe(1_000);
    expect(t.failures("flood-4999", 71_000)).toBe(1); // the newest stay, the oldest went
    expect(t.failures("new-0", 71_000)).toBe(0);
  });
});
