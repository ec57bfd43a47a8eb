// Pins the kubelet's flag history (docs/assets.md) and the API removals at their boundaries.
import { describe, expect, it } from "vitest";
import { capabilitiesFor, clusterImages, imagesFor, mirroredImage } from "./capabilities";

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
    expect(imagesFor(capabilitiesFor("v1.36.3")).apiserver).toBe("registry.k8s.io/kube-apiserver:v1.36.3");
    expect(imagesFor(capabilitiesFor("v1.5.3")).apiserver).toBe("quay.io/coreos/hyperkube:v1.5.3_coreos.0");
  });
});

describe("images through a mirror", () => {
  it("replaces the registry host and keeps the repository path", () => {
    expect(mirroredImage("registry.k8s.io/coredns/coredns:v1.14.2", "mirror.example:5000")).toBe("mirror.example:5000/coredns/coredns:v1.14.2");
    expect(mirroredImage("ghcr.io/flannel-io/flannel:v0.28.10", "mirror.example/k8s/")).toBe("mirror.example/k8s/flannel-io/flannel:v0.28.10");
    // Docker Hub short names: the implicit library/ namespace is made explicit.
    expect(mirroredImage("busybox:1.36", "m.example")).toBe("m.example/library/busybox:1.36");
    expect(mirroredImage("flannel/flannel:v0.28.10", "m.example")).toBe("m.example/flannel/flannel:v0.28.10");
    expect(mirroredImage("localhost/x:1", "m.example")).toBe("m.example/x:1");
  });
  it("lists every image a cluster pulls once, with the release's pinned etcd, CoreDNS and pause", () => {
    const list = clusterImages("v1.36.3", "m.example");
    expect(list.map((i) => i.upstream)).toEqual([
      "registry.k8s.io/kube-apiserver:v1.36.3",
      "registry.k8s.io/kube-controller-manager:v1.36.3",
      "registry.k8s.io/kube-scheduler:v1.36.3",
      "registry.k8s.io/kube-proxy:v1.36.3",
      "registry.k8s.io/etcd:3.6.8-0",
      "registry.k8s.io/coredns/coredns:v1.14.2",
      "ghcr.io/flannel-io/flannel:v0.28.10",
      "ghcr.io/flannel-io/flannel-cni-plugin:v1.9.1-flannel3",
      "registry.k8s.io/pause:3.10.2",
    ]);
    expect(list.every((i) => i.pulled.startsWith("m.example/"))).toBe(true);
    expect(clusterImages("v1.37.2").find((i) => i.upstream.includes("/etcd:"))?.pulled).toBe("registry.k8s.io/etcd:3.7.0-0");
  });
});
