// Which rendered asset goes where on which host. The planner reads this table once and writes each
// file into the plan with its asset, checksum and mode; the actions push what the plan says.
import { capabilitiesFor, type Capabilities } from "../assets/capabilities";
import type { ClusterDefinition } from "../cluster/definition";
import { bootstrapSecretFiles, etcdMemberFiles, KUBELET_PATHS, masterKubeletKubeconfig, STATIC_SECRETS_HOST_DIR } from "../assets/render";
import { BOOTSTRAP_SECRETS_HOST_DIR } from "../assets/context";
import { registryHost, RUNTIME_PATHS } from "../assets/runtime";
import { CHECKPOINT_PATHS, checkpointSecretFiles } from "../assets/checkpoint";
import { runtimeVersions } from "../cluster/runtime-versions";
import { CHECKPOINT_STAMP_FILE, KUBELET_STAMP_FILE, RUNTIME_STAMP_FILE } from "./actions/host-scripts";
import { ENDPOINT_PATHS, provisionsVip } from "../assets/endpoint";

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
    { asset: `kubelet/config-${host.role}.yaml`, path: KUBELET_PATHS.config, mode: PUBLIC },
  ];
  // A kubelet that bootstraps its certificate blocks until an API server signs it, and starts no static
  // pod meanwhile. Masters run etcd as static pods, and etcd needs a quorum of masters before any API
  // server can start: so masters get a ready kubeconfig with their own node identity, workers join with the token.
  if (host.role === "master") files.push(...masterKubeconfigFiles(host.name));
  else files.push({ asset: "auth/kubeconfig-kubelet", path: KUBELET_PATHS.bootstrapKubeconfig, mode: SECRET });
  if (host.role === "master") {
    for (const [asset, path] of Object.entries(etcdMemberFiles(host.name))) files.push({ asset, path, mode: SECRET });
    files.push({ asset: `etcd/etcd-${host.name}.yaml`, path: `${KUBELET_PATHS.staticPods}/etcd.yaml`, mode: PUBLIC });
  }
  return files;
}

/** Where the administrator kubeconfig lives on masters (kubeadm's place): for an operator on the host, never for a component. */
export const ADMIN_KUBECONFIG_PATH = "/etc/kubernetes/admin.conf";


/**
 * A master's kubeconfigs: its kubelet's, with the node's own identity (system:node:NAME, under
 * NodeRestriction), and the administrator's (system:masters) beside it, as kubeadm puts admin.conf.
 */
