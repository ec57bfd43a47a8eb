// What the day-2 plans promise before they run: masters join etcd one at a time behind a health check,
// removals refuse what would break the cluster, upgrades go control plane first and kubelets in
// batches behind pause points; every command shown is the argument vector the step sends.
import { beforeAll, describe, expect, it } from "vitest";
import { keptPkiFrom } from "../assets/keep";
import { renderAssets } from "../assets/render";
import { validateClusterDefinition, type ClusterDefinition, type ClusterDefinitionInput } from "../cluster/definition";
import { exampleDefinition } from "../cluster/example";
import { shellCommand } from "../ssh/quote";
import type { RunPlan } from "./plan";
import { buildAddNodesPlan, buildRemovePlan, buildUpgradePlan } from "./plans-day2";
import { KUBELET_WATCH_S, type AssetIndex } from "./plans";
import { assetIndexFrom } from "./plan-objects";

const RUN = "run_AAAAAAAAAAAAAAAA";
const index = (assets: { path: string; content: string }[]): AssetIndex => assetIndexFrom(assets);

function valid(input: ClusterDefinitionInput): ClusterDefinition {
  const v = validateClusterDefinition(input);
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.definition;
}

const base = exampleDefinition({ hosts: 8 }); // 3 masters, 5 workers
let def: ClusterDefinition;
let assets: AssetIndex;
let grown: ClusterDefinition;
let grownAssets: AssetIndex;
let upgraded: AssetIndex;

beforeAll(async () => {
  def = valid(base);
  const rendered = await renderAssets(def);
  assets = index(rendered);
  const files = new Map(rendered.map((a) => [a.path, a.content]));
  grown = valid({ ...base, spec: { ...base.spec, hosts: [...base.spec.hosts.slice(0, 3), { name: "master-4", address: "192.0.2.40", role: "master" }, { name: "master-5", address: "192.0.2.41", role: "master" }, ...base.spec.hosts.slice(3)] } });
  grownAssets = index(await renderAssets(grown, { keep: keptPkiFrom(files), joiningMembers: ["master-4", "master-5"] }));
  upgraded = index(await renderAssets({ ...base, spec: { ...base.spec, kubernetes: { ...base.spec.kubernetes, version: "v1.37.2" } } }, { keep: keptPkiFrom(files) }));
}, 120_000);

const steps = (plan: RunPlan) => plan.phases.flatMap((p) => p.steps);
const stepOf = (plan: RunPlan, key: string) => {
  const s = steps(plan).find((x) => x.key === key);
  if (!s) throw new Error(`no step ${key} in ${steps(plan).map((x) => x.key).join(", ")}`);
  return s;
};

describe("adding masters", () => {
  it("checks etcd first, starts the kubelets without etcd, adds the members one at a time, then joins; no running API server changes", () => {
    const plan = buildAddNodesPlan(grown, RUN, grownAssets, ["master-4", "master-5", "worker-1"]);
    expect(plan.phases.map((p) => p.id)).toEqual(["facts", "preflight", "guard", "token", "packages", "binaries", "runtime", "kubelet", "etcd", "join", "verify"]);
    const kubelet = stepOf(plan, "kubelet/master-4");
    expect(kubelet.files.map((f) => f.path)).toContain("/etc/kubernetes/etcd/peer.crt");
    expect(kubelet.files.map((f) => f.path)).not.toContain("/etc/kubernetes/manifests/etcd.yaml");
    const e4 = stepOf(plan, "etcd/master-4");
    const e5 = stepOf(plan, "etcd/master-5");
    expect(e5.dependsOn).toEqual(["etcd/master-4"]);
    expect(e4.files).toEqual([expect.objectContaining({ path: "/etc/kubernetes/manifests/etcd.yaml", asset: "etcd/etcd-master-4.yaml", sha256: grownAssets.get("etcd/etcd-master-4.yaml")?.sha256 })]);
    // The learner is added and promoted through a running master's etcd, by peer URL.
    expect(e4.exec?.filter((x) => x.id === "etcd-add").map((x) => x.host)).toEqual(["master-1", "master-2", "master-3"]);
    expect(e4.exec?.find((x) => x.id === "etcd-add")?.argv.slice(-3)).toEqual(["add-learner", "master-4", "https://192.0.2.40:2380"]);
    expect(JSON.parse(e5.params!.before!).map((m: { name: string }) => m.name)).toEqual(["master-1", "master-2", "master-3", "master-4"]);
    expect(stepOf(plan, "join/master-4").dependsOn).toEqual(["etcd/master-4"]);
    expect(stepOf(plan, "join/worker-1").dependsOn).toEqual([]);
    // A new node's kubelet is watched for a crash loop, and later starts know what it ran with.
    expect(stepOf(plan, "kubelet/worker-1").exec?.find((x) => x.id === "start")?.argv.slice(5, 7)).toEqual([String(KUBELET_WATCH_S), "/usr/local/bin/kubelet"]);
    // Each API server talks to its own etcd member: the running masters' control plane is left alone.
    expect(steps(plan).filter((s) => s.host === "master-1").map((s) => s.phase)).not.toContain("control-plane");
  });

  it("shows every command as the argument vector it sends, on the host it runs on", () => {
    const plan = buildAddNodesPlan(grown, RUN, grownAssets, ["master-4"]);
    for (const s of steps(plan))
      for (const e of s.exec ?? []) expect(s.commands, `${s.key} ${e.id}`).toContain(shellCommand(e.argv));
  });

  it("refuses when every master would be new", () => {
    expect(() => buildAddNodesPlan(grown, RUN, grownAssets, ["master-1", "master-2", "master-3", "master-4", "master-5"])).toThrow(/no running master to join/);
  });
});

