// The node software Bootdeck installs beside the kubelet when it installs the container runtime from a
// mirror, and the add-on versions it renders. One table, so the plan, the preflight checks, the image
// list and the lab's builds agree. Browser-safe.

export const runtimeVersions = {
  /** containerd 2.x: the kubelet reads its cgroup driver over CRI (RuntimeConfig), which 1.x lacks. */
  containerd: "2.4.2",
  runc: "1.5.3",
  /** crictl of the newest Kubernetes minor speaks CRI v1 to any containerd 2.x. */
  crictl: "v1.37.0",
  cniPlugins: "v1.10.0",
} as const;

export const addonVersions = {
  flannel: "v0.28.10",
  /** The flannel CNI plugin image flannel v0.28.10's manifest uses. */
  flannelCniPlugin: "v1.9.1-flannel3",
} as const;

/**
 * Oldest containerd each kubelet minor works with. From 1.36 the kubelet takes its cgroup driver from
 * the runtime over CRI's RuntimeConfig (containerd 2.0+) and only warns when it must fall back; 1.37
 * counts the fallback as losing support, so Bootdeck asks for 2.0 from 1.36 on and 1.7 before.
 */
export function minimumContainerd(kubernetesMinor: number): string {
  return kubernetesMinor >= 36 ? "2.0.0" : "1.7.0";
}
