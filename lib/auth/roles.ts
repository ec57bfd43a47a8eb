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
  "host:reset": ["admin"],
  "host:inspect": ["admin", "lead", "support"],
  /** An etcd snapshot on demand. */
  "backup:create": ["admin", "lead"],
  /** A stored snapshot's bytes: the whole cluster's state, Secrets included. */
  "backup:download": ["admin"],
  /** Restore from a backup, recover the control plane, rotate certificates. */
  "cluster:recover": ["admin"],
  "user:manage": ["admin"],
  "audit:read": ["admin"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof grants;

export function can(role: string, permission: Permission): boolean {
  return (grants[permission] as readonly string[]).includes(role);
}
