// Control-plane command lines, shared by the bootstrap static pods and the self-hosted workloads so
// the two cannot drift. Paths are relative to SECRETS_DIR, laid out like tls/ (see secretFiles).
import { ETCD_LOCAL_CLIENT_URL, SECRETS_DIR, securePort, type RenderContext } from "../context";
import { ADMISSION_CONFIG_ASSET, AUDIT_LOG, AUDIT_LOG_DIR, AUDIT_LOG_ROTATION, AUDIT_POLICY_ASSET } from "../api-policy";
import { AUTOMATIC_RELOAD_FLAG, ENCRYPTION_CONFIG_ASSET } from "../encryption";

const s = (rel: string) => `${SECRETS_DIR}/${rel}`;

/** Asset paths the API server reads, by path inside SECRETS_DIR. */
export function apiserverSecretFiles(): Record<string, string> {
  return {
    "ca.crt": "tls/ca.crt",
    "apiserver.crt": "tls/apiserver.crt",
    "apiserver.key": "tls/apiserver.key",
    "apiserver-kubelet-client.crt": "tls/apiserver-kubelet-client.crt",
    "apiserver-kubelet-client.key": "tls/apiserver-kubelet-client.key",
    "service-account.pub": "tls/service-account.pub",
    "etcd/ca.crt": "tls/etcd/ca.crt",
    "etcd-client.crt": "tls/etcd-client.crt",
    "etcd-client.key": "tls/etcd-client.key",
    // The signing key issues bound service-account tokens.
    "service-account.key": "tls/service-account.key",
    "front-proxy-ca.crt": "tls/front-proxy-ca.crt",
    "front-proxy-client.crt": "tls/front-proxy-client.crt",
    "front-proxy-client.key": "tls/front-proxy-client.key",
    "authentication-config.yaml": "apiserver/authentication-config.yaml",
    "encryption-config.yaml": ENCRYPTION_CONFIG_ASSET,
    "audit-policy.yaml": AUDIT_POLICY_ASSET,
    "admission-config.yaml": ADMISSION_CONFIG_ASSET,
  };
}

/**
 * Anonymous requests: allowed on the health endpoints only, which the kubelet's probes, load balancers
 * and Bootdeck's own checks use without credentials. Everything else needs a client certificate or a
 * token. (With the old --anonymous-auth=true every path accepted anonymous requests and only RBAC kept
 * them out; with false the probes could not work.)
 */
export function authenticationConfig(): string {
  return [
    "apiVersion: apiserver.config.k8s.io/v1",
    "kind: AuthenticationConfiguration",
    "anonymous:",
    "  enabled: true",
    "  conditions:",
    ...HEALTH_PATHS.map((p) => `    - path: ${p}`),
    "",
  ].join("\n");
}

export const HEALTH_PATHS = ["/livez", "/readyz", "/healthz"] as const;

/**
 * How long a stopping API server keeps serving after it reported itself not ready: longer than
 * keepalived takes to move the API address off it (two failed checks 2 s apart, about 4 s: lib/assets/endpoint.ts).
 */
export const SHUTDOWN_DELAY_S = 10;

/**
 * A control-plane member's liveness, readiness and startup probes (the API server's and etcd's): kubeadm's,
 * except that the startup probe asks every 2 s instead of every 10 s, for the same 4 minutes. Readiness
 * waits for it, and every roll of these members — an upgrade, a certificate rotation, a reboot — waits
 * for each master's to be Ready before the next: with kubeadm's period a member that answers after 11 s
 * counts as started only at 20 s.
 */
export function memberProbes(get: (path: string) => Record<string, unknown>, startupPath: string): Record<string, unknown> {
  return {
    livenessProbe: { ...get("/livez"), initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold: 8 },
    readinessProbe: { ...get("/readyz"), periodSeconds: 1, timeoutSeconds: 15, failureThreshold: 3 },
    startupProbe: { ...get(startupPath), initialDelaySeconds: 2, periodSeconds: 2, timeoutSeconds: 15, failureThreshold: 120 },
  };
}

/** The API server's probes, against its own port. */
export function apiserverProbes(ctx: RenderContext): Record<string, unknown> {
  return memberProbes((path) => ({ httpGet: { path, port: securePort(ctx), scheme: "HTTPS" } }), "/livez");
}

