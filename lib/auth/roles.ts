// Roles and what each may do. Browser-safe: the UI hides what the server would refuse anyway.
export const roles = ["admin", "lead", "support"] as const;
export type Role = (typeof roles)[number];

const grants = {
  "cluster:read": ["admin", "lead", "support"],
  "cluster:write": ["admin"],
  "secret:read": ["admin"],
  "run:start": ["admin", "lead"],
  "run:cancel": ["admin", "lead"],
  "run:retry": ["admin", "lead", "support"],
  /** End a stuck run by hand (its worker gone or wedged): admins only, audited. */
  "run:release": ["admin"],
  "host:reset": ["admin"],
  "host:inspect": ["admin", "lead", "support"],
  /** Replace a host's pinned SSH host key after a probe showed the new one: admins only, audited. */
  "host:repin": ["admin"],
  /** An etcd snapshot on demand. */
  "backup:create": ["admin", "lead"],
  /** A stored snapshot's bytes: the whole cluster's state, Secrets included. */
  "backup:download": ["admin"],
  /** Restore from a backup, recover the control plane, rotate certificates. */
  "cluster:recover": ["admin"],
  "user:manage": ["admin"],
  /** Sign-in settings: the identity provider, group-to-role mappings, break-glass accounts, kubeconfig lifetime. */
  "access:manage": ["admin"],
  "audit:read": ["admin"],
  /** Webhook endpoints (their URLs and signing secrets) and their delivery logs. */
  "webhook:manage": ["admin"],
  /** /metrics in the Prometheus format: what the cluster pages show anyway (a scraper uses BOOTDECK_METRICS_TOKEN). */
  "metrics:read": ["admin", "lead", "support"],
  /** A personal kubeconfig for a cluster, for the user's role on it (the API server's RBAC decides what it may do). */
  "kubeconfig:issue": ["admin", "lead", "support"],
  /** Record a conformance or CIS benchmark report run against a cluster (its summary shows on the cluster page). */
  "report:upload": ["admin", "lead"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof grants;

export function can(role: string, permission: Permission): boolean {
  return (grants[permission] as readonly string[]).includes(role);
}

/** What a permission lets a role do, as the end of "Your role may not …". */
export const permissionText: Record<Permission, string> = {
  "cluster:read": "see clusters",
  "cluster:write": "change clusters",
  "secret:read": "read secrets",
  "run:start": "start runs",
  "run:cancel": "cancel runs",
  "run:retry": "retry runs",
  "run:release": "release stuck runs",
  "host:reset": "reset hosts",
  "host:inspect": "inspect hosts",
  "host:repin": "re-pin host keys",
  "backup:create": "back up etcd",
  "backup:download": "download backups",
  "cluster:recover": "restore, recover or rotate the certificates of clusters",
  "user:manage": "manage users",
  "access:manage": "change sign-in settings",
  "audit:read": "read the audit log",
  "webhook:manage": "manage webhooks",
  "metrics:read": "read metrics",
  "kubeconfig:issue": "download personal kubeconfigs",
  "report:upload": "record conformance and benchmark reports",
};

/** The roles that have `permission`, for telling a user who can do what they may not. */
export function rolesWith(permission: Permission): Role[] {
  return roles.filter((r) => can(r, permission));
}
