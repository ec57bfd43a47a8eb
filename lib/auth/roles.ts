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
  "user:manage": ["admin"],
  "audit:read": ["admin"],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof grants;

export function can(role: string, permission: Permission): boolean {
  return (grants[permission] as readonly string[]).includes(role);
}
