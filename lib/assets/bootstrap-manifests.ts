// The temporary control plane: static pods the first master's kubelet runs until the pivot. They
// read secrets from a host directory the engine fills (see bootstrapSecretFiles) and are removed,
// with that directory, once the self-hosted control plane runs.
import { BOOTSTRAP_SECRETS_HOST_DIR, SECRETS_DIR, type ManifestFile, type RenderContext } from "./context";
import { APISERVER_HOST_PATHS, apiserverCommand, HOST_CA_BUNDLE, apiserverProbes, componentProbe, memberProbes, CONTROLLER_MANAGER_PORT, controllerManagerCommand, podIpEnv, SCHEDULER_PORT, schedulerCommand } from "./manifests/flags";
import type { K8sObject } from "./yaml-out";

/** Where the masters' kubelet client certificates are rendered: `tls/kubelet/<master>.crt` and `.key`. */
export const KUBELET_IDENTITY_DIR = "tls/kubelet/";

/** The API server's configuration files (authentication, encryption, audit, admission) in the asset set. */
const API_SERVER_CONFIG_DIR = "apiserver/";

/** Asset path → path inside /etc/kubernetes/bootstrap-secrets. Plans are data: the engine copies exactly these. */
export function bootstrapSecretFiles(assetPaths: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of assetPaths) {
    // A master kubelet's identity goes to that master only (host-files.ts), never to the control plane.
    if (p.startsWith("tls/") && !p.startsWith(KUBELET_IDENTITY_DIR)) out[p] = p.slice("tls/".length);
    else if (p === "auth/kubeconfig-controller-manager" || p === "auth/kubeconfig-scheduler" || p.startsWith(API_SERVER_CONFIG_DIR))
      out[p] = p.slice(p.indexOf("/") + 1);
  }
  return out;
}

/** Where a static control plane's secrets live on every master (the same files as the bootstrap's, kept). */
export const STATIC_SECRETS_HOST_DIR = "/etc/kubernetes/control-plane-secrets";

/** A control-plane component as a static pod: the bootstrap's (`bootstrap-` prefix) or a static control plane's. */
function staticPod(name: string, image: string, command: string[], probes: Record<string, unknown>, opts: { prefix: string; secretsHostDir: string; priorityClass: string }): K8sObject {
  const hostPaths = name === "kube-apiserver" ? APISERVER_HOST_PATHS : HOST_CA_BUNDLE;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `${opts.prefix}${name}`, namespace: "kube-system", labels: { "k8s-app": `${opts.prefix}${name}`, tier: "control-plane" } },
    spec: {
      hostNetwork: true,
      priorityClassName: opts.priorityClass,
      containers: [
        {
          name,
          image,
          command,
          env: name === "kube-apiserver" ? podIpEnv : undefined,
          ...probes,
          volumeMounts: [{ name: "secrets", mountPath: SECRETS_DIR, readOnly: true }, ...hostPaths.volumeMounts],
        },
      ],
      volumes: [{ name: "secrets", hostPath: { path: opts.secretsHostDir } }, ...hostPaths.volumes],
    },
  };
}

function controlPlanePods(ctx: RenderContext, opts: { prefix: string; secretsHostDir: string; priorityClass: string }): [K8sObject, K8sObject, K8sObject] {
  const { images } = ctx;
  return [
    staticPod("kube-apiserver", images.apiserver, apiserverCommand(ctx), apiserverProbes(ctx), opts),
    staticPod("kube-controller-manager", images.controllerManager, controllerManagerCommand(ctx, `${SECRETS_DIR}/kubeconfig-controller-manager`), componentProbe(CONTROLLER_MANAGER_PORT), opts),
    staticPod("kube-scheduler", images.scheduler, schedulerCommand(`${SECRETS_DIR}/kubeconfig-scheduler`), componentProbe(SCHEDULER_PORT), opts),
  ];
}

export function bootstrapManifests(ctx: RenderContext): ManifestFile[] {
  const [apiserver, controllerManager, scheduler] = controlPlanePods(ctx, { prefix: "bootstrap-", secretsHostDir: BOOTSTRAP_SECRETS_HOST_DIR, priorityClass: "system-node-critical" });
  return [
    { path: "bootstrap-manifests/bootstrap-apiserver.yaml", purpose: "temporary API server static pod on the first master, until the pivot", objects: [apiserver] },
    { path: "bootstrap-manifests/bootstrap-controller-manager.yaml", purpose: "temporary controller-manager static pod on the first master, until the pivot", objects: [controllerManager] },
    { path: "bootstrap-manifests/bootstrap-scheduler.yaml", purpose: "temporary scheduler static pod on the first master, until the pivot", objects: [scheduler] },
  ];
}

/**
 * A static control plane (controlPlane: static): the same components as static pods on every master,
 * for good. The controller-manager and scheduler talk to their own master's API server on loopback.
 */
