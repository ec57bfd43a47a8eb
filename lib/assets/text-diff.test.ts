import { describe, expect, it } from "vitest";
import { unifiedDiff } from "./text-diff";

describe("unifiedDiff", () => {
  it("marks removed and added lines with context and elides long unchanged runs", () => {
    const a = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"].join("\n");
    const b = ["a", "b", "c", "d", "E", "f", "g", "h", "i", "j", "k"].join("\n");
    expect(unifiedDiff(a, b, 1)).toBe(["@@", " d", "-e", "+E", " f", "@@", " j", "+k"].join("\n"));
  });

  it("shows nothing but context for equal texts and gives up on huge inputs", () => {
    expect(unifiedDiff("x\ny", "x\ny")).toBe("@@");
    const big = Array.from({ length: 3000 }, (_, i) => String(i)).join("\n");
    expect(unifiedDiff(big, `${big}\nz`)).toBeUndefined();
  });
});
