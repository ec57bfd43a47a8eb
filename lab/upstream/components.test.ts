import { describe, expect, it } from "vitest";
import { versionProfiles } from "../../lib/cluster/versions";
import { componentKey, componentsForCluster, etcdComponent, kubernetesComponent, promtoolComponent, runcComponent, sampleApiserverComponent } from "./components";

describe("the upstream components a lab cluster runs", () => {
  it("follow the release's pins: Kubernetes itself, kubeadm's etcd, CoreDNS and pause, and the runtime", () => {
    const keys = componentsForCluster("v1.36.3").map(componentKey);
    expect(keys).toEqual(expect.arrayContaining(["kubernetes-v1.36.3", "etcd-v3.6.8", "coredns-v1.14.2", "pause-3.10.2", "containerd-v2.4.2", "runc-v1.5.3", "crictl-v1.37.0", "cni-plugins-v1.10.0", "flannel-v0.28.10"]));
    expect(componentsForCluster("v1.37.2").map(componentKey)).toEqual(expect.arrayContaining(["etcd-v3.7.0", "coredns-v1.14.6"]));
  });

  it("exist for every profile", () => {
    for (const p of versionProfiles) expect(() => componentsForCluster(p.defaultVersion)).not.toThrow();
    expect(() => componentsForCluster("v1.32.9")).toThrow(/not a supported/);
  });

  it("build Kubernetes' commands with their version compiled in and the staging modules pinned", () => {
    const k8s = kubernetesComponent("v1.35.4");
    expect(k8s.stagingReplaces).toBe(true);
    expect(k8s.binaries.map((b) => b.name)).toEqual(["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy", "kubelet", "kubectl"]);
    expect(k8s.binaries[0]!.ldflags).toEqual(expect.arrayContaining(["-X k8s.io/component-base/version.gitVersion=v1.35.4", "-X k8s.io/component-base/version.gitMinor=35"]));
    expect(k8s.binaries.every((b) => !b.cgo)).toBe(true);
  });

  it("build the conformance suite's sample API server from the k8s.io/sample-apiserver release its image tag names", () => {
    expect(sampleApiserverComponent("1.29.2")).toMatchObject({ version: "v0.29.2", modules: [{ path: "k8s.io/sample-apiserver", version: "v0.29.2" }], binaries: [{ name: "sample-apiserver", pkg: "k8s.io/sample-apiserver" }] });
    expect(() => sampleApiserverComponent("latest")).toThrow(/expected 1.<minor>.<patch>/);
  });

  it("map etcd's image tags to module versions, and build runc statically with cgo and seccomp", () => {
    expect(etcdComponent("3.6.8-0").version).toBe("v3.6.8");
    const runc = runcComponent().binaries[0]!;
    expect(runc).toMatchObject({ cgo: true, static: true });
    expect(runc.tags).toContain("seccomp");
  });

  it("include Prometheus' promtool for the metrics endpoint's test, from the prometheus module's cmd/promtool", () => {
    const p = promtoolComponent();
    expect(componentKey(p)).toBe("promtool-v0.316.0");
    expect(p.binaries.map((b) => b.pkg)).toEqual(["github.com/prometheus/prometheus/cmd/promtool"]);
  });
});
