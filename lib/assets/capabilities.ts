// What a Kubernetes minor version serves and accepts: the one place version differences live. Keyed
// on the minor number, not the profile, so a new profile only has to fit the table; the rest of the
// code asks for a named capability, never for a version.
import { addonVersions } from "../cluster/runtime-versions";
import { minorOf, profileOf } from "../cluster/versions";

export type Capabilities = {
  minor: number;
  version: string;
  /** apps/v1 from 1.9; before that DaemonSet/Deployment lived in extensions/v1beta1. */
  workloadsApi: "apps/v1" | "extensions/v1beta1";
  /** policy/v1 from 1.21 (v1beta1 removed in 1.25). */
  pdbApi: "policy/v1" | "policy/v1beta1";
  /** rbac.authorization.k8s.io/v1 from 1.8; older profiles run with AlwaysAllow and get no RBAC objects. */
  rbac: boolean;
  /** Bootstrap-token authentication and CSR approval (1.6+); 1.5 uses a static token file instead. */
  bootstrapTokens: boolean;
  /** Aggregation layer front proxy (1.7+). */
  frontProxy: boolean;
  /** hyperkube images stopped at 1.18; per-component images from 1.19. */
  hyperkube: boolean;
  /** KubeletConfiguration file (`--config`) from 1.10. */
  kubeletConfigFile: boolean;
  requireKubeconfigFlag: boolean;
  allowPrivilegedFlag: boolean;
  networkPluginFlag: boolean;
  /** A kubelet may label itself node-role.kubernetes.io/* only before 1.16. */
  selfLabelRole: boolean;
  /** --service-account-issuer and --service-account-signing-key-file are required from 1.20. */
  serviceAccountIssuer: boolean;
  /** The insecure port flag is gone from 1.24 (and off since 1.20). */
  insecurePortFlag: boolean;
  /** Upstream flannel runs in its own namespace from v0.20; the 2017 manifests used kube-system. */
  flannelNamespace: string;
  /** The system-*-critical priority classes exist from 1.11. */
  priorityClasses: boolean;
  /** hostPath `type` (DirectoryOrCreate, FileOrCreate) from 1.8. */
  hostPathTypes: boolean;
  /** Before 1.24 the token controller issues a Secret per service account, and pods need it. */
  legacyServiceAccountTokens: boolean;
  /** Upstream flannel of the 2020s (init containers for the CNI plugin and config, xtables lock). */
  modernFlannel: boolean;
  /** CoreDNS with the `ready` plugin and `forward` (1.5's CoreDNS 1.0 has `proxy` only). */
  modernCoredns: boolean;
  /**
   * From 1.35 a kubelet refuses to start on a cgroup v1 host unless its configuration sets
   * `failCgroupV1: false`; the field exists from 1.31.
   */
  failCgroupV1Field: boolean;
  /**
   * The API server reads an AuthenticationConfiguration (--authentication-config) whose `anonymous`
   * section can allow anonymous requests on the health endpoints only (GA in 1.34).
   */
  anonymousEndpoints: boolean;
  /**
   * How the self-hosted API server comes back when every master restarts at once: bootkube's
   * pod-checkpointer DaemonSet (1.5 era), or Bootdeck's host checkpoint (a rendered static pod each
   * master activates when no API server answers; see docs/assets.md).
   */
  checkpoint: "pod-checkpointer" | "host";
  /** Kubelets renew a Lease in kube-node-lease as their heartbeat from 1.14; before, the node status's Ready heartbeat. */
  nodeLeases: boolean;
  /** The node runs a CRI runtime Bootdeck installs (containerd); 1.5 ran Docker's dockershim. */
  criRuntime: boolean;
  /**
   * --permit-port-sharing (SO_REUSEPORT) from 1.19: the temporary and the lasting control plane (and a
   * master's checkpoint) share their ports — the API server's 6443, the controller-manager's 10257, the
   * scheduler's 10259 — instead of the newcomer crash-looping on "address in use" until the other one
   * leaves (a static control plane must be Ready on the first master before the temporary one goes).
   */
  portSharing: boolean;
  /** From 1.35 the kubelet refuses a cgroup v1 host unless told otherwise (KEP-5573). */
  cgroupV1Refused: boolean;
  /** etcd 3.6 (pinned from 1.34) serves /livez and /readyz on its metrics listener. */
  etcdHealthEndpoints: boolean;
  /**
   * The pinned etcd's `etcdutl snapshot restore` takes --bump-revision and --mark-compacted (3.5.8 and
   * 3.6): a restored cluster's revision moves past every revision clients saw, so their watches and
   * caches start over instead of reading a past that looks like the future.
   */
  etcdRestoreBumpsRevision: boolean;
  /**
   * --shutdown-delay-duration: a stopping API server fails /readyz at once and keeps serving for the
   * delay, so the API address (keepalived checks /readyz) moves before it stops answering.
   */
  apiserverShutdownDelay: boolean;
};

