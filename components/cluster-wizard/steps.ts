// Which wizard step owns which field paths, so server and client problems land next to their field.
export const steps = [
  { id: "basics", title: "Basics" },
  { id: "network", title: "Network" },
  { id: "hosts", title: "Hosts & access" },
  { id: "binaries", title: "Binaries & images" },
  { id: "review", title: "Review" },
] as const;

export type StepId = (typeof steps)[number]["id"];

type Named = {
  hosts: readonly { name: string }[];
  /** The credentials the hosts step lists, in the definition's order. */
  credentials: readonly { name: string }[];
  /** The registry's own password credential, listed after them in the definition (images part). */
  registryPassword?: { name: string };
};

/**
 * A path of the registry's own password credential: its secret, or its row in spec.credentials (after
 * the hosts step's ones). A credential the hosts step lists is never the registry's own.
 */
function isRegistryCredentialPath(path: string, draft: Named | undefined): boolean {
  const own = draft?.registryPassword?.name.trim();
  if (!draft || !own || draft.credentials.some((c) => c.name.trim() === own)) return false;
  const row = /^spec\.credentials\[(\d+)\]/.exec(path);
  if (row) return Number(row[1]) >= draft.credentials.length;
  const secret = /^secrets\.(.+?)(\.[a-zA-Z]+)?$/.exec(path);
  return secret?.[1] === own;
}

/** The step showing a path's field; the draft tells the registry's credential from the SSH ones. */
export function stepOfPath(path: string, draft?: Named): StepId {
  if (path.startsWith("metadata") || path.startsWith("spec.kubernetes") || path.startsWith("spec.pki") || path.startsWith("spec.apiEndpoint")) return "basics";
  if (path.startsWith("spec.network")) return "network";
  if (isRegistryCredentialPath(path, draft)) return "binaries";
  if (path.startsWith("spec.hosts") || path.startsWith("spec.ssh") || path.startsWith("spec.credentials") || path.startsWith("secrets")) return "hosts";
  if (path.startsWith("spec.binaries") || path.startsWith("spec.runtime") || path.startsWith("spec.images")) return "binaries";
  return "review";
}

const fieldIds: Record<string, string> = {
  "metadata.name": "name",
  "spec.kubernetes.version": "version",
  "spec.kubernetes.allowCgroupV1": "allow-cgroup-v1",
  "spec.pki.encryptionAlgorithm": "encryption-algorithm",
  "spec.apiEndpoint.type": "api-type",
  "spec.apiEndpoint.host": "api-host",
  "spec.apiEndpoint.port": "api-port",
  "spec.apiEndpoint.keepalived": "keepalived-iface",
  "spec.apiEndpoint.keepalived.interface": "keepalived-iface",
  "spec.apiEndpoint.keepalived.virtualRouterId": "vrrp-id",
  "spec.network.podCidr": "pod-cidr",
  "spec.network.serviceCidr": "service-cidr",
  "spec.network.clusterDomain": "cluster-domain",
  "spec.network.dnsServiceIp": "dns-ip",
  "spec.network.flannel": "flannel-iface",
  "spec.network.flannel.iface": "flannel-iface",
  "spec.network.flannel.vxlanPort": "vxlan-port",
  "spec.binaries.baseUrl": "base-url",
  "spec.binaries.kubelet.sha256": "kubelet-sha",
  "spec.binaries.kubectl.sha256": "kubectl-sha",
  "spec.runtime.source": "runtime-source",
  "spec.runtime.mirrorUrl": "runtime-mirror-url",
  "spec.runtime.cgroupDriver": "cgroup-driver",
  "spec.images.registry": "registry",
  "spec.images.ca": "registry-ca",
  "spec.images.auth": "registry-username",
  "spec.images.auth.username": "registry-username",
  "spec.images.auth.credential": "registry-password",
  "spec.ssh.user": "ssh-user",
  "spec.ssh.port": "ssh-port",
  "spec.ssh.credential": "ssh-credential",
};

