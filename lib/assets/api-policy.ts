// The API server's policy files beside its authentication and encryption configurations: the audit
// policy (what reaches the audit log every master keeps) and the admission configuration (Pod Security
// Admission's cluster-wide defaults, the events' rate limits). Both are rendered from the definition on
// every render.
import { podSecurityOf, type ClusterDefinition } from "../cluster/definition";
import { toYaml } from "./yaml-out";

export const AUDIT_POLICY_ASSET = "apiserver/audit-policy.yaml";
export const ADMISSION_CONFIG_ASSET = "apiserver/admission-config.yaml";

/**
 * Every API server on a master (self-hosted, checkpoint, static, bootstrap) appends to the same file:
 * each event is one write of one line to a file opened for appending, so they never interleave, and
 * only one of them runs there once the handovers are done.
 */
export const AUDIT_LOG_DIR = "/var/log/kubernetes/audit";
export const AUDIT_LOG = `${AUDIT_LOG_DIR}/audit.log`;
/** Rotation: a file at most 100 MB, 10 kept, none older than 30 days — at most 1.1 GB per master (the CIS benchmark's figures). */
export const AUDIT_LOG_ROTATION = { maxSizeMb: 100, maxBackups: 10, maxAgeDays: 30 } as const;

/**
 * Metadata (who, what, when, from where, the answer's code) for every request, bodies never: a
 * Secret's or a token's body would put credentials in a plain file. Changes to RBAC keep their request
 * body (who was granted what). Left out: the health checks, the events, and the node and leader leases
 * renewed every few seconds, which would make most of the log.
 */
export function auditPolicy(): string {
  return toYaml({
    apiVersion: "audit.k8s.io/v1",
    kind: "Policy",
    omitStages: ["RequestReceived"],
    rules: [
      { level: "None", nonResourceURLs: ["/livez", "/livez/*", "/readyz", "/readyz/*", "/healthz", "/healthz/*", "/version"] },
      { level: "None", resources: [{ group: "", resources: ["events"] }, { group: "events.k8s.io", resources: ["events"] }] },
      { level: "None", verbs: ["get", "update"], resources: [{ group: "coordination.k8s.io", resources: ["leases"] }] },
      {
        level: "Metadata",
        resources: [
          { group: "", resources: ["secrets", "configmaps", "serviceaccounts/token"] },
          { group: "authentication.k8s.io", resources: ["tokenreviews"] },
          { group: "certificates.k8s.io", resources: ["certificatesigningrequests"] },
        ],
      },
      { level: "Request", verbs: ["create", "update", "patch", "delete", "deletecollection"], resources: [{ group: "rbac.authorization.k8s.io" }] },
      { level: "Metadata" },
    ],
  });
}

/**
 * Pod Security Admission's defaults for namespaces without their own labels: the definition's levels
 * (baseline enforced, restricted warned and audited unless it says otherwise). kube-system is exempt:
 * the control plane runs there with the host's network and folders. Namespaces Bootdeck renders that
 * need more (flannel's) say so with their own labels.
 */
export function admissionConfig(def: ClusterDefinition): string {
  const ps = podSecurityOf(def);
  return toYaml({
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "AdmissionConfiguration",
    plugins: [
      {
        name: "PodSecurity",
        configuration: {
          apiVersion: "pod-security.admission.config.k8s.io/v1",
          kind: "PodSecurityConfiguration",
          defaults: { enforce: ps.enforce, "enforce-version": "latest", audit: ps.audit, "audit-version": "latest", warn: ps.warn, "warn-version": "latest" },
          exemptions: { usernames: [], runtimeClasses: [], namespaces: [...new Set(["kube-system", ...ps.exemptNamespaces])].sort() },
        },
      },
      {
        name: "EventRateLimit",
        configuration: { apiVersion: "eventratelimit.admission.k8s.io/v1alpha1", kind: "Configuration", limits: EVENT_RATE_LIMITS },
      },
    ],
  });
}

/**
 * Events past these rates are refused with 429 (their senders drop or retry them): a controller gone
 * wild in one namespace cannot flood etcd with events, and the whole API server has a ceiling. The
 * ceiling is the one RKE sets when it turns the plugin on; the namespace's rate is the example in
 * Kubernetes' admission-controller documentation: far above what a namespace's pods and controllers
 * normally report.
 */
export const EVENT_RATE_LIMITS = [
  { type: "Server", qps: 5000, burst: 20000 },
  { type: "Namespace", qps: 50, burst: 100, cacheSize: 2000 },
] as const;
