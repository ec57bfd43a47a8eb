// The kubelet's systemd unit, drop-in, per-host environment and KubeletConfiguration.
// The kubelet runs as a host binary under systemd, never in a container (acs-engine moved it out).
// Flags follow the kubelet's flag history (docs/assets.md).
import type { ClusterDefinition } from "../cluster/definition";
import type { Derived, EffectiveHost } from "../cluster/derive";
import type { Capabilities } from "./capabilities";
import { RUNTIME_ENDPOINT } from "./runtime";
import { toYaml } from "./yaml-out";

export const KUBELET_PATHS = {
  unit: "/etc/systemd/system/kubelet.service",
  dropIn: "/etc/systemd/system/kubelet.service.d/10-bootdeck.conf",
  env: "/etc/default/kubelet",
  config: "/var/lib/kubelet/config.yaml",
  bootstrapKubeconfig: "/etc/kubernetes/bootstrap-kubelet.conf",
  kubeconfig: "/etc/kubernetes/kubelet.conf",
  clientCa: "/etc/kubernetes/pki/ca.crt",
  staticPods: "/etc/kubernetes/manifests",
} as const;

export function kubeletBinary(): string {
  return "/usr/local/bin/kubelet";
}

/** Cluster-wide kubelet flags (host-specific ones come from the host's environment file). */
export function kubeletFlags(): string[] {
  return [
    `--bootstrap-kubeconfig=${KUBELET_PATHS.bootstrapKubeconfig}`,
    `--kubeconfig=${KUBELET_PATHS.kubeconfig}`,
    `--config=${KUBELET_PATHS.config}`,
    // Command line only, still valid: a second kubelet on the host exits instead of fighting the first.
    "--lock-file=/var/run/lock/kubelet.lock",
    "--exit-on-lock-contention",
  ];
}

const ALLOWED_SELF_LABEL = /^(kubelet\.kubernetes\.io|node\.kubernetes\.io)\//;
const K8S_NAMESPACE = /(^|\.)(kubernetes\.io|k8s\.io)\//;

/** Labels a kubelet may set on itself: nothing under kubernetes.io/k8s.io but kubelet./node.kubernetes.io. */
export function selfLabels(host: EffectiveHost): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(host.labels ?? {}))
    if (!K8S_NAMESPACE.test(k) || ALLOWED_SELF_LABEL.test(k)) labels[k] = v;
  return labels;
}

/** The host's /etc/default/kubelet: node name, node IP and self-set labels. */
export function kubeletHostEnv(host: EffectiveHost): string {
  const args = [`--hostname-override=${host.name}`];
  if (/^[0-9.]+$/.test(host.address) || host.address.includes(":")) args.push(`--node-ip=${host.address}`);
  const labels = Object.entries(selfLabels(host)).map(([k, v]) => `${k}=${v}`);
  if (labels.length > 0) args.push(`--node-labels=${labels.join(",")}`);
  return `# Bootdeck: kubelet settings for ${host.name} (${host.role})\nKUBELET_EXTRA_ARGS="${args.join(" ")}"\n`;
}

export function kubeletUnit(caps: Capabilities): string {
  return [
    "[Unit]",
    `Description=Kubernetes kubelet (${caps.version}, Bootdeck)`,
    "Documentation=https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/",
    "Wants=network-online.target",
    "After=network-online.target",
    "",
    "[Service]",
    `ExecStart=${kubeletBinary()}`,
    "Restart=always",
    "RestartSec=10",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    "",
  ].join("\n");
}

export function kubeletDropIn(): string {
  const flags = kubeletFlags();
  return [
    "# Bootdeck: cluster-wide kubelet flags; host-specific ones come from /etc/default/kubelet.",
    "[Unit]",
    // Never retire the unit for restarting too often: it must come back once its files are in place.
    "StartLimitIntervalSec=0",
    "",
    "[Service]",
    `EnvironmentFile=-${KUBELET_PATHS.env}`,
    `ExecStartPre=/bin/mkdir -p ${KUBELET_PATHS.staticPods}`,
    "ExecStart=",
    `ExecStart=${kubeletBinary()} \\`,
    ...flags.map((f) => `  ${f} \\`),
    "  $KUBELET_EXTRA_ARGS",
    "",
  ].join("\n");
}

export function kubeletConfiguration(caps: Capabilities, def: ClusterDefinition, derived: Derived, role: "master" | "worker"): string {
  return toYaml({
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true, cacheTTL: "2m0s" },
      x509: { clientCAFile: KUBELET_PATHS.clientCa },
    },
    authorization: { mode: "Webhook" },
    // The same driver containerd is configured with (from 1.36 the kubelet asks containerd for it).
    cgroupDriver: def.spec.runtime.cgroupDriver,
    clusterDNS: [derived.dnsServiceIp],
    clusterDomain: def.spec.network.clusterDomain,
    containerRuntimeEndpoint: RUNTIME_ENDPOINT,
    // From 1.35 the kubelet refuses cgroup v1 unless the definition allows it (preflight refuses it
    // then too); before, upstream's default (false) stands and preflight only warns.
    failCgroupV1: caps.cgroupV1Refused && !def.spec.kubernetes.allowCgroupV1,
    failSwapOn: true,
    readOnlyPort: 0,
    rotateCertificates: true,
    staticPodPath: KUBELET_PATHS.staticPods,
    ...(role === "master" ? { registerWithTaints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] } : {}),
  });
}
