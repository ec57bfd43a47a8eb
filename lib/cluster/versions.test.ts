// How a version reads in the wizard and on the cluster page: the version once, its note once, never a
// label inside a label such as "v1.32.9 (1.32 (recommended))".
import { describe, expect, test } from "vitest";
import { describeVersion, profileOf, versionChoiceLabel, versionProfiles } from "./versions";

const nested = /\([^)]*\(/;

describe("the wizard's version choice", () => {
  test("the version, its minor, and the note after a comma", () => {
    expect(versionChoiceLabel(profileOf("v1.36.3"))).toBe("v1.36.3 — 1.36, recommended");
    expect(versionChoiceLabel(profileOf("v1.34.4"))).toBe("v1.34.4 — 1.34");
    expect(versionChoiceLabel(profileOf("v1.5.3"))).toBe("v1.5.3 — 1.5, legacy: hyperkube, as in the Topsail guide");
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
    expect(describeVersion("v1.5.3")).toBe("v1.5.3 (legacy: hyperkube, as in the Topsail guide)");
  });

  test.each(versionProfiles.map((p) => [p.defaultVersion] as const))("%s: no parentheses inside parentheses", (version) => {
    expect(describeVersion(version)).not.toMatch(nested);
  });

  test("a version without a profile is shown as it is", () => {
    expect(describeVersion("v1.32.9")).toBe("v1.32.9");
  });
});