export function staticControlPlaneManifests(ctx: RenderContext): ManifestFile[] {
  const [apiserver, controllerManager, scheduler] = controlPlanePods(ctx, { prefix: "", secretsHostDir: STATIC_SECRETS_HOST_DIR, priorityClass: "system-node-critical" });
  return [
    { path: "static-manifests/kube-apiserver.yaml", purpose: `API server static pod on every master (secrets in ${STATIC_SECRETS_HOST_DIR})`, objects: [apiserver] },
    { path: "static-manifests/kube-controller-manager.yaml", purpose: "controller-manager static pod on every master (leader-elected; its master's API server on loopback)", objects: [controllerManager] },
    { path: "static-manifests/kube-scheduler.yaml", purpose: "scheduler static pod on every master (leader-elected; its master's API server on loopback)", objects: [scheduler] },
  ];
}

export const ETCD_HOST_DIR = "/etc/kubernetes/etcd";
/** etcd's plain-HTTP metrics and health listener, on loopback only (kubeadm's layout). */
export const ETCD_METRICS_PORT = 2381;

/** etcd 3.6's /livez and /readyz on the metrics listener, as kubeadm probes them (startup on /readyz). */
function etcdProbes(): Record<string, unknown> {
  return memberProbes((path) => ({ httpGet: { host: "127.0.0.1", path, port: ETCD_METRICS_PORT, scheme: "HTTP" } }), "/readyz");
}

/** Asset path → host path of the files an etcd member's static pod reads. */
export function etcdMemberFiles(member: string): Record<string, string> {
  return {
    "tls/etcd/ca.crt": `${ETCD_HOST_DIR}/ca.crt`,
    [`tls/etcd/server-${member}.crt`]: `${ETCD_HOST_DIR}/server.crt`,
    [`tls/etcd/server-${member}.key`]: `${ETCD_HOST_DIR}/server.key`,
    [`tls/etcd/peer-${member}.crt`]: `${ETCD_HOST_DIR}/peer.crt`,
    [`tls/etcd/peer-${member}.key`]: `${ETCD_HOST_DIR}/peer.key`,
  };
}

/**
 * etcd runs on every master as a static pod that stays after the pivot (it is not self-hosted: a
 * self-hosted etcd cannot recover from losing the control plane, bootkube #333/#612). All members
 * start with the hosts' kubelets, so the initial cluster reaches quorum before the bootstrap API server needs it.
 */
export function etcdManifests(ctx: RenderContext, joining: readonly string[] = []): ManifestFile[] {
  const members = ctx.derived.etcdMembers;
  const founders = members.filter((m) => !joining.includes(m.name));
  const joiners = members.filter((m) => joining.includes(m.name));
  const listed = (ms: typeof members) => ms.map((m) => `${m.name}=${m.peerUrl}`).join(",");
  return members.map((m) => {
    // A member added to a running cluster, one at a time in definition order: the cluster it joins is
    // the members before it plus itself, as `member add` leaves it (etcd checks the two agree).
    const j = joiners.findIndex((x) => x.name === m.name);
    // Members with data ignore the flag; theirs lists the members that are not joining.
    const initialCluster = j < 0 ? listed(founders) : listed([...founders, ...joiners.slice(0, j + 1)]);
    const any = m.address.includes(":") ? "[::]" : "0.0.0.0";
    const d = ETCD_HOST_DIR;
    return {
      path: `etcd/etcd-${m.name}.yaml`,
      purpose: `etcd member static pod for ${m.name} (goes to its /etc/kubernetes/manifests)`,
      objects: [
        {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "etcd", namespace: "kube-system", labels: { "k8s-app": "etcd", tier: "control-plane" } },
          spec: {
            hostNetwork: true,
            priorityClassName: "system-node-critical",
            containers: [
              {
                name: "etcd",
                image: ctx.images.etcd,
                command: [
                  "etcd",
                  `--name=${m.name}`,
                  "--data-dir=/var/lib/etcd",
                  `--listen-client-urls=https://${any}:2379`,
                  `--advertise-client-urls=${m.clientUrl}`,
                  `--listen-peer-urls=https://${any}:2380`,
                  `--initial-advertise-peer-urls=${m.peerUrl}`,
                  `--initial-cluster=${initialCluster}`,
                  `--initial-cluster-state=${j < 0 ? "new" : "existing"}`,
                  `--initial-cluster-token=${ctx.def.metadata.name}`,
                  `--cert-file=${d}/server.crt`,
                  `--key-file=${d}/server.key`,
                  `--trusted-ca-file=${d}/ca.crt`,
                  "--client-cert-auth=true",
                  `--peer-cert-file=${d}/peer.crt`,
                  `--peer-key-file=${d}/peer.key`,
                  `--peer-trusted-ca-file=${d}/ca.crt`,
                  "--peer-client-cert-auth=true",
                  `--listen-metrics-urls=http://127.0.0.1:${ETCD_METRICS_PORT}`,
                ],
                ...etcdProbes(),
                volumeMounts: [
                  { name: "etcd-data", mountPath: "/var/lib/etcd" },
                  { name: "etcd-certs", mountPath: d, readOnly: true },
                ],
              },
            ],
            volumes: [
              { name: "etcd-data", hostPath: { path: "/var/lib/etcd", type: "DirectoryOrCreate" } },
              { name: "etcd-certs", hostPath: { path: d } },
            ],
          },
        },
      ],
    };
  });
}
