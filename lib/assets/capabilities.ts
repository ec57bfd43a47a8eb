// What a Kubernetes minor version serves and accepts: the one place version differences live. Keyed
// on the minor number, not the profile, so a new profile only has to fit the table; the rest of the
// code asks for a named capability, never for a version.
import { addonVersions } from "../cluster/runtime-versions";
import { minorOf, profileOf } from "../cluster/versions";

export type Capabilities = {
  minor: number;
  version: string;
  /** From 1.35 the kubelet refuses a cgroup v1 host unless told otherwise (KEP-5573). */
  cgroupV1Refused: boolean;
};

export function capabilitiesFor(version: string): Capabilities {
  const minor = minorOf(version);
  if (!Number.isFinite(minor)) throw new Error(`not a Kubernetes version: ${version}`);
  return {
    minor,
    version,
    cgroupV1Refused: minor >= 35,
  };
}

export type Images = {
  apiserver: string;
  controllerManager: string;
  scheduler: string;
  proxy: string;
  etcd: string;
  coredns: string;
  flannel: string;
  flannelCni: string;
  /** The pod sandbox image containerd is configured with. */
  pause: string;
};

/**
 * Container images per version, as upstream publishes them. Pinned here so a render is reproducible
 * and reviewable; `registry` (spec.images.registry) replaces each image's registry host (see
 * mirroredImage).
 */
export function imagesFor(caps: Capabilities, registry?: string): Images {
  const v = caps.version;
  const { pins } = profileOf(v);
  const component = (name: string) => `registry.k8s.io/${name}:${v}`;
  const images: Images = {
    apiserver: component("kube-apiserver"),
    controllerManager: component("kube-controller-manager"),
    scheduler: component("kube-scheduler"),
    proxy: component("kube-proxy"),
    etcd: `registry.k8s.io/etcd:${pins.etcd}`,
    coredns: `registry.k8s.io/coredns/coredns:${pins.coredns}`,
    flannel: `ghcr.io/flannel-io/flannel:${addonVersions.flannel}`,
    flannelCni: `ghcr.io/flannel-io/flannel-cni-plugin:${addonVersions.flannelCniPlugin}`,
    pause: `registry.k8s.io/pause:${pins.pause}`,
  };
  if (!registry) return images;
  return Object.fromEntries(Object.entries(images).map(([k, ref]) => [k, mirroredImage(ref, registry)])) as Images;
}

/**
 * An image as pulled through a mirror: the registry host is replaced by the mirror prefix and the
 * repository path is kept (registry.k8s.io/coredns/coredns:v1.14.2 → REGISTRY/coredns/coredns:v1.14.2,
 * ghcr.io/flannel-io/flannel:v0.28.10 → REGISTRY/flannel-io/flannel:v0.28.10). `crane copy` or
 * `skopeo copy` to those names fills such a mirror.
 */
export function mirroredImage(ref: string, registry: string): string {
  const slash = ref.indexOf("/");
  const first = slash > 0 ? ref.slice(0, slash) : "";
  // The first path element is a registry host when it has a dot or a port, or is localhost (Docker's rule).
  const repo = /[.:]/.test(first) || first === "localhost" ? ref.slice(slash + 1) : ref.includes("/") ? ref : `library/${ref}`;
  return `${registry.replace(/\/+$/, "")}/${repo}`;
}

/** Every image a cluster of this version runs, upstream and as pulled (through the mirror when set), without duplicates. */
export function clusterImages(version: string, registry?: string): { upstream: string; pulled: string }[] {
  const caps = capabilitiesFor(version);
  const upstream = imagesFor(caps);
  const seen = new Set<string>();
  const out: { upstream: string; pulled: string }[] = [];
  for (const ref of Object.values(upstream)) {
    if (seen.has(ref)) continue;
    seen.add(ref);
    out.push({ upstream: ref, pulled: registry ? mirroredImage(ref, registry) : ref });
  }
  return out;
}
