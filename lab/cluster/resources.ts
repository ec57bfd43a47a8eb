// The resources the API server stand-in serves, with what discovery needs to tell kubectl about them.
// CRDs add entries at run time (see ApiServer.refreshCrds).

export type Resource = {
  group: string; // "" for the core group
  version: string;
  kind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  subresources?: string[];
  /** Older group/versions that serve the same objects (e.g. extensions/v1beta1 DaemonSets for 1.5-era manifests). */
  aliases?: { group: string; version: string }[];
  /** Where the objects live in etcd, under /registry/. */
  storage: string;
};

const r = (group: string, version: string, kind: string, plural: string, namespaced: boolean, extra: Partial<Resource> = {}): Resource => ({
  group,
  version,
  kind,
  plural,
  singular: kind.toLowerCase(),
  namespaced,
  storage: group === "" || group === "apps" || group === "policy" ? plural : `${group}/${plural}`,
  ...extra,
});

export const BUILTIN_RESOURCES: Resource[] = [
  r("", "v1", "Namespace", "namespaces", false, { shortNames: ["ns"], subresources: ["status", "finalize"] }),
  r("", "v1", "Node", "nodes", false, { shortNames: ["no"], subresources: ["status", "proxy"], storage: "minions" }),
  r("", "v1", "Pod", "pods", true, { shortNames: ["po"], subresources: ["status", "binding", "log", "eviction"] }),
  r("", "v1", "Binding", "bindings", true),
  r("", "v1", "Service", "services", true, { shortNames: ["svc"], subresources: ["status"], storage: "services/specs" }),
  r("", "v1", "Endpoints", "endpoints", true, { shortNames: ["ep"], storage: "services/endpoints" }),
  r("", "v1", "ConfigMap", "configmaps", true, { shortNames: ["cm"] }),
  r("", "v1", "Secret", "secrets", true),
  r("", "v1", "ServiceAccount", "serviceaccounts", true, { shortNames: ["sa"], subresources: ["token"] }),
  r("", "v1", "Event", "events", true, { shortNames: ["ev"] }),
  r("apps", "v1", "DaemonSet", "daemonsets", true, { shortNames: ["ds"], subresources: ["status"], aliases: [{ group: "extensions", version: "v1beta1" }] }),
  r("apps", "v1", "Deployment", "deployments", true, { shortNames: ["deploy"], subresources: ["status", "scale"], aliases: [{ group: "extensions", version: "v1beta1" }] }),
  r("apps", "v1", "ReplicaSet", "replicasets", true, { shortNames: ["rs"], subresources: ["status", "scale"], aliases: [{ group: "extensions", version: "v1beta1" }] }),
  r("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true, { shortNames: ["pdb"], subresources: ["status"], aliases: [{ group: "policy", version: "v1beta1" }] }),
  r("rbac.authorization.k8s.io", "v1", "Role", "roles", true, { storage: "roles" }),
  r("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true, { storage: "rolebindings" }),
  r("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false, { storage: "clusterroles" }),
  r("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false, { storage: "clusterrolebindings" }),
  r("certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", false, {
    shortNames: ["csr"],
    subresources: ["status", "approval"],
    storage: "certificatesigningrequests",
  }),
  r("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", false, {
    shortNames: ["crd", "crds"],
    subresources: ["status"],
    storage: "apiextensions.k8s.io/customresourcedefinitions",
  }),
  r("coordination.k8s.io", "v1", "Lease", "leases", true, { storage: "leases" }),
];

export const groupVersion = (res: { group: string; version: string }) => (res.group ? `${res.group}/${res.version}` : res.version);

/** Kinds whose `status` may only change through the status subresource (spec through the main resource). */
export const HAS_STATUS_SUBRESOURCE = new Set(["nodes", "pods", "services", "daemonsets", "deployments", "replicasets", "poddisruptionbudgets", "namespaces", "certificatesigningrequests", "customresourcedefinitions"]);
