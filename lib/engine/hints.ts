// Hints for failures seen in the field: what to try next.
const known: [RegExp, string][] = [
  [/swap/i, "turn swap off (`swapoff -a`, and remove it from /etc/fstab), then retry the host"],
  [/address already in use|port .* in use|bind: /i, "another process holds the port — an earlier install or the bootstrap control plane; reset the host or stop it, then retry"],
  [/x509|certificate/i, "a certificate does not match: check that the API endpoint and every master address are in the apiserver certificate (re-render the assets)"],
  [/etcd.*(unreachable|refused|deadline)|connection refused.*2379/i, "etcd is not reachable: check that port 2379 is open between masters and that the clocks agree"],
  [/cni|network plugin|NetworkPluginNotReady/i, "the pod network is not up yet: check the flannel pods (kube-system) and /etc/cni/net.d on the node"],
  [/unknown flag/i, "the kubelet rejected a flag: the installed kubelet's version does not match spec.kubernetes.version — check the binaries' URL and sums, then retry the host"],
  [/not running steadily/i, "the kubelet keeps exiting: read its journal lines in the output (a file named by a flag missing, a wrong kubeconfig, swap on), fix that, then retry the host"],
  [/kubelet.*(not found|No such file)/i, "the kubelet binary is missing: check the binaries step and the mirror URL"],
  [/clock|skew/i, "enable NTP on every host (systemd-timesyncd or chrony)"],
  [/unreachable|timed out|EHOSTUNREACH|ETIMEDOUT/i, "check that the host is up and reachable on its SSH port from the dashboard (and through its bastion, if any), then retry"],
  [/host key/i, "if the host was reinstalled, re-pin its host key on the cluster page; otherwise treat it as an attack"],
  [/authentication|auth failed|All configured authentication methods failed/i, "check the user name and credential for this host"],
];

export function hintFor(message: string): string | undefined {
  return known.find(([re]) => re.test(message))?.[1];
}