/**
 * The API server's container, as the self-hosted DaemonSet and each master's checkpoint run it: its
 * command, the pod IP it advertises, its probes and its secrets and the host's CA bundle mounted.
 * `extra` comes before the mounts (the DaemonSet's host port).
 */
export function apiserverContainer(ctx: RenderContext, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "kube-apiserver",
    image: ctx.images.apiserver,
    // Before 1.19 (no port sharing) the self-hosted one crash-loops until the bootstrap API server releases the port.
    command: apiserverCommand(ctx),
    env: podIpEnv,
    ...apiserverProbes(ctx),
    ...extra,
    volumeMounts: [{ name: "secrets", mountPath: SECRETS_DIR, readOnly: true }, ...APISERVER_HOST_PATHS.volumeMounts],
  };
}

/** The host's CA bundle, which every control-plane component reads to trust the servers it calls (an OIDC issuer, a webhook). */
export const HOST_CA_BUNDLE = {
  volumeMounts: [{ name: "ssl-certs-host", mountPath: "/etc/ssl/certs", readOnly: true }],
  volumes: [{ name: "ssl-certs-host", hostPath: { path: "/etc/ssl/certs" } }],
};

/**
 * The host's folders every API server mounts beside its secrets, wherever it runs: the CA bundle
 * (read) and the audit log's folder (written; created if missing).
 */
/** Every API server pod's `k8s-app` label, self-hosted or static: the engine and the checkpoint find them by the selector. */
export const APISERVER_APP = "kube-apiserver";
export const APISERVER_POD_SELECTOR = `k8s-app=${APISERVER_APP}`;

export const APISERVER_HOST_PATHS = {
  volumeMounts: [...HOST_CA_BUNDLE.volumeMounts, { name: "audit-log", mountPath: AUDIT_LOG_DIR }],
  volumes: [...HOST_CA_BUNDLE.volumes, { name: "audit-log", hostPath: { path: AUDIT_LOG_DIR, type: "DirectoryOrCreate" } }],
};

/**
 * The controller-manager (10257) and scheduler (10259) answer /healthz without credentials over HTTPS,
 * on the host's loopback only (`--bind-address=127.0.0.1`): every copy runs with the host's network,
 * so the kubelet probes them there and nothing off the host reaches them.
 */
export function componentProbe(port: number): Record<string, unknown> {
  return { livenessProbe: { httpGet: { host: LOOPBACK, path: "/healthz", port, scheme: "HTTPS" }, initialDelaySeconds: 10, periodSeconds: 10, timeoutSeconds: 15, failureThreshold: 8 } };
}

const LOOPBACK = "127.0.0.1";

export const CONTROLLER_MANAGER_PORT = 10257;
export const SCHEDULER_PORT = 10259;

export function controllerManagerSecretFiles(): Record<string, string> {
  return { "ca.crt": "tls/ca.crt", "ca.key": "tls/ca.key", "service-account.key": "tls/service-account.key" };
}

