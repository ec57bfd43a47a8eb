import { describe, expect, test } from "vitest";
import { permissionsToRun, retryRefusal } from "./run-rules";

describe("run rules", () => {
  test("a reset needs host:reset besides run:start", () => {
    expect(permissionsToRun("reset")).toEqual(["run:start", "host:reset"]);
    expect(permissionsToRun("bootstrap")).toEqual(["run:start"]);
  });

  test.each([
    ["admin", "reset", "cancelled", undefined],
    ["lead", "reset", "failed", "retry a host reset"],
    ["lead", "bootstrap", "cancelled", undefined],
    ["support", "bootstrap", "failed", undefined],
    ["support", "check", "failed", undefined],
    ["support", "check", "cancelled", "retry a cancelled run"],
    ["support", "bootstrap", "cancelled", "retry a cancelled run"],
    ["support", "reset", "failed", "retry a host reset"],
    ["nobody", "check", "failed", "retry runs"],
  ])("%s retrying a %s run that %s: %s", (role, type, status, refusal) => {
    expect(retryRefusal(role, { type, status })).toBe(refusal);
  });
});
