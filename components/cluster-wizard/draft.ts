// The wizard's editable state: strings as typed, converted to a definition for validation and
// saving. Conversion is lossless for what the wizard shows, so editing a saved cluster round-trips.
import { API_VERSION, DEFAULT_ENCRYPTION_ALGORITHM, type ClusterDefinition, type ClusterDefinitionInput, type ControlPlaneMode, type EncryptionAlgorithm } from "@/lib/cluster/definition";
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
  allowCgroupV1: boolean;
  /** The PKI's key algorithm; "" = the definition names none (an existing cluster keeps its set's). */
  encryptionAlgorithm: EncryptionAlgorithm | "";
  apiType: "first-master" | "dns" | "vip";
  apiHost: string;
  apiPort: string;
  /** VIP only: where keepalived holds the address on the masters; empty = someone else holds it. */
  keepalivedInterface: string;
  virtualRouterId: string;
  podCidr: string;
  serviceCidr: string;
  clusterDomain: string;
  dnsServiceIp: string;
  provider: "flannel";
  flannelIface: string;
  vxlanPort: string;
  baseUrl: string;
  kubeletSha256: string;
  kubectlSha256: string;
  runtimeSource: "mirror" | "packages";
  runtimeMirrorUrl: string;
  cgroupDriver: "systemd" | "cgroupfs";
  registry: string;
  registryCa: string;
  registryUsername: string;
  /**
   * The registry's password, a `password` credential of its own (not an SSH one, so the hosts step
   * does not offer it). When an SSH credential has its name, that one is used instead (shared).
   */
  registryPassword: DraftCredential;
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

export const DEFAULT_RUNTIME_MIRROR = "https://github.com";
export const DEFAULT_VIRTUAL_ROUTER_ID = "51";

function emptyPassword(name: string): DraftCredential {
  return { key: newKey(), name, type: "password", privateKey: "", passphrase: "", password: "" };
}

/** "registry", or "registry-2"… when a credential already has that name. */
function freeRegistryName(taken: readonly string[]): string {
  for (let n = 1; ; n++) if (!taken.includes(n === 1 ? "registry" : `registry-${n}`)) return n === 1 ? "registry" : `registry-${n}`;
}

