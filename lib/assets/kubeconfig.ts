// Kubeconfigs: each names its cluster, user and a current-context (bootkube's lacked one), embeds
// the CA, and points at a server URL with an explicit port (bootkube #757).
import { toYaml } from "./yaml-out";

export type KubeconfigUser = { clientCertPem: string; clientKeyPem: string } | { token: string } | { tokenFile: string };

export function kubeconfig(opts: {
  clusterName: string;
  server: string;
  caPem: string;
  userName: string;
  user: KubeconfigUser;
}): string {
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
  const user =
    "token" in opts.user
      ? { token: opts.user.token }
      : "tokenFile" in opts.user
        ? { tokenFile: opts.user.tokenFile }
        : { "client-certificate-data": b64(opts.user.clientCertPem), "client-key-data": b64(opts.user.clientKeyPem) };
  const context = `${opts.userName}@${opts.clusterName}`;
  return toYaml({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: opts.clusterName, cluster: { server: opts.server, "certificate-authority-data": b64(opts.caPem) } }],
    users: [{ name: opts.userName, user }],
    contexts: [{ name: context, context: { cluster: opts.clusterName, user: opts.userName } }],
    "current-context": context,
    preferences: {},
  });
}

/** In-cluster kubeconfig (bootkube's `kubeconfig-in-cluster`): service-account token and CA from the pod's mount. */
export function inClusterKubeconfig(opts: { clusterName: string; server: string }): string {
  const sa = "/var/run/secrets/kubernetes.io/serviceaccount";
  const context = `in-cluster@${opts.clusterName}`;
  return toYaml({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: opts.clusterName, cluster: { server: opts.server, "certificate-authority": `${sa}/ca.crt` } }],
    users: [{ name: "service-account", user: { tokenFile: `${sa}/token` } }],
    contexts: [{ name: context, context: { cluster: opts.clusterName, user: "service-account" } }],
    "current-context": context,
  });
}
