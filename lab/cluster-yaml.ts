// Writes a cluster.yaml for a running lab: its hosts, its admin key, its binary mirror. The
// dashboard's "Try it" imports it, so a newcomer can bootstrap without hardware. Test bed only.
import { createHash } from "node:crypto";
import { stringify } from "yaml";
import { API_VERSION, type ClusterDefinitionInput } from "../lib/cluster/definition";
import { defaultKubernetesVersion, findVersionProfile } from "../lib/cluster/versions";
import { mirrorFiles } from "./cluster/mirror";
import type { LabState } from "./state";

const sha256 = (b: Buffer | undefined) => createHash("sha256").update(b ?? "").digest("hex");

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
  // The mirror serves every supported version under /kubernetes/<version>/.
  const mirror = `${(state.mirrorUrl ?? `http://${state.gateway}:8780/kubernetes/${defaultKubernetesVersion}`).replace(/\/v\d+\.\d+\.\d+$/, "")}/${version}`;
  if (!state.mirrorUrl) notes.push(`this lab was started without its binary mirror; restart it (lab down, lab up) to serve ${mirror}`);
  // The sums of exactly what the lab's mirror serves (lab/cluster/mirror.ts).
  const files = mirrorFiles(version);
  const hyperkube = findVersionProfile(version)?.hyperkube === true;
  const definition: ClusterDefinitionInput = {
    apiVersion: API_VERSION,
    kind: "Cluster",
    metadata: { name },
    spec: {
      kubernetes: { version, controlPlane: "self-hosted" },
      apiEndpoint: { type: "first-master", port: 6443 },
      network: { podCidr: "10.2.0.0/16", serviceCidr: "10.3.0.0/24", clusterDomain: "cluster.local", provider: "flannel" },
      binaries: {
        baseUrl: mirror,
        // Up to 1.18 the kubelet is the hyperkube binary.
        kubelet: { sha256: sha256(files?.get(hyperkube ? "hyperkube" : "kubelet")) },
        kubectl: { sha256: sha256(files?.get("kubectl")) },
      },
      ssh: { user: "root", port: 22, credential: "lab-admin" },
      credentials: [{ name: "lab-admin", type: "privateKey", privateKeyFile: state.adminKeyPath }],
      hosts,
    },
  };
  return { definition, notes };
}

export function labClusterYaml(state: LabState, name?: string, version?: string): string {
  const { definition, notes } = labClusterDefinition(state, name, version);
  return `${notes.map((n) => `# ${n}\n`).join("")}${stringify(definition, { lineWidth: 0 })}`;
}