describe("removing hosts", () => {
  it("removes the etcd member first, then drains, deletes the Node, resets, and forgets the host", () => {
    const plan = buildRemovePlan(def, RUN, assets, ["master-3", "worker-2"], { reset: true, drainTimeoutMs: 120_000 });
    expect(plan.phases.map((p) => p.id)).toEqual(["guard", "etcd", "drain", "remove-node", "reset", "record", "verify"]);
    expect(stepOf(plan, "etcd/master-3").exec?.find((x) => x.id === "etcd-remove")?.argv.slice(-2)).toEqual(["remove", "https://192.0.2.13:2380"]);
    expect(stepOf(plan, "etcd/master-3").exec?.filter((x) => x.id === "etcd-remove").map((x) => x.host)).toEqual(["master-1", "master-2"]);
    // The master gives up the API address (on itself) before its member goes.
    expect(stepOf(plan, "etcd/master-3").exec?.map((x) => `${x.id}${x.host ? ` on ${x.host}` : ""}`).slice(0, 2)).toEqual(["release-address", "etcd-remove on master-1"]);
    expect(stepOf(plan, "remove-node/worker-2").dependsOn).toEqual(["drain/worker-2"]);
    expect(stepOf(plan, "drain/worker-2").api?.map((c) => [c.verb, c.object.name, c.options?.timeoutSeconds])).toEqual([
      ["cordon", "worker-2", undefined],
      ["drain", "worker-2", 120],
    ]);
    expect(JSON.parse(stepOf(plan, "record/cluster").params!.hosts!)).toEqual(["master-3", "worker-2"]);
    // The definition forgets only hosts that are out: a drain that failed keeps its host in it.
    expect(stepOf(plan, "record/cluster").dependsOn).toEqual(["remove-node/master-3", "remove-node/worker-2", "reset/master-3", "reset/worker-2"]);
    expect(JSON.parse(stepOf(plan, "verify/cluster").params!.absent!)).toEqual(["master-3", "worker-2"]);
  });

  it("touches no etcd for workers, and resets nothing when told the host is gone", () => {
    const plan = buildRemovePlan(def, RUN, assets, ["worker-5"], { reset: false, drainTimeoutMs: 300_000 });
    expect(plan.phases.map((p) => p.id)).toEqual(["guard", "drain", "remove-node", "record", "verify"]);
  });

  it("refuses to remove the last master, or the first one when it is the API endpoint", () => {
    expect(() => buildRemovePlan(def, RUN, assets, ["master-1", "master-2", "master-3"], { reset: true, drainTimeoutMs: 1 })).toThrow(/leaves no master/);
    const fm = valid({ ...base, spec: { ...base.spec, apiEndpoint: { type: "first-master", port: 6443 } } });
    expect(() => buildRemovePlan(fm, RUN, assets, ["master-1"], { reset: true, drainTimeoutMs: 1 })).toThrow(/master-1 is the API endpoint .*move the cluster to a VIP/);
  });
});