export function emptyDraft(): Draft {
  return {
    name: "",
    version: defaultKubernetesVersion,
    controlPlane: "self-hosted",
    allowCgroupV1: false,
    encryptionAlgorithm: DEFAULT_ENCRYPTION_ALGORITHM,
    apiType: "first-master",
    apiHost: "",
    apiPort: "6443",
    keepalivedInterface: "",
    virtualRouterId: DEFAULT_VIRTUAL_ROUTER_ID,
    podCidr: "10.2.0.0/16",
    serviceCidr: "10.3.0.0/24",
    clusterDomain: "cluster.local",
    dnsServiceIp: "",
    provider: "flannel",
    flannelIface: "",
    vxlanPort: "",
    baseUrl: "",
    kubeletSha256: "",
    kubectlSha256: "",
    runtimeSource: "mirror",
    runtimeMirrorUrl: DEFAULT_RUNTIME_MIRROR,
    cgroupDriver: "systemd",
    registry: "",
    registryCa: "",
    registryUsername: "",
    registryPassword: emptyPassword("registry"),
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

/**
 * Registry pull credentials are asked for: a user name, or a new password, is given. Clearing the user
 * name (with no new password) removes them, and so the stored password with its credential.
 */
export function registryAuthOn(d: Draft): boolean {
  return d.registryUsername.trim() !== "" || d.registryPassword.password !== "";
}

/** The SSH credential that has the registry credential's name: the registry then uses it (a definition may share one). */
export function sharedRegistryCredential(d: Pick<Draft, "credentials" | "registryPassword">): DraftCredential | undefined {
  return d.credentials.find((c) => c.name.trim() === d.registryPassword.name.trim());
}

/** The registry's own password credential, when the definition gets one: auth asked for, not shared. */
export function registryCredential(d: Draft): DraftCredential | undefined {
  return registryAuthOn(d) && !sharedRegistryCredential(d) ? d.registryPassword : undefined;
}

function flannelOf(d: Draft) {
  const iface = opt(d.flannelIface);
  const vxlanPort = num(d.vxlanPort);
  return iface !== undefined || vxlanPort !== undefined ? { ...(iface !== undefined ? { iface } : {}), ...(vxlanPort !== undefined ? { vxlanPort } : {}) } : undefined;
}

function apiEndpointOf(d: Draft): ClusterDefinitionInput["spec"]["apiEndpoint"] {
  const iface = d.apiType === "vip" ? opt(d.keepalivedInterface) : undefined;
  return {
    type: d.apiType,
    ...(d.apiType !== "first-master" && opt(d.apiHost) ? { host: opt(d.apiHost) } : {}),
    port: num(d.apiPort) ?? 6443,
    ...(iface !== undefined ? { keepalived: { interface: iface, virtualRouterId: num(d.virtualRouterId) ?? Number(DEFAULT_VIRTUAL_ROUTER_ID) } } : {}),
  };
}

/** The container runtime Bootdeck installs, and where its images come from. */
function runtimeAndImagesOf(d: Draft): Pick<ClusterDefinitionInput["spec"], "runtime" | "images"> {
  const registry = opt(d.registry);
  const mirrorUrl = opt(d.runtimeMirrorUrl);
  return {
    runtime: { source: d.runtimeSource, ...(mirrorUrl ? { mirrorUrl } : {}), cgroupDriver: d.cgroupDriver },
    images: {
      // Given without a registry, a CA or user stays in the definition so validation says a registry is needed.
      ...(registry ? { registry } : {}),
      ...(d.registryCa.trim() ? { ca: d.registryCa } : {}),
      ...(registryAuthOn(d) ? { auth: { username: d.registryUsername.trim(), credential: d.registryPassword.name.trim() } } : {}),
    },
  };
}

export function toDefinition(d: Draft): ClusterDefinitionInput {
  const flannel = flannelOf(d);
  const registryCred = registryCredential(d);
  return {
    apiVersion: API_VERSION,
    kind: "Cluster",
    metadata: { name: d.name.trim() },
    spec: {
      kubernetes: { version: d.version, controlPlane: d.controlPlane, allowCgroupV1: d.allowCgroupV1 },
      ...(d.encryptionAlgorithm ? { pki: { encryptionAlgorithm: d.encryptionAlgorithm } } : {}),
      apiEndpoint: apiEndpointOf(d),
      network: {
        podCidr: d.podCidr.trim(),
        serviceCidr: d.serviceCidr.trim(),
        clusterDomain: d.clusterDomain.trim(),
        ...(opt(d.dnsServiceIp) ? { dnsServiceIp: opt(d.dnsServiceIp) } : {}),
        provider: d.provider,
        ...(flannel ? { flannel } : {}),
      },
      binaries: {
        baseUrl: d.baseUrl.trim(),
        // A checksum left empty is not pinned: the host then checks the file's published .sha256.
        ...(d.kubeletSha256.trim() ? { kubelet: { sha256: d.kubeletSha256.trim().toLowerCase() } } : {}),
        ...(d.kubectlSha256.trim() ? { kubectl: { sha256: d.kubectlSha256.trim().toLowerCase() } } : {}),
      },
      ...runtimeAndImagesOf(d),
      ssh: { user: d.sshUser.trim(), port: num(d.sshPort) ?? 22, ...(opt(d.sshCredential) ? { credential: opt(d.sshCredential) } : {}) },
      // The registry's credential last: the SSH ones keep their indices (problems find their rows).
      credentials: [...d.credentials, ...(registryCred ? [registryCred] : [])].map((c) => ({ name: c.name.trim(), type: c.type })),
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
  const registryCred = registryCredential(d);
  for (const c of [...d.credentials, ...(registryCred ? [registryCred] : [])]) {
    const s = {
      ...(c.type === "privateKey" && c.privateKey ? { privateKey: c.privateKey } : {}),
      ...(c.type === "privateKey" && c.passphrase ? { passphrase: c.passphrase } : {}),
      ...(c.type === "password" && c.password ? { password: c.password } : {}),
    };
    if (Object.keys(s).length) out[c.name.trim()] = s;
  }
  return out;
}

/**
 * The credentials the hosts step lists: every one but the registry's own password, which the images
 * part shows. A registry credential that SSH also uses (named by a host, a bastion or the default, or
 * the only credential, hence the default) stays in the list: it is shared.
 */
function splitCredentials(def: ClusterDefinition): { ssh: ClusterDefinition["spec"]["credentials"]; registry: string | undefined } {
  const s = def.spec;
  const name = s.images.auth?.credential;
  if (!name) return { ssh: s.credentials, registry: undefined };
  const usedBySsh =
    s.ssh.credential === name || s.hosts.some((h) => h.credential === name || h.bastion?.credential === name) || s.credentials.every((c) => c.name === name);
  return usedBySsh ? { ssh: s.credentials, registry: name } : { ssh: s.credentials.filter((c) => c.name !== name), registry: name };
}

export function fromDefinition(def: ClusterDefinition, stored: { name: string; fingerprint: string | null; hasSecret: boolean }[]): Draft {
  const byName = new Map(stored.map((s) => [s.name, s]));
  const s = def.spec;
  const fromStored = (c: { name: string; type: DraftCredential["type"] }): DraftCredential => ({
    key: newKey(),
    name: c.name,
    type: c.type,
    privateKey: "",
    passphrase: "",
    password: "",
    storedFingerprint: byName.get(c.name)?.fingerprint ?? null,
    stored: byName.get(c.name)?.hasSecret ?? false,
  });
  const { ssh, registry } = splitCredentials(def);
  const registryName = registry ?? freeRegistryName(s.credentials.map((c) => c.name));
  return {
    name: def.metadata.name,
    version: s.kubernetes.version,
    controlPlane: s.kubernetes.controlPlane,
    allowCgroupV1: s.kubernetes.allowCgroupV1,
    encryptionAlgorithm: s.pki?.encryptionAlgorithm ?? "",
    apiType: s.apiEndpoint.type,
    apiHost: s.apiEndpoint.host ?? "",
    apiPort: String(s.apiEndpoint.port),
    keepalivedInterface: s.apiEndpoint.keepalived?.interface ?? "",
    virtualRouterId: String(s.apiEndpoint.keepalived?.virtualRouterId ?? DEFAULT_VIRTUAL_ROUTER_ID),
    podCidr: s.network.podCidr,
    serviceCidr: s.network.serviceCidr,
    clusterDomain: s.network.clusterDomain,
    dnsServiceIp: s.network.dnsServiceIp ?? "",
    provider: s.network.provider,
    flannelIface: s.network.flannel?.iface ?? "",
    vxlanPort: s.network.flannel?.vxlanPort !== undefined ? String(s.network.flannel.vxlanPort) : "",
    baseUrl: s.binaries.baseUrl,
    kubeletSha256: s.binaries.kubelet?.sha256 ?? "",
    kubectlSha256: s.binaries.kubectl?.sha256 ?? "",
    runtimeSource: s.runtime.source,
    runtimeMirrorUrl: s.runtime.mirrorUrl,
    cgroupDriver: s.runtime.cgroupDriver,
    registry: s.images.registry ?? "",
    registryCa: s.images.ca ?? "",
    registryUsername: s.images.auth?.username ?? "",
    registryPassword: fromStored({ name: registryName, type: "password" }),
    sshUser: s.ssh.user,
    sshPort: String(s.ssh.port),
    sshCredential: s.ssh.credential ?? "",
    credentials: ssh.map(fromStored),
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
