// What a bootstrap plan promises before it runs: the eleven phases in order, every file it will push with
// its checksum, masters joining one at a time, and plans that cannot be made refused with the reason.
import { beforeAll, describe, expect, it } from "vitest";
import { renderAssets } from "../assets/render";
import { validateClusterDefinition, type ClusterDefinition } from "../cluster/definition";
import { exampleDefinition } from "../cluster/example";
import { buildBootstrapPlan, buildJoinPlan, buildResetPlan, type AssetIndex } from "./plans";
import { assetIndexFrom } from "./plan-objects";

let def: ClusterDefinition;
let assets: AssetIndex;
const RUN = "run_AAAAAAAAAAAAAAAA";

beforeAll(async () => {
  const v = validateClusterDefinition(exampleDefinition({ hosts: 5 }));
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  def = v.definition;
  const rendered = await renderAssets(def);
  assets = assetIndexFrom(rendered);
}, 60_000);

describe("the bootstrap plan", () => {
  it("has the eleven phases in the order the self-hosted bootstrap needs", () => {
    const plan = buildBootstrapPlan(def, RUN, assets);
    expect(plan.phases.map((p) => p.id)).toEqual(["facts", "preflight", "packages", "binaries", "runtime", "kubelet", "control-plane", "self-hosted", "pivot", "join", "verify"]);
  });

  it("installs, configures and checks the container runtime before the kubelet", () => {
    const runtime = buildBootstrapPlan(def, RUN, assets).phases.find((p) => p.id === "runtime")!;
    const step = runtime.steps.find((s) => s.host === "worker-1")!;
    const mirror = def.spec.runtime.mirrorUrl;
    // From the mirror in the projects' release layout, each checked against its published checksum.
    expect(step.commands.some((c) => c.includes(`${mirror}/containerd/containerd/releases/download/v2.4.2/containerd-2.4.2-linux-amd64.tar.gz`) && c.includes(".tar.gz.sha256sum"))).toBe(true);
    expect(step.commands.some((c) => c.includes(`${mirror}/opencontainers/runc/releases/download/v1.5.3/runc.amd64`))).toBe(true);
    expect(step.commands.at(-1)).toContain("RuntimeReady");
    expect(step.files.map((f) => f.path)).toEqual(
      expect.arrayContaining(["/etc/containerd/config.toml", "/etc/systemd/system/containerd.service", "/etc/crictl.yaml", "/etc/sysctl.d/99-bootdeck-kubernetes.conf", "/etc/containerd/certs.d/registry.example.internal/hosts.toml"]),
    );
  });

  it("names every file it pushes with the checksum of the rendered asset", () => {
    const plan = buildBootstrapPlan(def, RUN, assets);
    const kubelet = plan.phases.find((p) => p.id === "kubelet")!;
    const first = kubelet.steps.find((s) => s.host === "master-1")!;
    const second = kubelet.steps.find((s) => s.host === "master-2")!;
    const worker = kubelet.steps.find((s) => s.host === "worker-1")!;
    // Masters' kubelets get a ready kubeconfig of their own node (etcd must start before any API
    // server), the admin's beside it for operators; workers join with the token.
    expect(second.files.map((f) => f.path)).toContain("/etc/kubernetes/kubelet.conf");
    expect(worker.files.map((f) => f.path)).toContain("/etc/kubernetes/bootstrap-kubelet.conf");
    expect(worker.files.map((f) => f.path)).not.toContain("/etc/kubernetes/kubelet.conf");
    expect(worker.files.map((f) => f.path)).not.toContain("/etc/kubernetes/admin.conf");
    expect(first.files.find((f) => f.path === "/etc/kubernetes/kubelet.conf")?.sha256).toBe(assets.get("auth/kubeconfig-kubelet-master-1")?.sha256);
    expect(second.files.find((f) => f.path === "/etc/kubernetes/kubelet.conf")?.sha256).toBe(assets.get("auth/kubeconfig-kubelet-master-2")?.sha256);
    expect(first.files.find((f) => f.path === "/etc/kubernetes/admin.conf")?.sha256).toBe(assets.get("auth/kubeconfig")?.sha256);
    expect(assets.get("auth/kubeconfig-kubelet-master-1")?.sha256).not.toBe(assets.get("auth/kubeconfig")?.sha256);
    // The review marks the admin credential, and only it, as system:masters.
    expect(first.files.filter((f) => f.systemMasters).map((f) => f.path)).toEqual(["/etc/kubernetes/admin.conf"]);
    expect(worker.files.some((f) => f.systemMasters)).toBe(false);
    // etcd's static pod and certificates on every master, none on workers.
    expect(second.files.find((f) => f.path === "/etc/kubernetes/manifests/etcd.yaml")?.sha256).toBe(assets.get("etcd/etcd-master-2.yaml")?.sha256);
    expect(worker.files.some((f) => f.path.includes("etcd"))).toBe(false);
    expect(worker.files.find((f) => f.path === "/var/lib/kubelet/config.yaml")?.sha256).toBe(assets.get("kubelet/config-worker.yaml")?.sha256);
    // Secrets are 0600, the rest 0644.
    expect(first.files.find((f) => f.path === "/etc/kubernetes/etcd/server.key")?.mode).toBe(0o600);
    expect(first.files.find((f) => f.path === "/etc/systemd/system/kubelet.service")?.mode).toBe(0o644);
  });

  it("sends the run's id as the host lock owner and the definition's mirror URLs and sums", () => {
    const plan = buildBootstrapPlan(def, RUN, assets);
    const binaries = plan.phases.find((p) => p.id === "binaries")!.steps[0]!;
    expect(binaries.commands[0]).toContain(`bootdeck ${RUN} https://`);
    // What the step shows is what it sends: each command line is its planned argument vector, quoted.
    expect(binaries.exec?.map((e) => e.id)).toEqual(["download /usr/local/bin/kubelet", "download /usr/local/bin/kubectl"]);
    // Kubernetes' release layout: BASE/<version>/bin/linux/amd64/<name>, the pinned checksum sent along.
    expect(binaries.commands[0]).toContain(`${def.spec.binaries.baseUrl}/v1.36.3/bin/linux/amd64/kubelet`);
    expect(binaries.commands[0]).toContain("a".repeat(64));
    expect(binaries.commands[1]).toContain("/usr/local/bin/kubectl");
  });

  it("checks a file without a pinned checksum against the one the mirror publishes beside it", () => {
    const unpinned = validateClusterDefinition({ ...exampleDefinition({ hosts: 5 }), spec: { ...exampleDefinition({ hosts: 5 }).spec, binaries: { baseUrl: "https://m.example/release" } } });
    if (!unpinned.ok) throw new Error(JSON.stringify(unpinned.errors));
    const binaries = buildBootstrapPlan(unpinned.definition, RUN, assets).phases.find((p) => p.id === "binaries")!.steps[0]!;
    expect(binaries.commands[0]).toContain("https://m.example/release/v1.36.3/bin/linux/amd64/kubelet '' https://m.example/release/v1.36.3/bin/linux/amd64/kubelet.sha256 /usr/local/bin/kubelet file");
  });

  it("starts each kubelet with its binary and the files its step pushes, and lists the read-only commands a step sends when needed", () => {
    const plan = buildBootstrapPlan(def, RUN, assets);
    const kubelet = plan.phases.find((p) => p.id === "kubelet")!.steps.find((s) => s.host === "worker-1")!;
    const start = kubelet.exec?.find((e) => e.id === "start");
    expect(start?.argv.slice(4)).toEqual([RUN, "5", "/usr/local/bin/kubelet", ...kubelet.files.map((f) => f.path)]);
    expect(kubelet.files.every((f) => f.asset)).toBe(true);
    expect(kubelet.exec?.find((e) => e.id === "journal")?.when).toBe("needed");
    const verify = plan.phases.find((p) => p.id === "verify")!.steps[0]!;
    expect(verify.exec?.map((e) => `${e.id} ${e.host}`)).toEqual(def.spec.hosts.map((h) => `alive ${h.name}`));
    const pivot = plan.phases.find((p) => p.id === "pivot")!.steps[0]!;
    expect(pivot.exec?.slice(0, 2).map((e) => `${e.id} ${e.host}`)).toEqual(["present master-1", "remove master-1"]);
    expect(plan.lock?.hosts).toEqual(def.spec.hosts.map((h) => h.name));
    expect(plan.lock?.release).toContain(RUN);
  });

  it("puts the bootstrap control plane on the first master only", () => {
    const plan = buildBootstrapPlan(def, RUN, assets);
    const cp = plan.phases.find((p) => p.id === "control-plane")!;
    expect(cp.steps.map((s) => s.host)).toEqual(["master-1"]);
    const paths = cp.steps[0]!.files.map((f) => f.path);
    expect(paths).toContain("/etc/kubernetes/manifests/bootstrap-apiserver.yaml");
    expect(paths).toContain("/etc/kubernetes/bootstrap-secrets/apiserver.key");
  });

  it("joins masters one at a time, then workers in parallel after the last master", () => {
    const join = buildBootstrapPlan(def, RUN, assets).phases.find((p) => p.id === "join")!;
    const deps = Object.fromEntries(join.steps.map((s) => [s.host, s.dependsOn]));
    expect(deps).toEqual({ "master-1": [], "master-2": ["join/master-1"], "master-3": ["join/master-2"], "worker-1": ["join/master-3"], "worker-2": ["join/master-3"] });
  });

  it("refuses to plan with an asset set older than the definition", () => {
    const stale = new Map([...assets].filter(([p]) => p !== "kubelet/hosts/worker-2.env"));
    expect(() => buildBootstrapPlan(def, RUN, stale)).toThrow(/lacks kubelet\/hosts\/worker-2.env.*render the assets again/);
  });
});

