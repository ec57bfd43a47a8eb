// Which rendered asset goes where on which host. The planner (checksums shown before the run) and the
// actions (content pushed) both read this one table, so the plan says exactly what is sent.
import { capabilitiesFor, type Capabilities } from "../assets/capabilities";
import type { ClusterDefinition } from "../cluster/definition";
import { bootstrapSecretFiles, etcdMemberFiles, KUBELET_PATHS } from "../assets/render";
import { BOOTSTRAP_SECRETS_HOST_DIR } from "../assets/context";

export type HostFile = { asset: string; path: string; mode: number };
export type HostRole = { name: string; role: "master" | "worker" };

const PUBLIC = 0o644;
const SECRET = 0o600;

/** Files of phase 5: the kubelet's unit, settings and credentials, and etcd on masters. */
export function kubeletFiles(caps: Capabilities, host: HostRole): HostFile[] {
  const files: HostFile[] = [
    { asset: "kubelet/kubelet.service", path: KUBELET_PATHS.unit, mode: PUBLIC },
    { asset: "kubelet/10-bootdeck.conf", path: KUBELET_PATHS.dropIn, mode: PUBLIC },
    { asset: `kubelet/hosts/${host.name}.env`, path: KUBELET_PATHS.env, mode: PUBLIC },
    { asset: "tls/ca.crt", path: KUBELET_PATHS.clientCa, mode: PUBLIC },
  ];
  if (caps.kubeletConfigFile) files.push({ asset: `kubelet/config-${host.role}.yaml`, path: KUBELET_PATHS.config, mode: PUBLIC });
  const kubeconfigPath = caps.bootstrapTokens ? KUBELET_PATHS.kubeconfig : KUBELET_PATHS.legacyKubeconfig;
  // A kubelet that bootstraps its certificate blocks until an API server signs it, and starts no static
  // pod meanwhile. Masters run etcd as static pods, and etcd needs a quorum of masters before any API
  // server can start: so masters get a ready kubeconfig (bootkube's way), workers join with the token.
  if (host.role === "master") files.push({ asset: "auth/kubeconfig", path: kubeconfigPath, mode: SECRET });
  else files.push({ asset: "auth/kubeconfig-kubelet", path: caps.bootstrapTokens ? KUBELET_PATHS.bootstrapKubeconfig : kubeconfigPath, mode: SECRET });
  if (host.role === "master") {
    for (const [asset, path] of Object.entries(etcdMemberFiles(host.name))) files.push({ asset, path, mode: SECRET });
    files.push({ asset: `etcd/etcd-${host.name}.yaml`, path: `${KUBELET_PATHS.staticPods}/etcd.yaml`, mode: PUBLIC });
  }
  return files;
}

/** Files of phase 6 on the first master: the bootstrap control plane's secrets and static pods. */
export function controlPlaneFiles(assetPaths: readonly string[]): HostFile[] {
  const secrets = Object.entries(bootstrapSecretFiles(assetPaths)).map(([asset, rel]) => ({ asset, path: `${BOOTSTRAP_SECRETS_HOST_DIR}/${rel}`, mode: SECRET }));
  const manifests = bootstrapManifestAssets(assetPaths).map((asset) => ({ asset, path: `${KUBELET_PATHS.staticPods}/${asset.slice(asset.lastIndexOf("/") + 1)}`, mode: PUBLIC }));
  return [...secrets, ...manifests];
}

export const bootstrapManifestAssets = (assetPaths: readonly string[]) => assetPaths.filter((p) => p.startsWith("bootstrap-manifests/")).sort();

/** The paths the pivot removes from the first master, and reset removes everywhere. */
export function bootstrapLeftovers(assetPaths: readonly string[]): string[] {
  return [...bootstrapManifestAssets(assetPaths).map((a) => `${KUBELET_PATHS.staticPods}/${a.slice(a.lastIndexOf("/") + 1)}`), BOOTSTRAP_SECRETS_HOST_DIR];
}

/** Assets the plan needs that the asset set lacks: the set is older than the definition. */
export function missingAssets(needed: readonly HostFile[], available: ReadonlySet<string>): string[] {
  return [...new Set(needed.map((f) => f.asset).filter((a) => !available.has(a)))];
}

/** Phase 4's downloads: kubelet (hyperkube up to 1.18) and kubectl from the definition's mirror. */
export function binaryDownloads(def: ClusterDefinition): { url: string; sha256: string; dest: string }[] {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const base = def.spec.binaries.baseUrl.replace(/\/+$/, "");
  const { kubelet, kubectl } = def.spec.binaries;
  return [
    caps.hyperkube ? { url: `${base}/hyperkube`, sha256: kubelet.sha256, dest: "/usr/bin/hyperkube" } : { url: `${base}/kubelet`, sha256: kubelet.sha256, dest: "/usr/local/bin/kubelet" },
    { url: `${base}/kubectl`, sha256: kubectl.sha256, dest: "/usr/local/bin/kubectl" },
  ];
}

/** Everything a reset removes from a host: what Bootdeck installed, the kubelet's state and (masters) etcd's data. */
export function resetPaths(def: ClusterDefinition, host: HostRole, assetPaths: readonly string[]): string[] {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const paths = new Set<string>([
    ...kubeletFiles(caps, host).map((f) => f.path),
    ...bootstrapLeftovers(assetPaths),
    "/etc/systemd/system/multi-user.target.wants/kubelet.service",
    "/var/lib/kubelet",
    "/etc/kubernetes",
    "/etc/cni/net.d",
    ...(host.role === "master" ? ["/var/lib/etcd"] : []),
    ...binaryDownloads(def).map((b) => b.dest),
  ]);
  return [...paths].sort();
}
