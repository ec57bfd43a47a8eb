import { describe, expect, it } from "vitest";
import { batchCount, batchSize, intoBatches } from "./batches";

describe("rolling batches", () => {
  it("counts a percentage rounded up, at least one node", () => {
    expect(batchCount("10%", 5)).toBe(1);
    expect(batchCount("10%", 25)).toBe(3);
    expect(batchCount("50%", 5)).toBe(3);
    expect(batchCount("2", 5)).toBe(2);
    expect(batchCount("9", 5)).toBe(5);
  });

  it("splits nodes into consecutive batches", () => {
    expect(intoBatches(["a", "b", "c", "d", "e"], "2")).toEqual([["a", "b"], ["c", "d"], ["e"]]);
    expect(intoBatches(["a", "b", "c"], "1")).toEqual([["a"], ["b"], ["c"]]);
    expect(intoBatches([], "10%")).toEqual([]);
  });

  it("accepts counts and percentages only", () => {
    expect(batchSize.safeParse("10%").success).toBe(true);
    expect(batchSize.safeParse("3").success).toBe(true);
    for (const bad of ["0", "0%", "101%", "-1", "1.5", "ten"]) expect(batchSize.safeParse(bad).success, bad).toBe(false);
  });
});
