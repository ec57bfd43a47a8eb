// Writes a cluster.yaml for a running lab: its hosts, its admin key, its binary mirror and image
// registry, exactly as an air-gapped site would describe its own. The dashboard's "Try it" imports it,
// so a newcomer can bootstrap without hardware. Test bed only.
import fs from "node:fs";
import { stringify } from "yaml";
import { API_VERSION, type ClusterDefinitionInput } from "../lib/cluster/definition";
import { defaultKubernetesVersion } from "../lib/cluster/versions";
import { GITHUB_PATH, K8S_RELEASE_PATH } from "./mirror";
import type { LabState } from "./state";
import { VIP_OCTET } from "./config";

export function labClusterDefinition(state: LabState, name = `lab-${state.name}`, version = defaultKubernetesVersion): { definition: ClusterDefinitionInput; notes: string[] } {
  const notes: string[] = [];
  const masters = state.hosts.filter((h) => h.role === "master");
  const hosts = state.hosts.map((h, i) => ({
    name: h.name,
    address: h.address,
    port: h.port,
    // Hosts named host-N (lab up N) become one master and then workers.
    role: h.role === "host" ? (i === 0 && masters.length === 0 ? ("master" as const) : ("worker" as const)) : h.role,
  }));
  const mirror = state.mirrorUrl ?? `http://${state.gateway}:8780`;
  if (!state.mirrorUrl) notes.push(`this lab was started without its binary mirror; restart it (lab down, lab up) to serve ${mirror}`);
  const registry = state.registry;
  if (!registry) notes.push("this lab runs no image registry (lab up … without images): the cluster's images cannot be pulled");
  const credentials: NonNullable<ClusterDefinitionInput["spec"]["credentials"]> = [{ name: "lab-admin", type: "privateKey", privateKeyFile: state.adminKeyPath }];
  if (registry) credentials.push({ name: "lab-registry", type: "password", passwordFile: registry.passwordFile });
  const definition: ClusterDefinitionInput = {
    apiVersion: API_VERSION,
    kind: "Cluster",
    metadata: { name },
    spec: {
      // Lab hosts may run on a cgroup v1 machine: allowed, and preflight says so when it is.
      kubernetes: { version, controlPlane: "self-hosted", allowCgroupV1: true },
      // The stable API address Bootdeck provisions: a VIP keepalived holds on the masters (VRRP on the
      // lab bridge), so clients and nodes keep the API when a master goes (lab cut master-1).
      apiEndpoint: { type: "vip", host: labVip(state), port: 6443, keepalived: { interface: "eth0" } },
      // flannel's VXLAN on the lab link (the hosts' default route leads nowhere: see docs/lab.md).
      network: { podCidr: "10.2.0.0/16", serviceCidr: "10.3.0.0/24", clusterDomain: "cluster.local", provider: "flannel", flannel: { iface: "eth0" } },
      // No checksums pinned: each file's published .sha256 is checked.
      binaries: { baseUrl: `${mirror}${K8S_RELEASE_PATH}` },
      runtime: { source: "mirror" as const, mirrorUrl: `${mirror}${GITHUB_PATH}`, cgroupDriver: "systemd" as const },
      ...(registry ? { images: { registry: registry.address, ca: fs.readFileSync(registry.caFile, "utf8"), auth: { username: registry.username, credential: "lab-registry" } } } : {}),
      ssh: { user: "root", port: 22, credential: "lab-admin" },
      credentials,
      hosts,
    },
  };
  return { definition, notes };
}

/** The lab's API address: the subnet's .250, above every host (hosts take .10 upwards). */
export function labVip(state: LabState): string {
  return state.subnet.replace(/\.0\/24$/, `.${VIP_OCTET}`);
}

export function labClusterYaml(state: LabState, name?: string, version?: string): string {
  const { definition, notes } = labClusterDefinition(state, name, version);
  return `${notes.map((n) => `# ${n}\n`).join("")}${stringify(definition, { lineWidth: 0 })}`;
}

/** The secrets of the lab's credentials (the SSH key, the registry's password), as the dashboard stores them. */
export function labClusterSecrets(state: LabState): Record<string, { privateKey?: string; password?: string }> {
  return {
    "lab-admin": { privateKey: fs.readFileSync(state.adminKeyPath, "utf8") },
    ...(state.registry ? { "lab-registry": { password: fs.readFileSync(state.registry.passwordFile, "utf8").trim() } } : {}),
  };
}