describe("join and reset plans", () => {
  it("joins named workers: install phases and a join step for those hosts only", () => {
    const plan = buildJoinPlan(def, RUN, assets, ["worker-2"]);
    expect(plan.phases.map((p) => p.id)).toEqual(["facts", "preflight", "token", "packages", "binaries", "runtime", "kubelet", "join"]);
    expect(new Set(plan.phases.flatMap((p) => p.steps.map((s) => s.host)))).toEqual(new Set(["worker-2", null]));
  });

  it("leaves masters to the plan that adds etcd members, saying so", () => {
    expect(() => buildJoinPlan(def, RUN, assets, ["master-2"])).toThrow(/master-2 is a master: a worker join cannot add etcd members/);
  });

  it("refuses hosts that are not in the cluster", () => {
    expect(() => buildResetPlan(def, RUN, [...assets.keys()], ["nope"])).toThrow(/not hosts of this cluster: nope/);
  });

  it("resets with the exact paths Bootdeck installed, etcd's data only on masters", () => {
    const plan = buildResetPlan(def, RUN, [...assets.keys()], ["master-2", "worker-1"]);
    const [m, w] = plan.phases[0]!.steps;
    expect(m!.commands[0]).toContain("/var/lib/etcd");
    expect(w!.commands[0]).not.toContain("/var/lib/etcd");
    expect(w!.commands[0]).toContain("/usr/local/bin/kubelet");
  });
});
