// Self-hosted API server, controller-manager and scheduler.
import { IN_CLUSTER_KUBECONFIG_DIR, SECRETS_DIR, masterSelector, masterTolerations, securePort, type ManifestFile, type RenderContext } from "../context";
import type { K8sObject } from "../yaml-out";
import { NS, clusterRoleBinding, inClusterKubeconfigVolume, meta, pdb, secretData, secretVolume, serviceAccount, spreadAcrossNodes, spreadReplicas, workload } from "./common";
import { APISERVER_APP, APISERVER_HOST_PATHS, apiserverContainer, HOST_CA_BUNDLE, apiserverSecretFiles, componentProbe, CONTROLLER_MANAGER_PORT, controllerManagerCommand, controllerManagerSecretFiles, SCHEDULER_PORT, schedulerCommand } from "./flags";

const inClusterKubeconfig = `${IN_CLUSTER_KUBECONFIG_DIR}/kubeconfig`;

export function apiserverManifests(ctx: RenderContext): ManifestFile[] {
  const files = apiserverSecretFiles();
  const labels = { "k8s-app": APISERVER_APP, tier: "control-plane" };
  const secret: K8sObject = { apiVersion: "v1", kind: "Secret", metadata: meta("kube-apiserver", NS), type: "Opaque", data: secretData(ctx, files) };
  const ds = workload("DaemonSet", "kube-apiserver", NS, labels, {
    hostNetwork: true,
    nodeSelector: masterSelector(),
    tolerations: masterTolerations(),
    priorityClassName: "system-cluster-critical",
    containers: [apiserverContainer(ctx, { ports: [{ name: "https", containerPort: securePort(ctx), hostPort: securePort(ctx) }] })],
    volumes: [secretVolume("secrets", "kube-apiserver", files), ...APISERVER_HOST_PATHS.volumes],
  });
  return [
    { path: "manifests/kube-apiserver-secret.yaml", purpose: "API server's certificates and keys as a Secret (mounted into the self-hosted API server)", objects: [secret], sensitive: true },
    { path: "manifests/kube-apiserver.yaml", purpose: "self-hosted API server DaemonSet on masters (each master keeps a static checkpoint of it)", objects: [ds] },
  ];
}

export function controllerManagerManifests(ctx: RenderContext): ManifestFile[] {
  const files = controllerManagerSecretFiles();
  const labels = { "k8s-app": "kube-controller-manager", tier: "control-plane" };
  const secret: K8sObject = { apiVersion: "v1", kind: "Secret", metadata: meta("kube-controller-manager", NS), type: "Opaque", data: secretData(ctx, files) };
  const replicas = spreadReplicas(ctx.derived.masters.length);
  const deploy = workload("Deployment", "kube-controller-manager", NS, labels, {
    // The host's network, as the static pods have it: it listens on the host's loopback only (flags.ts).
    hostNetwork: true,
    affinity: spreadAcrossNodes(labels),
    nodeSelector: masterSelector(),
    tolerations: masterTolerations(),
    priorityClassName: "system-cluster-critical",
    serviceAccountName: "kube-controller-manager",
    // Root: the secret volume is 0600 (a non-root user could not read the CA key).
    containers: [
      {
        name: "kube-controller-manager",
        image: ctx.images.controllerManager,
        command: controllerManagerCommand(ctx, inClusterKubeconfig),
        ...componentProbe(CONTROLLER_MANAGER_PORT),
        volumeMounts: [
          { name: "secrets", mountPath: SECRETS_DIR, readOnly: true },
          { name: "kubeconfig", mountPath: IN_CLUSTER_KUBECONFIG_DIR, readOnly: true },
          ...HOST_CA_BUNDLE.volumeMounts,
        ],
      },
    ],
    volumes: [
      secretVolume("secrets", "kube-controller-manager", files),
      inClusterKubeconfigVolume,
      ...HOST_CA_BUNDLE.volumes,
    ],
  }, { replicas });
  return [
    { path: "manifests/kube-controller-manager-secret.yaml", purpose: "controller-manager's CA key and service-account key as a Secret", objects: [secret], sensitive: true },
    { path: "manifests/kube-controller-manager.yaml", purpose: `self-hosted controller-manager Deployment (${replicas} ${replicas === 1 ? "replica" : "replicas, on distinct masters"})`, objects: [deploy] },
    { path: "manifests/kube-controller-manager-disruption.yaml", purpose: replicas >= 2 ? "keeps one controller-manager running through voluntary disruptions" : "lets the lone controller-manager be evicted (its master could not be drained otherwise)", objects: [pdb("kube-controller-manager", labels, replicas)] },
    {
      path: "manifests/kube-controller-manager-rbac.yaml",
      purpose: "controller-manager's service account and its binding to system:kube-controller-manager",
      objects: [
        serviceAccount("kube-controller-manager"),
        clusterRoleBinding("bootdeck:kube-controller-manager", "system:kube-controller-manager", [{ kind: "ServiceAccount", name: "kube-controller-manager" }]),
      ],
    },
  ];
}

export function schedulerManifests(ctx: RenderContext): ManifestFile[] {
  const labels = { "k8s-app": "kube-scheduler", tier: "control-plane" };
  const replicas = spreadReplicas(ctx.derived.masters.length);
  const deploy = workload("Deployment", "kube-scheduler", NS, labels, {
    hostNetwork: true,
    affinity: spreadAcrossNodes(labels),
    nodeSelector: masterSelector(),
    tolerations: masterTolerations(),
    priorityClassName: "system-cluster-critical",
    serviceAccountName: "kube-scheduler",
    // Root, as the temporary scheduler it starts beside on the first master: two sockets may share a
    // port (--permit-port-sharing) only when the same user opened both; as another user it found
    // 127.0.0.1:10259 in use and crash-looped until the pivot removed the temporary one.
    containers: [
      {
        name: "kube-scheduler",
        image: ctx.images.scheduler,
        command: schedulerCommand(inClusterKubeconfig),
        ...componentProbe(SCHEDULER_PORT),
        volumeMounts: [{ name: "kubeconfig", mountPath: IN_CLUSTER_KUBECONFIG_DIR, readOnly: true }],
      },
    ],
    volumes: [inClusterKubeconfigVolume],
  }, { replicas });
  return [
    { path: "manifests/kube-scheduler.yaml", purpose: `self-hosted scheduler Deployment (${replicas} ${replicas === 1 ? "replica" : "replicas, on distinct masters"})`, objects: [deploy] },
    { path: "manifests/kube-scheduler-disruption.yaml", purpose: replicas >= 2 ? "keeps one scheduler running through voluntary disruptions" : "lets the lone scheduler be evicted (its master could not be drained otherwise)", objects: [pdb("kube-scheduler", labels, replicas)] },
    {
      path: "manifests/kube-scheduler-rbac.yaml",
      purpose: "scheduler's service account and its bindings to system:kube-scheduler and system:volume-scheduler",
      objects: [
        serviceAccount("kube-scheduler"),
        clusterRoleBinding("bootdeck:kube-scheduler", "system:kube-scheduler", [{ kind: "ServiceAccount", name: "kube-scheduler" }]),
        clusterRoleBinding("bootdeck:volume-scheduler", "system:volume-scheduler", [{ kind: "ServiceAccount", name: "kube-scheduler" }]),
      ],
    },
  ];
}
