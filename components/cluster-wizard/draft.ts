// The wizard's editable state: strings as typed, converted to a definition for validation and
// saving. Conversion is lossless for what the wizard shows, so editing a saved cluster round-trips.
import { API_VERSION, type ClusterDefinition, type ClusterDefinitionInput, type ControlPlaneMode } from "@/lib/cluster/definition";
import { defaultKubernetesVersion } from "@/lib/cluster/versions";
import type { CredentialSecrets } from "@/lib/clusters/schemas";
import { splitLabelPairs } from "@/lib/cluster/host-lines";

export type DraftHost = {
  key: string;
  name: string;
  address: string;
  port: string;
  role: string;
  user: string;
  credential: string;
  labels: string;
  bastion: string;
};

export type DraftCredential = {
  key: string;
  name: string;
  type: "privateKey" | "password" | "agent";
  privateKey: string;
  passphrase: string;
  password: string;
  /** Fingerprint of the secret already stored on the server (edit mode). */
  storedFingerprint?: string | null;
  stored?: boolean;
};

export type Draft = {
  name: string;
  version: string;
  controlPlane: ControlPlaneMode;
  apiType: "first-master" | "dns" | "vip";
  apiHost: string;
  apiPort: string;
  podCidr: string;
  serviceCidr: string;
  clusterDomain: string;
  dnsServiceIp: string;
  provider: "flannel";
  baseUrl: string;
  kubeletSha256: string;
  kubectlSha256: string;
  sshUser: string;
  sshPort: string;
  sshCredential: string;
  credentials: DraftCredential[];
  hosts: DraftHost[];
};

let counter = 0;
export const newKey = () => `k${++counter}`;

export function emptyHost(role = "worker"): DraftHost {
  return { key: newKey(), name: "", address: "", port: "", role, user: "", credential: "", labels: "", bastion: "" };
}

export function emptyDraft(): Draft {
  return {
    name: "",
    version: defaultKubernetesVersion,
    controlPlane: "self-hosted",
    apiType: "first-master",
    apiHost: "",
    apiPort: "6443",
    podCidr: "10.2.0.0/16",
    serviceCidr: "10.3.0.0/24",
    clusterDomain: "cluster.local",
    dnsServiceIp: "",
    provider: "flannel",
    baseUrl: "",
    kubeletSha256: "",
    kubectlSha256: "",
    sshUser: "root",
    sshPort: "22",
    sshCredential: "admin-key",
    credentials: [{ key: newKey(), name: "admin-key", type: "privateKey", privateKey: "", passphrase: "", password: "" }],
    hosts: [],
  };
}

const opt = (s: string) => (s.trim() === "" ? undefined : s.trim());
const num = (s: string) => (s.trim() === "" ? undefined : /^\d+$/.test(s.trim()) ? Number(s.trim()) : Number.NaN);

