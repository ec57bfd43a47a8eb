// What a Kubernetes minor version serves and accepts, from domain.md's "Kubelet across versions"
// table and the API removals. Keyed on the minor number, not the profile, so a new profile only
// has to fit the table.
import { minorOf } from "../cluster/versions";

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
  checkpointer: string;
};

/** Container images per version. Pinned here so a render is reproducible and reviewable. */
export function imagesFor(caps: Capabilities): Images {
  const v = caps.version;
  const hyperkube = `quay.io/coreos/hyperkube:${v}_coreos.0`;
  const component = (name: string) => (caps.hyperkube ? hyperkube : `registry.k8s.io/${name}:${v}`);
  return {
    apiserver: component("kube-apiserver"),
    controllerManager: component("kube-controller-manager"),
    scheduler: component("kube-scheduler"),
    proxy: component("kube-proxy"),
    etcd: caps.minor >= 29 ? "registry.k8s.io/etcd:3.5.16-0" : "quay.io/coreos/etcd:v3.1.8",
    coredns: caps.minor >= 29 ? "registry.k8s.io/coredns/coredns:v1.11.3" : "docker.io/coredns/coredns:1.0.6",
    flannel: caps.minor >= 20 ? "docker.io/flannel/flannel:v0.26.1" : "quay.io/coreos/flannel:v0.7.1-amd64",
    flannelCni: caps.minor >= 20 ? "docker.io/flannel/flannel-cni-plugin:v1.6.0-flannel1" : undefined,
    checkpointer: "quay.io/coreos/pod-checkpointer:83e25e5968391b9eb342042c435d1b3eeddb2be1",
  };
}

/** The command a hyperkube image runs a component with, or the component's own binary. */
export function componentCommand(caps: Capabilities, name: string): string[] {
  return caps.hyperkube ? ["/hyperkube", name.replace(/^kube-/, "")] : [name];
}
