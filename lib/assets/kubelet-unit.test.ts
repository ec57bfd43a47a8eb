import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { exampleDefinition } from "../cluster/example";
import { validateClusterDefinition } from "../cluster/definition";
import { deriveCluster } from "../cluster/derive";
import { capabilitiesFor } from "./capabilities";
import { kubeletConfiguration } from "./kubelet-unit";

function failCgroupV1(version: string, allowCgroupV1: boolean): unknown {
  const input = exampleDefinition();
  input.spec.kubernetes = { ...input.spec.kubernetes, version, allowCgroupV1 };
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return (YAML.parse(kubeletConfiguration(capabilitiesFor(version), v.definition, deriveCluster(v.definition), "worker")) as { failCgroupV1?: unknown }).failCgroupV1;
}

describe("the kubelet on cgroup v1", () => {
  it("is refused from 1.35 unless the definition allows it, as preflight refuses it", () => {
    expect(failCgroupV1("v1.35.4", false)).toBe(true);
    expect(failCgroupV1("v1.37.2", true)).toBe(false);
  });

  it("keeps upstream's default on 1.34, where preflight only warns", () => {
    expect(failCgroupV1("v1.34.4", false)).toBe(false);
  });
});
