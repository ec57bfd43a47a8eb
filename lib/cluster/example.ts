// A complete, valid definition used by docs, tests and the wizard's defaults.
import { API_VERSION, type ClusterDefinitionInput } from "./definition";
import { defaultKubernetesVersion } from "./versions";

export function exampleDefinition(overrides: { name?: string; hosts?: number } = {}): ClusterDefinitionInput {
  const masters = 3;
  const total = overrides.hosts ?? 6;
  return {
    apiVersion: API_VERSION,
    kind: "Cluster",
    metadata: { name: overrides.name ?? "example" },
    spec: {
      kubernetes: { version: defaultKubernetesVersion, controlPlane: "self-hosted" },
      apiEndpoint: { type: "dns", host: "api.example.internal", port: 6443 },
      network: { podCidr: "10.2.0.0/16", serviceCidr: "10.3.0.0/24", clusterDomain: "cluster.local", dnsServiceIp: "10.3.0.10", provider: "flannel" },
      binaries: {
        // Kubernetes' release layout: <baseUrl>/<version>/bin/linux/amd64/<name>.
        baseUrl: "https://mirror.example.internal/dl.k8s.io/release",
        kubelet: { sha256: "a".repeat(64) },
        kubectl: { sha256: "b".repeat(64) },
      },
      runtime: { source: "mirror", mirrorUrl: "https://mirror.example.internal/github.com", cgroupDriver: "systemd" },
      images: { registry: "registry.example.internal/k8s" },
      ssh: { user: "root", port: 22, credential: "admin-key" },
      credentials: [{ name: "admin-key", type: "privateKey" }],
      hosts: Array.from({ length: total }, (_, i) => {
        const role = i < masters ? ("master" as const) : ("worker" as const);
        const n = role === "master" ? i + 1 : i - masters + 1;
        return { name: `${role}-${n}`, address: `192.0.2.${i + 11}`, role };
      }),
    },
  };
}
