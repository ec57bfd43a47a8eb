import { describe, expect, it } from "vitest";
import { runningSkewProblem, upgradeRefusal } from "./skew";

describe("the version skew policy of an upgrade", () => {
  it("allows a patch and the next minor", () => {
    expect(upgradeRefusal("v1.36.1", "v1.36.3")).toBeUndefined();
    expect(upgradeRefusal("v1.36.3", "v1.37.2")).toBeUndefined();
  });

  it("refuses a skipped minor, a downgrade, the same version and an unsupported one, saying why", () => {
    expect(upgradeRefusal("v1.35.4", "v1.37.2")).toMatch(/skips 1 minor version: upgrade one minor at a time \(first to v1\.36\.x\)/);
    expect(upgradeRefusal("v1.37.2", "v1.36.3")).toMatch(/older than v1\.37\.2: Kubernetes does not support downgrades/);
    expect(upgradeRefusal("v1.36.3", "v1.36.3")).toMatch(/runs v1\.36\.3 already/);
    expect(upgradeRefusal("v1.36.3", "v1.38.0")).toMatch(/not a Kubernetes version Bootdeck supports/);
    expect(upgradeRefusal("v1.36.3", "1.37")).toMatch(/not a version/);
  });

  it("accepts a half-done upgrade: API servers at either version, kubelets not newer than the oldest", () => {
    expect(runningSkewProblem({ from: "v1.36.3", to: "v1.37.2", apiservers: { m1: "v1.37.2", m2: "v1.36.3" }, kubelets: { m1: "v1.36.3", w1: "v1.36.3" } })).toBeUndefined();
  });

  it("refuses a kubelet newer than an API server, naming it", () => {
    expect(runningSkewProblem({ from: "v1.36.3", to: "v1.37.2", apiservers: { m1: "v1.37.2", m2: "v1.36.3" }, kubelets: { w1: "v1.37.2" } })).toMatch(
      /w1's kubelet v1\.37\.2 is newer than an API server \(v1\.36\.3\): kubelets must never be newer than the API servers/,
    );
  });

  it("refuses an API server on a third version", () => {
    expect(runningSkewProblem({ from: "v1.36.3", to: "v1.37.2", apiservers: { m1: "v1.35.4" }, kubelets: {} })).toMatch(/the API server on m1 runs v1\.35\.4/);
  });
});
