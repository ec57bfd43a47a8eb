// What differs between the supported Kubernetes versions, and the images each one runs.
import { describe, expect, it } from "vitest";
import { versionProfiles } from "../cluster/versions";
import { capabilitiesFor, clusterImages, imagesFor, mirroredImage } from "./capabilities";

describe("capabilities by Kubernetes minor version", () => {
  it("refuses cgroup v1 hosts from 1.35", () => {
    expect(versionProfiles.map((p) => [p.minor, capabilitiesFor(p.defaultVersion).cgroupV1Refused])).toEqual([
      ["1.34", false],
      ["1.35", true],
      ["1.36", true],
      ["1.37", true],
    ]);
  });

  it("runs one upstream image per component, of the cluster's own version", () => {
    for (const p of versionProfiles) {
      const images = imagesFor(capabilitiesFor(p.defaultVersion));
      expect(images.apiserver).toBe(`registry.k8s.io/kube-apiserver:${p.defaultVersion}`);
      expect(images.proxy).toBe(`registry.k8s.io/kube-proxy:${p.defaultVersion}`);
      expect(images.etcd).toBe(`registry.k8s.io/etcd:${p.pins.etcd}`);
      expect(images.pause).toBe(`registry.k8s.io/pause:${p.pins.pause}`);
    }
  });

  it("refuses a string that is not a version", () => {
    expect(() => capabilitiesFor("1.5")).toThrow(/not a Kubernetes version: 1\.5/);
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