export function capabilitiesFor(version: string): Capabilities {
  const minor = minorOf(version);
  if (!Number.isFinite(minor)) throw new Error(`not a Kubernetes version: ${version}`);
  return {
    minor,
    version,
    workloadsApi: minor >= 9 ? "apps/v1" : "extensions/v1beta1",
    pdbApi: minor >= 21 ? "policy/v1" : "policy/v1beta1",
    rbac: minor >= 8,
    bootstrapTokens: minor >= 6,
    frontProxy: minor >= 7,
    hyperkube: minor < 19,
    kubeletConfigFile: minor >= 10,
    requireKubeconfigFlag: minor < 10,
    allowPrivilegedFlag: minor < 15,
    networkPluginFlag: minor < 24,
    selfLabelRole: minor < 16,
    serviceAccountIssuer: minor >= 20,
    insecurePortFlag: minor < 20,
    flannelNamespace: minor >= 20 ? "kube-flannel" : "kube-system",
    priorityClasses: minor >= 11,
    hostPathTypes: minor >= 8,
    legacyServiceAccountTokens: minor < 24,
    modernFlannel: minor >= 20,
    modernCoredns: minor >= 29,
    failCgroupV1Field: minor >= 31,
    anonymousEndpoints: minor >= 34,
    checkpoint: minor >= 24 ? "host" : "pod-checkpointer",
    nodeLeases: minor >= 14,
    criRuntime: minor >= 24,
    portSharing: minor >= 19,
    cgroupV1Refused: minor >= 35,
    etcdHealthEndpoints: minor >= 34,
    etcdRestoreBumpsRevision: minor >= 34,
    apiserverShutdownDelay: minor >= 34,
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
  flannelCni: string | undefined;
  /** bootkube's pod-checkpointer, where the profile uses it. */
  checkpointer: string | undefined;
  /** The pod sandbox image containerd is configured with, where Bootdeck installs the runtime. */
  pause: string | undefined;
};

/**
 * Container images per version, as upstream publishes them. Pinned here so a render is reproducible
 * and reviewable; `registry` (spec.images.registry) replaces each image's registry host (see
 * mirroredImage).
 */
export function imagesFor(caps: Capabilities, registry?: string): Images {
  const v = caps.version;
  const { pins } = profileOf(v);
  const hyperkube = `quay.io/coreos/hyperkube:${v}_coreos.0`;
  const component = (name: string) => (caps.hyperkube ? hyperkube : `registry.k8s.io/${name}:${v}`);
  const images: Images = caps.hyperkube
    ? {
        apiserver: hyperkube,
        controllerManager: hyperkube,
        scheduler: hyperkube,
        proxy: hyperkube,
        etcd: `quay.io/coreos/etcd:${pins.etcd}`,
        coredns: `docker.io/coredns/coredns:${pins.coredns}`,
        flannel: "quay.io/coreos/flannel:v0.7.1-amd64",
        flannelCni: undefined,
        checkpointer: "quay.io/coreos/pod-checkpointer:83e25e5968391b9eb342042c435d1b3eeddb2be1",
        pause: undefined,
      }
    : {
        apiserver: component("kube-apiserver"),
        controllerManager: component("kube-controller-manager"),
        scheduler: component("kube-scheduler"),
        proxy: component("kube-proxy"),
        etcd: `registry.k8s.io/etcd:${pins.etcd}`,
        coredns: `registry.k8s.io/coredns/coredns:${pins.coredns}`,
        flannel: `ghcr.io/flannel-io/flannel:${addonVersions.flannel}`,
        flannelCni: `ghcr.io/flannel-io/flannel-cni-plugin:${addonVersions.flannelCniPlugin}`,
        checkpointer: undefined,
        pause: `registry.k8s.io/pause:${pins.pause}`,
      };
  if (!registry) return images;
  return Object.fromEntries(Object.entries(images).map(([k, ref]) => [k, ref === undefined ? undefined : mirroredImage(ref, registry)])) as Images;
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

/** The command a hyperkube image runs a component with, or the component's own binary. */
export function componentCommand(caps: Capabilities, name: string): string[] {
  return caps.hyperkube ? ["/hyperkube", name.replace(/^kube-/, "")] : [name];
}

/** Every image a cluster of this version runs, upstream and as pulled (through the mirror when set), without duplicates. */
export function clusterImages(version: string, registry?: string): { upstream: string; pulled: string }[] {
  const caps = capabilitiesFor(version);
  const upstream = imagesFor(caps);
  const seen = new Set<string>();
  const out: { upstream: string; pulled: string }[] = [];
  for (const ref of Object.values(upstream)) {
    if (ref === undefined || seen.has(ref)) continue;
    seen.add(ref);
    out.push({ upstream: ref, pulled: registry ? mirroredImage(ref, registry) : ref });
  }
  return out;
}