describe("a rolling upgrade", () => {
  it("goes control plane first, then kubelets in batches: masters one at a time, workers 10%", () => {
    const plan = buildUpgradePlan(def, RUN, upgraded, { to: "v1.37.2" });
    expect(plan.phases.map((p) => p.id)).toEqual(["facts", "preflight", "stage", "etcd", "control-plane", "kubelets", "verify"]);
    expect(stepOf(plan, "etcd/master-2").dependsOn).toEqual(["etcd/master-1"]);
    const cp = plan.phases.find((p) => p.id === "control-plane")!.steps.map((s) => s.key);
    expect(cp.indexOf("control-plane/kube-apiserver")).toBeLessThan(cp.indexOf("control-plane/kube-controller-manager"));
    expect(stepOf(plan, "record/cluster").params).toMatchObject({ op: "set-version", version: "v1.37.2" });
    const kubelets = plan.phases.find((p) => p.id === "kubelets")!.steps;
    // 3 master batches and 5 worker batches of 1 (10% of 5, rounded up), each behind a pause point.
    expect(kubelets.filter((s) => s.action === "upgrade-gate")).toHaveLength(8);
    expect(stepOf(plan, "gate/batch-1").dependsOn).toEqual(["record/cluster"]);
    expect(stepOf(plan, "gate/batch-2").dependsOn).toEqual(["kubelet/master-1"]);
    expect(stepOf(plan, "kubelet/worker-1").dependsOn).toEqual(["gate/batch-4"]);
    const w1 = stepOf(plan, "kubelet/worker-1");
    expect(w1.files.find((f) => f.path === "/var/lib/kubelet/config.yaml")?.sha256).toBe(upgraded.get("kubelet/config-worker.yaml")?.sha256);
    // The kubelet comes from the stage directory, checked against the mirror's published checksum of v1.37.2.
    const swap = w1.exec?.find((x) => x.id === "swap kubelet")?.argv ?? [];
    expect(swap).toContain("file:///var/lib/bootdeck/stage/v1.37.2/kubelet");
    expect(swap).toContain("/usr/local/bin/kubelet");
    expect(w1.exec?.find((x) => x.id === "rollback")?.when).toBe("needed");
    // The kubelet restarts when its binary changed, even when none of its files did (a patch upgrade).
    const start = w1.exec?.find((x) => x.id === "start")?.argv ?? [];
    expect(start.slice(5, 7)).toEqual([String(KUBELET_WATCH_S), "/usr/local/bin/kubelet"]);
    expect(start).toContain("/var/lib/kubelet/config.yaml");
  });

  it("behind a VIP, has each master give up the API address while its etcd member and its kubelet restart, and take part again after", () => {
    const ids = (plan: RunPlan, key: string) => stepOf(plan, key).exec!.map((x) => x.id);
    const vip = { ...def, spec: { ...def.spec, apiEndpoint: { type: "vip" as const, host: "192.0.2.100", port: 6443, keepalived: { interface: "eth0", virtualRouterId: 51 } } } };
    const plan = buildUpgradePlan(vip, RUN, upgraded, { to: "v1.37.2" });
    expect(ids(plan, "etcd/master-2")).toEqual(["release-address", "etcd-status", "etcd-status", "etcd-status", "rejoin-address"]);
    expect(ids(plan, "kubelet/master-1").slice(0, 2)).toEqual(["release-address", "save"]);
    expect(ids(plan, "kubelet/master-1").indexOf("rejoin-address")).toBe(ids(plan, "kubelet/master-1").indexOf("apiserver-ready") + 1);
    expect(stepOf(plan, "kubelet/master-1").checks!.join(" ")).toMatch(/master-1 gives up the API address.*master-1 takes part in the address again/);
    // A worker holds no address; without a VIP no master moves one.
    expect(ids(plan, "kubelet/worker-1")).not.toContain("release-address");
    const plain = buildUpgradePlan(def, RUN, upgraded, { to: "v1.37.2" });
    expect(steps(plain).flatMap((s) => s.exec ?? []).filter((x) => /-address$/.test(x.id))).toEqual([]);
  });

  it("takes batch sizes as counts or percentages", () => {
    const plan = buildUpgradePlan(def, RUN, upgraded, { to: "v1.37.2", batches: { masters: "3", workers: "60%" } });
    const gates = steps(plan).filter((s) => s.action === "upgrade-gate");
    expect(gates.map((g) => g.title)).toEqual([
      "Pause point before batch 1 of 3 (master-1, master-2, master-3)",
      "Pause point before batch 2 of 3 (worker-1, worker-2, worker-3)",
      "Pause point before batch 3 of 3 (worker-4, worker-5)",
    ]);
  });

  it("refuses what the skew policy forbids, saying why", () => {
    expect(() => buildUpgradePlan(def, RUN, upgraded, { to: "v1.35.4" })).toThrow(/downgrades/);
    expect(() => buildUpgradePlan({ ...def, spec: { ...def.spec, kubernetes: { ...def.spec.kubernetes, version: "v1.35.4" } } }, RUN, upgraded, { to: "v1.37.2" })).toThrow(/one minor at a time/);
  });
});