export function apiserverCommand(ctx: RenderContext): string[] {
  const { def } = ctx;
  const flags = [
    "--advertise-address=$(POD_IP)",
    "--allow-privileged=true",
    "--bind-address=0.0.0.0",
    `--client-ca-file=${s("ca.crt")}`,
    `--etcd-cafile=${s("etcd/ca.crt")}`,
    `--etcd-certfile=${s("etcd-client.crt")}`,
    `--etcd-keyfile=${s("etcd-client.key")}`,
    `--etcd-servers=${ETCD_LOCAL_CLIENT_URL}`,
    `--kubelet-client-certificate=${s("apiserver-kubelet-client.crt")}`,
    `--kubelet-client-key=${s("apiserver-kubelet-client.key")}`,
    // Explicit, never empty (bootkube #757 rendered `--secure-port=` when the URL had no port).
    `--secure-port=${securePort(ctx)}`,
    `--service-account-key-file=${s("service-account.pub")}`,
    `--service-cluster-ip-range=${def.spec.network.serviceCidr}`,
    `--tls-cert-file=${s("apiserver.crt")}`,
    `--tls-private-key-file=${s("apiserver.key")}`,
    "--authorization-mode=Node,RBAC",
    // EventRateLimit's limits are in the admission configuration (api-policy.ts).
    "--enable-admission-plugins=NodeRestriction,EventRateLimit",
    "--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname",
    "--enable-bootstrap-token-auth=true",
    `--authentication-config=${s("authentication-config.yaml")}`,
    `--encryption-provider-config=${s("encryption-config.yaml")}`,
    // Read again when the file changes (polled each minute): a key rotation rolls out new configurations
    // without restarting an API server, and the engine sees each one loaded in its metrics.
    `${AUTOMATIC_RELOAD_FLAG}=true`,
    `--admission-control-config-file=${s("admission-config.yaml")}`,
    `--audit-policy-file=${s("audit-policy.yaml")}`,
    `--audit-log-path=${AUDIT_LOG}`,
    `--audit-log-maxsize=${AUDIT_LOG_ROTATION.maxSizeMb}`,
    `--audit-log-maxbackup=${AUDIT_LOG_ROTATION.maxBackups}`,
    `--audit-log-maxage=${AUDIT_LOG_ROTATION.maxAgeDays}`,
    // No /debug/pprof: nothing here reads it, and it shows a process's inner state to whoever may read non-resource URLs.
    "--profiling=false",
    // The bootstrap and self-hosted API servers (and a master's checkpoint) run side by side for a while:
    // sharing the port, the newcomer serves at once instead of crash-looping on "address in use".
    "--permit-port-sharing=true",
    // Stopping (an upgrade, a removal): /readyz fails at once while requests are still served for 5 s, so
    // the API address moves to another master before this one stops answering.
    `--shutdown-delay-duration=${SHUTDOWN_DELAY_S}s`,
    `--service-account-issuer=https://kubernetes.default.svc.${def.spec.network.clusterDomain}`,
    `--service-account-signing-key-file=${s("service-account.key")}`,
    `--proxy-client-cert-file=${s("front-proxy-client.crt")}`,
    `--proxy-client-key-file=${s("front-proxy-client.key")}`,
    "--requestheader-allowed-names=front-proxy-client",
    `--requestheader-client-ca-file=${s("front-proxy-ca.crt")}`,
    "--requestheader-extra-headers-prefix=X-Remote-Extra-",
    "--requestheader-group-headers=X-Remote-Group",
    "--requestheader-username-headers=X-Remote-User",
  ];
  return ["kube-apiserver", ...flags.sort()];
}

export function controllerManagerCommand(ctx: RenderContext, kubeconfigPath: string): string[] {
  const { def } = ctx;
  const flags = [
    "--allocate-node-cidrs=true",
    `--cluster-cidr=${def.spec.network.podCidr}`,
    `--cluster-name=${def.metadata.name}`,
    `--cluster-signing-cert-file=${s("ca.crt")}`,
    `--cluster-signing-key-file=${s("ca.key")}`,
    `--kubeconfig=${kubeconfigPath}`,
    "--leader-elect=true",
    `--root-ca-file=${s("ca.crt")}`,
    `--service-account-private-key-file=${s("service-account.key")}`,
    `--service-cluster-ip-range=${def.spec.network.serviceCidr}`,
    `--authentication-kubeconfig=${kubeconfigPath}`,
    `--authorization-kubeconfig=${kubeconfigPath}`,
    "--controllers=*,bootstrapsigner,tokencleaner",
    "--use-service-account-credentials=true",
    `--bind-address=${LOOPBACK}`,
    "--permit-port-sharing=true",
    "--profiling=false",
    // Finished pods kept before the oldest are deleted (upstream keeps 12 500): etcd and every pod list
    // carry them, and a finished pod's record is rarely looked for after a thousand newer ones.
    "--terminated-pod-gc-threshold=1000",
  ];
  return ["kube-controller-manager", ...flags.sort()];
}

export function schedulerCommand(kubeconfigPath: string): string[] {
  const flags = [`--kubeconfig=${kubeconfigPath}`, "--leader-elect=true", `--authentication-kubeconfig=${kubeconfigPath}`, `--authorization-kubeconfig=${kubeconfigPath}`, `--bind-address=${LOOPBACK}`, "--permit-port-sharing=true", "--profiling=false"];
  return ["kube-scheduler", ...flags.sort()];
}

export const podIpEnv = [{ name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } }];
export const nodeNameEnv = [{ name: "NODE_NAME", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } }];
