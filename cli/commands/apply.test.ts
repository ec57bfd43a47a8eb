// bootdeck apply prints the plan whole: for a person, or as YAML or JSON that read back as the plan.
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { validateClusterDefinition } from "../../lib/cluster/definition";
import { exampleDefinition } from "../../lib/cluster/example";
import { buildCheckPlan } from "../../lib/engine/plans";
import { planOutput, planText } from "./apply";

const v = validateClusterDefinition(exampleDefinition({ hosts: 3 }));
if (!v.ok) throw new Error("invalid example");
const plan = buildCheckPlan(v.definition);

describe("bootdeck apply's plan", () => {
  it("prints every step with its commands in full for a person", () => {
    const text = planText(plan);
    expect(text.split("\n")[0]).toBe("Plan: check on 3 hosts, 2 phases, 7 steps");
    const facts = plan.phases[0]!.steps[0]!.exec![0]!;
    for (const line of facts.argv[2]!.split("\n")) expect(text).toContain(`| ${line}`);
    expect(text).toContain("run facts: bootdeck-facts");
  });

  it("prints the plan as stored for machines", () => {
    expect(JSON.parse(planText(plan, "json"))).toEqual(plan);
    expect(YAML.parse(planText(plan, "yaml"))).toEqual(plan);
  });

  it("takes --output text, yaml or json, and nothing else", () => {
    expect(planOutput([])).toBe("text");
    expect(planOutput(["--output", "json"])).toBe("json");
    expect(planOutput(["--output", "xml"])).toBeUndefined();
  });
});
