// The review step's table: what the cluster will be, as the draft says and as derived from it.
// Secrets are never shown: only whether one is new, stored or missing.
import type { Derived } from "@/lib/cluster/derive";
import { registryAuthOn, registryCredential, sharedRegistryCredential, type Draft, type DraftCredential } from "./draft";
import { versionFeatures } from "./features";

export type ReviewRow = { label: string; value: string; /** data-testid suffix: review-<id> */ id: string };

const idOf = (label: string) => label.toLowerCase().replace(/[^a-z0-9]+/g, "-");

function secretState(c: DraftCredential): string {
  if (c.type === "agent") return "";
  return c.privateKey || c.password ? ", new secret" : c.stored ? ", stored" : "";
}

function cgroupV1Text(allowed: boolean, refusedUpstream: boolean): string {
  if (allowed) return "allowed: the kubelet runs on them (failCgroupV1: false); preflight warns";
  return `refused: the kubelet does not start on them (failCgroupV1: true)${refusedUpstream ? "; preflight refuses them" : ""}`;
}

function apiEndpointHolder(d: Draft): string | undefined {
  if (d.apiType !== "vip") return undefined;
  const iface = d.keepalivedInterface.trim();
  return iface ? `keepalived on the masters, on ${iface} (VRRP router id ${d.virtualRouterId.trim() || "51"})` : "not Bootdeck: a load balancer or another VRRP setup holds it";
}

function flannelText(d: Draft): string {
  const iface = d.flannelIface.trim();
  const port = d.vxlanPort.trim();
  return `VXLAN over ${iface || "the default route's interface"}, UDP port ${port || "8472"}`;
}

function pinText(name: string, sha: string): string {
  return sha.trim() ? `${name} pinned (${sha.trim().toLowerCase().slice(0, 12)}…)` : `${name}: its published .sha256`;
}

function runtimeText(d: Draft): string {
  const mirror = d.runtimeMirrorUrl.trim() || "https://github.com";
  const from = d.runtimeSource === "mirror" ? `containerd and runc from ${mirror}` : `containerd and runc from the hosts' packages; crictl and CNI plugins from ${mirror}`;
  return `${from}; ${d.cgroupDriver} cgroup driver`;
}

function imagesText(d: Draft): string {
  const registry = d.registry.trim();
  if (!registry) return "the upstream registries";
  const parts = [`through ${registry}`];
  if (d.registryCa.trim()) parts.push("its CA given");
  if (registryAuthOn(d)) {
    const shared = sharedRegistryCredential(d);
    const own = registryCredential(d);
    const password = shared ? `credential ${shared.name}` : own?.password ? "new password" : own?.stored ? "stored password" : "no password yet";
    parts.push(`as ${d.registryUsername.trim() || "(no user)"} (${password})`);
  }
  return parts.join(", ");
}

export function reviewRows(d: Draft, derived: Derived | undefined): ReviewRow[] {
  const features = versionFeatures(d.version);
  const registryCred = registryCredential(d);
  const rows: [string, string | undefined][] = [
    ["Name", d.name],
    ["Kubernetes", `${d.version}, ${d.controlPlane === "static" ? "control plane as static pods on every master" : "self-hosted control plane"}`],
    ["cgroup v1 hosts", cgroupV1Text(d.allowCgroupV1, features.cgroupV1Refused)],
    ["Key algorithm", d.encryptionAlgorithm ? `${d.encryptionAlgorithm}, a key per certificate` : "the cluster's (its asset set's), a key per certificate"],
    ["API endpoint", derived ? derived.apiServerUrl : "—"],
    ["API address held by", apiEndpointHolder(d)],
    ["Pod CIDR", d.podCidr],
    ["Service CIDR", d.serviceCidr],
    ["API service IP (derived)", derived?.apiServiceIp ?? "—"],
    ["DNS service IP", derived?.dnsServiceIp ?? "—"],
    ["Cluster domain", d.clusterDomain],
    ["Network", d.provider],
    ["flannel", flannelText(d)],
    ["Hosts", `${d.hosts.filter((h) => h.role === "master").length} masters, ${d.hosts.filter((h) => h.role === "worker").length} workers`],
    ["etcd members (derived)", derived ? derived.etcdMembers.map((m) => `${m.name} (${m.address})`).join(", ") : "—"],
    ["Binaries", d.baseUrl],
    ["Checksums", `${pinText("kubelet", d.kubeletSha256)}; ${pinText("kubectl", d.kubectlSha256)}`],
    ["Container runtime", runtimeText(d)],
    ["Images", imagesText(d)],
    ["Credentials", [...d.credentials, ...(registryCred ? [registryCred] : [])].map((c) => `${c.name} (${c.type}${secretState(c)})`).join(", ")],
  ];
  return rows.flatMap(([label, value]) => (value === undefined ? [] : [{ label, value, id: idOf(label) }]));
}