export function formatLabels(labels: Record<string, string> | undefined): string {
  return Object.entries(labels ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}

/** Lenient: a pair without "=" becomes an empty value, so validation reports it at its field. */
function parseLabels(text: string): Record<string, string> | undefined {
  if (!text.trim()) return undefined;
  return Object.fromEntries(splitLabelPairs(text).map(([k, v]) => [k, v ?? ""]));
}

/** "user@address:port" → bastion object; the bastion uses the host's credential. */
function parseBastion(text: string, credential: string | undefined) {
  const t = text.trim();
  if (!t) return undefined;
  const at = t.lastIndexOf("@");
  const user = at >= 0 ? t.slice(0, at) : undefined;
  const rest = at >= 0 ? t.slice(at + 1) : t;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(rest);
  const address = (m?.[1] ?? rest).replace(/^\[|\]$/g, "");
  return { address, ...(m?.[2] ? { port: Number(m[2]) } : {}), ...(user ? { user } : {}), ...(credential ? { credential } : {}) };
}

function formatBastion(b: ClusterDefinition["spec"]["hosts"][number]["bastion"]): string {
  if (!b) return "";
  const addr = b.address.includes(":") ? `[${b.address}]` : b.address;
  return `${b.user ? `${b.user}@` : ""}${addr}${b.port && b.port !== 22 ? `:${b.port}` : ""}`;
}

export function toDefinition(d: Draft): ClusterDefinitionInput {
  return {
    apiVersion: API_VERSION,
    kind: "Cluster",
    metadata: { name: d.name.trim() },
    spec: {
      kubernetes: { version: d.version, controlPlane: d.controlPlane },
      apiEndpoint: { type: d.apiType, ...(d.apiType !== "first-master" && opt(d.apiHost) ? { host: opt(d.apiHost) } : {}), port: num(d.apiPort) ?? 6443 },
      network: {
        podCidr: d.podCidr.trim(),
        serviceCidr: d.serviceCidr.trim(),
        clusterDomain: d.clusterDomain.trim(),
        ...(opt(d.dnsServiceIp) ? { dnsServiceIp: opt(d.dnsServiceIp) } : {}),
        provider: d.provider,
      },
      binaries: {
        baseUrl: d.baseUrl.trim(),
        // A checksum left empty is not pinned: the host then checks the file's published .sha256.
        ...(d.kubeletSha256.trim() ? { kubelet: { sha256: d.kubeletSha256.trim().toLowerCase() } } : {}),
        ...(d.kubectlSha256.trim() ? { kubectl: { sha256: d.kubectlSha256.trim().toLowerCase() } } : {}),
      },
      ssh: { user: d.sshUser.trim(), port: num(d.sshPort) ?? 22, ...(opt(d.sshCredential) ? { credential: opt(d.sshCredential) } : {}) },
      credentials: d.credentials.map((c) => ({ name: c.name.trim(), type: c.type })),
      hosts: d.hosts.map((h) => {
        const credential = opt(h.credential);
        const port = num(h.port);
        const labels = parseLabels(h.labels);
        const bastion = parseBastion(h.bastion, credential ?? opt(d.sshCredential));
        return {
          name: h.name.trim(),
          address: h.address.trim(),
          role: h.role as "master" | "worker",
          ...(port !== undefined ? { port } : {}),
          ...(opt(h.user) ? { user: opt(h.user) } : {}),
          ...(credential ? { credential } : {}),
          ...(labels ? { labels } : {}),
          ...(bastion ? { bastion } : {}),
        };
      }),
    },
  };
}

export function toSecrets(d: Draft): CredentialSecrets {
  const out: CredentialSecrets = {};
  for (const c of d.credentials) {
    const s = {
      ...(c.type === "privateKey" && c.privateKey ? { privateKey: c.privateKey } : {}),
      ...(c.type === "privateKey" && c.passphrase ? { passphrase: c.passphrase } : {}),
      ...(c.type === "password" && c.password ? { password: c.password } : {}),
    };
    if (Object.keys(s).length) out[c.name.trim()] = s;
  }
  return out;
}

export function fromDefinition(def: ClusterDefinition, stored: { name: string; fingerprint: string | null; hasSecret: boolean }[]): Draft {
  const byName = new Map(stored.map((s) => [s.name, s]));
  const s = def.spec;
  return {
    name: def.metadata.name,
    version: s.kubernetes.version,
    controlPlane: s.kubernetes.controlPlane,
    apiType: s.apiEndpoint.type,
    apiHost: s.apiEndpoint.host ?? "",
    apiPort: String(s.apiEndpoint.port),
    podCidr: s.network.podCidr,
    serviceCidr: s.network.serviceCidr,
    clusterDomain: s.network.clusterDomain,
    dnsServiceIp: s.network.dnsServiceIp ?? "",
    provider: s.network.provider,
    baseUrl: s.binaries.baseUrl,
    kubeletSha256: s.binaries.kubelet?.sha256 ?? "",
    kubectlSha256: s.binaries.kubectl?.sha256 ?? "",
    sshUser: s.ssh.user,
    sshPort: String(s.ssh.port),
    sshCredential: s.ssh.credential ?? "",
    credentials: s.credentials.map((c) => ({
      key: newKey(),
      name: c.name,
      type: c.type,
      privateKey: "",
      passphrase: "",
      password: "",
      storedFingerprint: byName.get(c.name)?.fingerprint ?? null,
      stored: byName.get(c.name)?.hasSecret ?? false,
    })),
    hosts: s.hosts.map((h) => ({
      key: newKey(),
      name: h.name,
      address: h.address,
      port: h.port !== undefined ? String(h.port) : "",
      role: h.role,
      user: h.user ?? "",
      credential: h.credential ?? "",
      labels: formatLabels(h.labels),
      bastion: formatBastion(h.bastion),
    })),
  };
}
