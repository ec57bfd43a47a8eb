// Pins domain.md's "Kubelet across versions" table and the API removals at their boundaries.
import { describe, expect, it } from "vitest";
import { capabilitiesFor, imagesFor } from "./capabilities";

const at = (minor: number) => capabilitiesFor(`v1.${minor}.0`);

describe("capabilities by Kubernetes minor version", () => {
  it.each([
    ["requireKubeconfigFlag", 9, true, 10, false],
    ["allowPrivilegedFlag", 14, true, 15, false],
    ["networkPluginFlag", 23, true, 24, false],
    ["selfLabelRole", 15, true, 16, false],
    ["kubeletConfigFile", 9, false, 10, true],
    ["hyperkube", 18, true, 19, false],
    ["serviceAccountIssuer", 19, false, 20, true],
    ["rbac", 7, false, 8, true],
    ["bootstrapTokens", 5, false, 6, true],
  ] as const)("%s flips between 1.%i and 1.%i", (key, before, was, after, is) => {
    expect(at(before)[key]).toBe(was);
    expect(at(after)[key]).toBe(is);
  });

  it("serves workloads from apps/v1 from 1.9 and budgets from policy/v1 from 1.21", () => {
    expect([at(8).workloadsApi, at(9).workloadsApi]).toEqual(["extensions/v1beta1", "apps/v1"]);
    expect([at(20).pdbApi, at(21).pdbApi]).toEqual(["policy/v1beta1", "policy/v1"]);
  });

  it("uses per-component images from 1.19 and hyperkube before", () => {
    expect(imagesFor(capabilitiesFor("v1.32.9")).apiserver).toBe("registry.k8s.io/kube-apiserver:v1.32.9");
    expect(imagesFor(capabilitiesFor("v1.5.3")).apiserver).toBe("quay.io/coreos/hyperkube:v1.5.3_coreos.0");
  });
});
