import { describe, expect, test } from "vitest";
import { DEFAULT_NEXT, loginUrlFor, safeNextPath } from "./next-path";

describe("safeNextPath", () => {
  test("keeps a whole path on this dashboard: path, query and fragment", () => {
    expect(safeNextPath("/clusters/cl_abcdefghijklmnop/runs/run_0123456789abcdef?host=worker-2&phase=preflight#details")).toBe(
      "/clusters/cl_abcdefghijklmnop/runs/run_0123456789abcdef?host=worker-2&phase=preflight#details",
    );
    expect(safeNextPath("/audit?action=run.&user=alice")).toBe("/audit?action=run.&user=alice");
    expect(safeNextPath("/clusters/x/hosts/worker%201")).toBe("/clusters/x/hosts/worker%201");
  });

  test.each([
    ["//evil.example/clusters"],
    ["/\\evil.example"],
    ["https://evil.example/"],
    ["javascript:alert(1)"],
    ["evil.example"],
    ["/\u0000x"],
    ["/\tx"],
    ["/login?next=/clusters"],
    ["/api/runs/x"],
    [""],
    [undefined],
    [`/${"a".repeat(3000)}`],
  ])("refuses %j: back to the cluster list", (raw) => {
    expect(safeNextPath(raw)).toBe(DEFAULT_NEXT);
  });

  test("a path that normalises off the site is refused, dot segments stay on it", () => {
    expect(safeNextPath("/./clusters/../audit")).toBe("/audit");
    expect(safeNextPath("/..//evil.example")).toBe(DEFAULT_NEXT);
    expect(safeNextPath("/clusters/..//evil.example")).toBe(DEFAULT_NEXT);
  });

  test("loginUrlFor encodes the whole target once", () => {
    expect(loginUrlFor("/clusters/a?b=c&d=e")).toBe("/login?next=%2Fclusters%2Fa%3Fb%3Dc%26d%3De");
    expect(loginUrlFor("//evil.example")).toBe("/login?next=%2Fclusters");
  });
});
