// The container runtime's files: containerd's configuration and unit, crictl's, the kernel modules and
// sysctls Kubernetes networking needs, and the image mirror's trust. Rendered with the cluster so the
// plan shows them and the runtime phase pushes exactly them.
import type { ClusterDefinition } from "../cluster/definition";
import type { Images } from "./capabilities";

export const RUNTIME_PATHS = {
  unit: "/etc/systemd/system/containerd.service",
  config: "/etc/containerd/config.toml",
  /** containerd imports every file here; the registry credentials go here at run time (0600). */
  confD: "/etc/containerd/conf.d",
  certsD: "/etc/containerd/certs.d",
  crictl: "/etc/crictl.yaml",
  modules: "/etc/modules-load.d/bootdeck-kubernetes.conf",
  sysctl: "/etc/sysctl.d/99-bootdeck-kubernetes.conf",
  socket: "/run/containerd/containerd.sock",
  cniBin: "/opt/cni/bin",
  cniConf: "/etc/cni/net.d",
} as const;

export const RUNTIME_ENDPOINT = `unix://${RUNTIME_PATHS.socket}`;
/** The file the runtime phase writes the registry credentials to. */
export const REGISTRY_AUTH_FILE = `${RUNTIME_PATHS.confD}/bootdeck-registry-auth.toml`;

/** The mirror's host[:port] (containerd keys its per-registry settings by it), without the path prefix. */
export function registryHost(registry: string): string {
  return registry.replace(/\/.*$/, "");
}

const toml = (s: string) => JSON.stringify(s);

/**
 * containerd's configuration, in the version-2 format: containerd 1.7 reads it as is and 2.x migrates
 * it at start, so one file serves every runtime a host's packages may bring.
 */
export function containerdConfig(def: ClusterDefinition, images: Images): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return [
    "# Bootdeck: containerd for the kubelet (CRI). Registry credentials, if any, are in conf.d (0600).",
    "version = 2",
    `imports = [${toml(`${RUNTIME_PATHS.confD}/*.toml`)}]`,
    "",
    `[${cri}]`,
    `  sandbox_image = ${toml(images.pause)}`,
    // Never ask the kernel for a lower OOM score than containerd's own (-999 under its unit): no change
    // where containerd holds CAP_SYS_RESOURCE, and pods still start on hosts without it (LXC, some VMs).
    "  restrict_oom_score_adj = true",
    `[${cri}.containerd]`,
    '  default_runtime_name = "runc"',
    `[${cri}.containerd.runtimes.runc]`,
    '  runtime_type = "io.containerd.runc.v2"',
    `[${cri}.containerd.runtimes.runc.options]`,
    // Must match the kubelet's cgroupDriver (the kubelet asks containerd for it from 1.36 on).
    `  SystemdCgroup = ${def.spec.runtime.cgroupDriver === "systemd"}`,
    `[${cri}.cni]`,
    `  bin_dir = ${toml(RUNTIME_PATHS.cniBin)}`,
    `  conf_dir = ${toml(RUNTIME_PATHS.cniConf)}`,
    `[${cri}.registry]`,
    `  config_path = ${toml(RUNTIME_PATHS.certsD)}`,
    "",
  ].join("\n");
}

/**
 * The registry credentials drop-in (written on the hosts from the stored credential, never rendered):
 * containerd's whole rendered configuration `config` again, with the pull credentials added. containerd
 * 1.7 (Debian 13's package, for one) replaces a plugin's whole table with an imported file's, where 2.x
 * merges them: a drop-in holding only the credentials made 1.7 forget the sandbox image, the cgroup
 * driver and the registry hosts. Repeating the configuration gives one result under both.
 */
export function registryAuthConfig(config: string, registry: string, username: string, password: string): string {
  const body = config
    .split("\n")
    .filter((l) => !l.startsWith("imports =") && !l.startsWith("# Bootdeck:"))
    .join("\n")
    .trim();
  return [
    "# Bootdeck: containerd's configuration again, with the pull credentials for the image mirror (static pods cannot use image pull secrets).",
    body,
    "",
    `[plugins."io.containerd.grpc.v1.cri".registry.configs.${toml(registryHost(registry))}.auth]`,
    `  username = ${toml(username)}`,
    `  password = ${toml(password)}`,
    "",
  ].join("\n");
}

/** certs.d/<host>/hosts.toml: the mirror is reached over HTTPS, trusting its CA when one is given. */
export function registryHostsToml(registry: string, withCa: boolean): string {
  const host = registryHost(registry);
  return [
    "# Bootdeck: how containerd reaches the image mirror",
    `server = ${toml(`https://${host}`)}`,
    "",
    `[host.${toml(`https://${host}`)}]`,
    '  capabilities = ["pull", "resolve"]',
    ...(withCa ? [`  ca = ${toml(`${RUNTIME_PATHS.certsD}/${host}/ca.crt`)}`] : []),
    "",
  ].join("\n");
}

/** containerd's unit when Bootdeck installs it from the mirror (upstream's unit, Bootdeck's paths). */
export function containerdUnit(): string {
  return [
    "[Unit]",
    "Description=containerd container runtime (Bootdeck)",
    "Documentation=https://containerd.io",
    "After=network.target local-fs.target",
    "",
    "[Service]",
    "ExecStartPre=-/sbin/modprobe overlay",
    "ExecStart=/usr/local/bin/containerd",
    "Type=notify",
    // The shims and containers outlive a restart of containerd itself.
    "Delegate=yes",
    "KillMode=process",
    "Restart=always",
    "RestartSec=5",
    "LimitNPROC=infinity",
    "LimitCORE=infinity",
    "TasksMax=infinity",
    "OOMScoreAdjust=-999",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    "",
  ].join("\n");
}

export function crictlConfig(): string {
  return `runtime-endpoint: ${RUNTIME_ENDPOINT}\nimage-endpoint: ${RUNTIME_ENDPOINT}\ntimeout: 10\n`;
}

export const KERNEL_MODULES = ["overlay", "br_netfilter"] as const;

export function modulesConf(): string {
  return `# Bootdeck: kernel modules containerd and pod networking need\n${KERNEL_MODULES.join("\n")}\n`;
}

export const KUBERNETES_SYSCTLS: Readonly<Record<string, string>> = {
  "net.bridge.bridge-nf-call-iptables": "1",
  "net.bridge.bridge-nf-call-ip6tables": "1",
  "net.ipv4.ip_forward": "1",
};

export function sysctlConf(): string {
  return `# Bootdeck: bridged pod traffic passes iptables (kube-proxy), and nodes route pod traffic\n${Object.entries(KUBERNETES_SYSCTLS)
    .map(([k, v]) => `${k} = ${v}`)
    .join("\n")}\n`;
}
