// Building blocks shared by the self-hosted manifests.
import type { RenderContext } from "../context";
import type { K8sObject } from "../yaml-out";

export const NS = "kube-system";

export function meta(name: string, namespace: string | undefined, labels?: Record<string, string>): K8sObject["metadata"] {
  return { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) };
}

export function workload(
  kind: "DaemonSet" | "Deployment",
  name: string,
  namespace: string,
  podLabels: Record<string, string>,
  podSpec: Record<string, unknown>,
  extra: { replicas?: number; annotations?: Record<string, string> } = {},
): K8sObject {
  return {
    apiVersion: "apps/v1",
    kind,
    metadata: meta(name, namespace, podLabels),
    spec: {
      ...(kind === "Deployment" ? { replicas: extra.replicas ?? 2 } : {}),
      selector: { matchLabels: podLabels },
      ...(kind === "DaemonSet" ? { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } } } : {}),
      ...(kind === "Deployment" ? { strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } } : {}),
      template: {
        metadata: { labels: podLabels, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
        spec: podSpec,
      },
    },
  };
}

/**
 * Keeps one replica running through voluntary disruptions (a drain) when there are two; a lone replica
 * (where one node can run it) may be evicted, or its node could never be drained.
 */
export function pdb(name: string, labels: Record<string, string>, replicas: number): K8sObject {
  const budget = replicas >= 2 ? { minAvailable: 1 } : { maxUnavailable: 1 };
  // A replica that is not Ready (crash-looping, on a node that died) protects nothing: evicting it never blocks a drain.
  return { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: meta(name, NS), spec: { ...budget, selector: { matchLabels: labels }, unhealthyPodEvictionPolicy: "AlwaysAllow" } };
}

export const serviceAccount = (name: string, namespace = NS): K8sObject => ({ apiVersion: "v1", kind: "ServiceAccount", metadata: meta(name, namespace) });

export function clusterRoleBinding(name: string, role: string, subjects: { kind: "ServiceAccount" | "Group" | "User"; name: string; namespace?: string }[]): K8sObject {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: meta(name, undefined),
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: subjects.map((s) => (s.kind === "ServiceAccount" ? { kind: s.kind, name: s.name, namespace: s.namespace ?? NS } : { apiGroup: "rbac.authorization.k8s.io", kind: s.kind, name: s.name })),
  };
}

/**
 * One replica per node, required: two on one node would not survive that node's loss. Preferred was
 * not enough: the replicas were placed while the first master was the only node and stayed there.
 * With it, a second replica waits (Pending) until another node it may run on registers; the replica
 * count is never more than those nodes (`spreadReplicas`).
 */
export function spreadAcrossNodes(labels: Record<string, string>) {
  return {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: labels } }],
    },
  };
}

/** Two replicas, or one where only one node can run them (a single master). */
export function spreadReplicas(nodes: number): number {
  return Math.max(1, Math.min(2, nodes));
}

export const inClusterKubeconfigVolume = { name: "kubeconfig", configMap: { name: "kubeconfig-in-cluster" } };

export function secretData(ctx: RenderContext, files: Record<string, string>): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [key, assetPath] of Object.entries(files)) {
    const content = ctx.files.get(assetPath);
    if (content === undefined) throw new Error(`render: ${assetPath} is needed before it was rendered`);
    data[secretKey(key)] = Buffer.from(content, "utf8").toString("base64");
  }
  return data;
}

/** Secret keys cannot hold '/': `etcd/ca.crt` is stored as `etcd-ca.crt` and mounted back at its path. */
export const secretKey = (rel: string): string => rel.replace(/\//g, "-");

export function secretVolume(name: string, secretName: string, files: Record<string, string>) {
  return { name, secret: { secretName, defaultMode: 0o600, items: Object.keys(files).map((rel) => ({ key: secretKey(rel), path: rel })) } };
}
