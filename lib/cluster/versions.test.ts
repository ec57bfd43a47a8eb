// How a version reads in the wizard and on the cluster page: the version once, its note once, never a
// label inside a label such as "v1.32.9 (1.32 (recommended))".
import { describe, expect, test } from "vitest";
import { describeVersion, profileOf, versionChoiceLabel, versionProblem, versionProfiles } from "./versions";

const nested = /\([^)]*\(/;

describe("the wizard's version choice", () => {
  test("the version, its minor, and the note after a comma", () => {
    expect(versionChoiceLabel(profileOf("v1.36.3"))).toBe("v1.36.3 — 1.36, recommended");
    expect(versionChoiceLabel(profileOf("v1.34.4"))).toBe("v1.34.4 — 1.34");
  });

  test.each(versionProfiles.map((p) => [p.minor, p] as const))("%s: no parentheses inside parentheses, the minor said once after the version", (_minor, p) => {
    const label = versionChoiceLabel(p);
    expect(label).not.toMatch(nested);
    const [version, rest] = label.split(" — ");
    expect(version).toBe(p.defaultVersion);
    expect(rest!.split(p.label).length - 1).toBe(1);
  });
});

describe("a cluster's version", () => {
  test("the version with its profile's note in one pair of parentheses, or alone", () => {
    expect(describeVersion("v1.36.3")).toBe("v1.36.3 (recommended)");
    expect(describeVersion("v1.34.4")).toBe("v1.34.4");
  });

  test.each(versionProfiles.map((p) => [p.defaultVersion] as const))("%s: no parentheses inside parentheses", (version) => {
    expect(describeVersion(version)).not.toMatch(nested);
  });

  test("a version without a profile is shown as it is", () => {
    expect(describeVersion("v1.32.9")).toBe("v1.32.9");
  });
});

describe("the supported versions", () => {
  test("are 1.34 to 1.37, each with its pinned components", () => {
    expect(versionProfiles.map((p) => p.defaultVersion)).toEqual(["v1.34.4", "v1.35.4", "v1.36.3", "v1.37.2"]);
  });

  test.each([
    ["v1.5.3", "v1.5 is no longer supported (the legacy hyperkube profile was retired); supported: v1.34.x, v1.35.x, v1.36.x, v1.37.x"],
    ["v1.29.0", "v1.29 is no longer supported (out of upstream support); supported: v1.34.x, v1.35.x, v1.36.x, v1.37.x"],
    ["v1.20.0", "is not a supported Kubernetes version; supported: v1.34.x, v1.35.x, v1.36.x, v1.37.x"],
    ["1.5", "must look like v1.36.3; supported: v1.34.x, v1.35.x, v1.36.x, v1.37.x"],
  ])("%s is refused with the supported versions listed", (version, problem) => {
    expect(versionProblem(version)).toBe(problem);
  });

  test("a supported version has no problem", () => {
    for (const p of versionProfiles) expect(versionProblem(p.defaultVersion)).toBeUndefined();
    expect(versionProblem("v1.36.99")).toBeUndefined();
  });
});