const fieldLabels: Record<string, string> = {
  "metadata.name": "Cluster name",
  "spec.kubernetes.version": "Kubernetes version",
  "spec.kubernetes.allowCgroupV1": "Allow cgroup v1 hosts",
  "spec.pki.encryptionAlgorithm": "Key algorithm",
  "spec.apiEndpoint.type": "API endpoint",
  "spec.apiEndpoint.host": "API endpoint host",
  "spec.apiEndpoint.port": "API endpoint port",
  "spec.apiEndpoint.keepalived": "keepalived interface",
  "spec.apiEndpoint.keepalived.interface": "keepalived interface",
  "spec.apiEndpoint.keepalived.virtualRouterId": "VRRP router id",
  "spec.network.podCidr": "Pod CIDR",
  "spec.network.serviceCidr": "Service CIDR",
  "spec.network.clusterDomain": "Cluster domain",
  "spec.network.dnsServiceIp": "DNS service IP",
  "spec.network.flannel": "flannel interface",
  "spec.network.flannel.iface": "flannel interface",
  "spec.network.flannel.vxlanPort": "VXLAN port",
  "spec.binaries.baseUrl": "Binaries base URL",
  "spec.binaries.kubelet.sha256": "kubelet SHA-256",
  "spec.binaries.kubectl.sha256": "kubectl SHA-256",
  "spec.runtime.source": "Container runtime source",
  "spec.runtime.mirrorUrl": "Runtime mirror URL",
  "spec.runtime.cgroupDriver": "cgroup driver",
  "spec.images.registry": "Image registry",
  "spec.images.ca": "Registry CA",
  "spec.images.auth": "Registry credentials",
  "spec.images.auth.username": "Registry user name",
  "spec.images.auth.credential": "Registry password",
  "spec.ssh.user": "Default SSH user",
  "spec.ssh.port": "Default SSH port",
  "spec.ssh.credential": "Default credential",
  "spec.hosts": "Hosts",
  "spec.credentials": "Credentials",
};

const secretFields: Record<string, [string, string]> = { privateKey: ["key", "private key"], passphrase: ["passphrase", "passphrase"], password: ["password", "password"] };

/** The DOM id of the wizard's input for a problem's path, to focus it; undefined when there is none. */
export function fieldIdOf(path: string, draft: Named): string | undefined {
  if (fieldIds[path]) return fieldIds[path];
  if (isRegistryCredentialPath(path, draft)) return "registry-password";
  const host = /^spec\.hosts\[(\d+)\]\.([a-zA-Z]+)/.exec(path);
  if (host) return `host-${host[1]}-${host[2]}`;
  const cred = /^spec\.credentials\[(\d+)\]\.name$/.exec(path);
  if (cred) return `cred-${cred[1]}-name`;
  const secret = /^secrets\.(.+)\.(privateKey|passphrase|password)$/.exec(path);
  if (secret) {
    const i = draft.credentials.findIndex((c) => c.name.trim() === secret[1]);
    return i >= 0 ? `cred-${i}-${secretFields[secret[2]!]![0]}` : undefined;
  }
  if (path === "spec.hosts") return "add-master";
  return undefined;
}

/** "hosts[3]" in a message → the host's name (or "host row 4" while it has none). */
export function hostRef(i: number, draft: Named): string {
  const name = draft.hosts[i]?.name.trim();
  return name ? `host ${name}` : `host row ${i + 1}`;
}

/** A problem's path as a person reads it: "Host worker-2: address", "Credential admin-key: private key". */
export function describePath(path: string, draft: Named): string {
  if (fieldLabels[path]) return fieldLabels[path];
  if (isRegistryCredentialPath(path, draft)) return "Registry password";
  const host = /^spec\.hosts\[(\d+)\]\.?(.*)$/.exec(path);
  if (host) {
    const ref = hostRef(Number(host[1]), draft);
    return `${ref.charAt(0).toUpperCase()}${ref.slice(1)}${host[2] ? `: ${host[2].replace(/\./g, " ")}` : ""}`;
  }
  const cred = /^spec\.credentials\[(\d+)\]\.?(.*)$/.exec(path);
  if (cred) return `Credential ${draft.credentials[Number(cred[1])]?.name.trim() || `row ${Number(cred[1]) + 1}`}${cred[2] ? `: ${cred[2]}` : ""}`;
  const secret = /^secrets\.(.+)\.(privateKey|passphrase|password)$/.exec(path);
  if (secret) return `Credential ${secret[1]}: ${secretFields[secret[2]!]![1]}`;
  return path;
}

/** A validator's message with "hosts[N]" replaced by the host's name. */
export function describeMessage(message: string, draft: Named): string {
  return message.replace(/\bhosts\[(\d+)\]/g, (_, i: string) => hostRef(Number(i), draft));
}
