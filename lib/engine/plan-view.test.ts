// A plan as a person reads it: commands by host, each readable beside the line sent, what runs only if
// needed marked, every API object as YAML with Secrets' values hidden, and nothing cut.
import { beforeAll, describe, expect, it } from "vitest";
import { renderAssets } from "../assets/render";
import { validateClusterDefinition } from "../cluster/definition";
import { exampleDefinition } from "../cluster/example";
import { shellCommand } from "../ssh/quote";
import type { RunPlan } from "./plan";
import { assetIndexFrom } from "./plan-objects";
import { byHost, planText, readableCommand } from "./plan-view";
import { buildBootstrapPlan } from "./plans";

let plan: RunPlan;
let rendered: Awaited<ReturnType<typeof renderAssets>>;

beforeAll(async () => {
  const v = validateClusterDefinition(exampleDefinition({ hosts: 4 }));
  if (!v.ok) throw new Error("invalid");
  rendered = await renderAssets(v.definition);
  plan = buildBootstrapPlan(v.definition, "run_AAAAAAAAAAAAAAAA", assetIndexFrom(rendered));
}, 60_000);

const stepOf = (key: string) => plan.phases.flatMap((p) => p.steps).find((s) => s.key === key)!;

describe("reading a plan", () => {
  it("shows a fixed script as its name and arguments, the script apart, and the line exactly as sent", () => {
    const argv = ["sh", "-c", "echo \"$1\"", "bootdeck-echo", "it's"];
    expect(readableCommand(argv)).toEqual({ line: "bootdeck-echo 'it'\\''s'", script: "echo \"$1\"", sent: shellCommand(argv) });
    expect(readableCommand(["true"])).toEqual({ line: "true", sent: "true" });
  });

  it("groups a cluster-wide step's commands and files by the host they go to", () => {
    const parts = byHost(stepOf("pivot/cluster"));
    expect(parts.map((p) => p.host)).toEqual(["master-1"]);
    expect(parts[0]!.exec.map((e) => e.id)).toEqual(["present", "remove", "checkpoint"]);
    expect(parts[0]!.files.length).toBeGreaterThan(0);
    expect(byHost(stepOf("verify/cluster")).map((p) => p.host)).toEqual(["master-1", "master-2", "master-3", "worker-1"]);
  });

  it("prints every step in full: scripts uncut, what runs only if needed, objects as YAML, no secret value", () => {
    const text = planText(plan);
    const kubelet = stepOf("kubelet/worker-1").exec!.find((e) => e.id === "start")!;
    for (const line of kubelet.argv[2]!.split("\n")) expect(text).toContain(`| ${line}`);
    expect(text).toContain("run journal (only if needed): bootdeck-journal 60");
    expect(text).toContain("api create if missing ConfigMap kube-system/coredns from manifests/coredns-config.yaml");
    expect(text).toMatch(/api create if missing ConfigMap kube-system\/coredns[^\n]*\n\s+apiVersion: v1\n\s+kind: ConfigMap/);
    expect(text).toContain("api add taint Node master-1 (only if needed)");
    expect(text).toContain("rule: stringData.expiration is set when it is sent");
    // No value of a Secret, nor a private key, reaches the text.
    const secret = rendered.find((a) => a.path === "manifests/kube-apiserver-secret.yaml")!.content;
    const value = /^\s+[\w.-]+: ([A-Za-z0-9+/=]{40,})$/m.exec(secret)?.[1];
    expect(value).toBeDefined();
    expect(text).not.toContain(value!);
    expect(text).not.toContain("PRIVATE KEY");
  });
});
