// Golden files: the exact text of every template, with keys, time and randomness fixed, so every
// change to what Bootdeck writes to a host is reviewed in the diff. Update with `npx vitest run lib/assets/golden.test.ts --update` (the flag last: `-u` takes an optional value and would swallow the path).
import { describe, expect, it } from "vitest";
import { validateClusterDefinition, type ClusterDefinitionInput } from "../cluster/definition";
import { deriveCluster } from "../cluster/derive";
import { exampleDefinition } from "../cluster/example";
import { capabilitiesFor } from "./capabilities";
import { certificatePlan } from "./certificates";
import { renderAssets } from "./render";
import { GOLDEN_NOW, fixedKeys, seededRandom } from "./test-helpers";

function definition(version: string): ClusterDefinitionInput {
  const def = exampleDefinition({ hosts: 4 });
  def.spec.kubernetes.version = version;
  return def;
}

function goldenRender(version: string) {
  const input = definition(version);
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new Error("example must be valid");
  const names = certificatePlan(v.definition, deriveCluster(v.definition), capabilitiesFor(version)).map((e) => e.name);
  return renderAssets(input, { keys: fixedKeys(names), now: GOLDEN_NOW, random: seededRandom("golden") });
}

describe.each([
  { profile: "v1.36", version: "v1.36.3" },
])("the $profile templates", ({ profile, version }) => {
  it("render byte for byte the same given the same keys, time and randomness", async () => {
    const [a, b] = await Promise.all([goldenRender(version), goldenRender(version)]);
    expect(a).toEqual(b);
  });

  it("match the golden files", async () => {
    const assets = await goldenRender(version);
    // Private keys are the injected fixture: nothing to review there.
    for (const a of assets.filter((x) => !x.path.endsWith(".key")))
      await expect(a.content, a.path).toMatchFileSnapshot(`__golden__/${profile}/${a.path}`);
  });
});