export function masterKubeconfigFiles(master: string): HostFile[] {
  return [
    { asset: masterKubeletKubeconfig(master), path: KUBELET_PATHS.kubeconfig, mode: SECRET },
    { asset: "auth/kubeconfig", path: ADMIN_KUBECONFIG_PATH, mode: SECRET },
  ];
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

/**
 * A file a host downloads and verifies. `sha256` is pinned by the definition; when it is null the host
 * reads the checksum the mirror publishes beside the file (`sumsUrl`, in sha256sum's format or a bare
 * digest). `unpack`: a plain file goes to `dest`; a tarball is unpacked into the directory `dest`.
 */
export type Download = { name: string; url: string; sha256: string | null; sumsUrl: string; dest: string; unpack: "file" | "tar" };

/** The platform Bootdeck installs for (preflight refuses other architectures). */
export const ARCH = "amd64";

/** Phase 4's downloads: kubelet and kubectl, in Kubernetes' release layout. */
export function binaryDownloads(def: ClusterDefinition): Download[] {
  const base = `${def.spec.binaries.baseUrl.replace(/\/+$/, "")}/${def.spec.kubernetes.version}/bin/linux/${ARCH}`;
  const file = (name: string, dest: string, pinned: { sha256: string } | undefined): Download => ({
    name,
    url: `${base}/${name}`,
    sha256: pinned?.sha256 ?? null,
    sumsUrl: `${base}/${name}.sha256`,
    dest,
    unpack: "file",
  });
  const { kubelet, kubectl } = def.spec.binaries;
  return [file("kubelet", "/usr/local/bin/kubelet", kubelet), file("kubectl", "/usr/local/bin/kubectl", kubectl)];
}

/**
 * The runtime phase's downloads, in the upstream projects' GitHub release layout under
 * `runtime.mirrorUrl`: containerd and runc (unless the host's packages provide them), crictl and the
 * CNI plugins (always: distributions package them late or elsewhere).
 */
export function runtimeDownloads(def: ClusterDefinition): Download[] {
  const base = def.spec.runtime.mirrorUrl.replace(/\/+$/, "");
  const release = (repo: string, tag: string, file: string, sums: string) => ({ url: `${base}/${repo}/releases/download/${tag}/${file}`, sumsUrl: `${base}/${repo}/releases/download/${tag}/${sums}` });
  const v = runtimeVersions;
  const containerdFile = `containerd-${v.containerd}-linux-${ARCH}.tar.gz`;
  const crictlFile = `crictl-${v.crictl}-linux-${ARCH}.tar.gz`;
  const cniFile = `cni-plugins-linux-${ARCH}-${v.cniPlugins}.tgz`;
  const fromMirror: Download[] =
    def.spec.runtime.source === "mirror"
      ? [
          { name: "containerd", ...release("containerd/containerd", `v${v.containerd}`, containerdFile, `${containerdFile}.sha256sum`), sha256: null, dest: "/usr/local", unpack: "tar" },
          { name: "runc", ...release("opencontainers/runc", `v${v.runc}`, `runc.${ARCH}`, "runc.sha256sum"), sha256: null, dest: "/usr/local/sbin/runc", unpack: "file" },
        ]
      : [];
  return [
    ...fromMirror,
    { name: "crictl", ...release("kubernetes-sigs/cri-tools", v.crictl, crictlFile, `${crictlFile}.sha256`), sha256: null, dest: "/usr/local/bin", unpack: "tar" },
    { name: "cni-plugins", ...release("containernetworking/plugins", v.cniPlugins, cniFile, `${cniFile}.sha256`), sha256: null, dest: RUNTIME_PATHS.cniBin, unpack: "tar" },
  ];
}

/** The API server's checkpoint on a master: its static pod, certificates, watchdog. */
export function checkpointFiles(caps: Capabilities): HostFile[] {
  return [
    { asset: "checkpoint/kube-apiserver.yaml", path: CHECKPOINT_PATHS.manifest, mode: PUBLIC },
    { asset: "checkpoint/bootdeck-checkpoint", path: CHECKPOINT_PATHS.script, mode: 0o755 },
    { asset: "checkpoint/bootdeck-checkpoint.service", path: CHECKPOINT_PATHS.unit, mode: PUBLIC },
    ...Object.entries(checkpointSecretFiles()).map(([asset, path]) => ({ asset, path, mode: SECRET })),
  ];
}

/** The download script's arguments for a download (plans show them, actions send them). */
export const downloadArgs = (d: Download): string[] => [d.url, d.sha256 ?? "", d.sumsUrl, d.dest, d.unpack];

/** What a download leaves on the host: the file, or the tarball's record of what it unpacked. */
export const downloadLeftover = (d: Download): string => (d.unpack === "file" ? d.dest : `${d.dest}/.bootdeck-${d.url.slice(d.url.lastIndexOf("/") + 1)}.sha256`);

/** The runtime phase's files: containerd's configuration (and unit), crictl's, modules, sysctls, mirror trust. */
export function runtimeFiles(def: ClusterDefinition, assetPaths: readonly string[]): HostFile[] {
  const has = new Set(assetPaths);
  const registry = def.spec.images.registry;
  const files: HostFile[] = [
    { asset: "runtime/containerd-config.toml", path: RUNTIME_PATHS.config, mode: PUBLIC },
    { asset: "runtime/crictl.yaml", path: RUNTIME_PATHS.crictl, mode: PUBLIC },
    { asset: "runtime/modules.conf", path: RUNTIME_PATHS.modules, mode: PUBLIC },
    { asset: "runtime/sysctl.conf", path: RUNTIME_PATHS.sysctl, mode: PUBLIC },
  ];
  if (def.spec.runtime.source === "mirror") files.push({ asset: "runtime/containerd.service", path: RUNTIME_PATHS.unit, mode: PUBLIC });
  if (registry) {
    const dir = `${RUNTIME_PATHS.certsD}/${registryHost(registry)}`;
    files.push({ asset: "runtime/registry-hosts.toml", path: `${dir}/hosts.toml`, mode: PUBLIC });
    if (has.has("runtime/registry-ca.crt") || def.spec.images.ca) files.push({ asset: "runtime/registry-ca.crt", path: `${dir}/ca.crt`, mode: PUBLIC });
  }
  return files;
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
    KUBELET_STAMP_FILE,
    ...(host.role === "master" ? ["/var/lib/etcd"] : []),
    ...binaryDownloads(def).map(downloadLeftover),
  ]);
  for (const p of [
    ...runtimeFiles(def, assetPaths).map((f) => f.path),
    ...runtimeDownloads(def).map(downloadLeftover),
    RUNTIME_PATHS.confD,
    RUNTIME_PATHS.certsD,
    "/var/lib/containerd",
    "/run/containerd",
    "/var/lib/cni",
    "/run/flannel",
    "/etc/systemd/system/multi-user.target.wants/containerd.service",
    RUNTIME_STAMP_FILE,
  ])
    paths.add(p);
  // containerd from the mirror is Bootdeck's own, its configuration directory too; a package's stays.
  if (def.spec.runtime.source === "mirror") paths.add("/etc/containerd");
  if (host.role === "master" && provisionsVip(def))
    for (const p of [ENDPOINT_PATHS.config, ENDPOINT_PATHS.unit, "/etc/bootdeck", "/etc/systemd/system/multi-user.target.wants/bootdeck-keepalived.service"]) paths.add(p);
  if (host.role === "master")
    for (const p of [...checkpointFiles(caps).map((f) => f.path), CHECKPOINT_PATHS.dir, CHECKPOINT_PATHS.secrets, CHECKPOINT_PATHS.active, "/etc/systemd/system/multi-user.target.wants/bootdeck-checkpoint.service", CHECKPOINT_STAMP_FILE]) paths.add(p);
  return [...paths].sort();
}

/**
 * A static control plane on a master (controlPlane: static): the control plane's secrets (the files
 * the bootstrap control plane reads, kept on every master) and its static pods.
 */
export function staticControlPlaneFiles(assetPaths: readonly string[]): HostFile[] {
  const secrets = Object.entries(bootstrapSecretFiles(assetPaths)).map(([asset, rel]) => ({ asset, path: `${STATIC_SECRETS_HOST_DIR}/${rel}`, mode: SECRET }));
  const manifests = assetPaths.filter((p) => p.startsWith("static-manifests/")).sort().map((asset) => ({ asset, path: `${KUBELET_PATHS.staticPods}/${asset.slice(asset.lastIndexOf("/") + 1)}`, mode: PUBLIC }));
  return [...secrets, ...manifests];
}
