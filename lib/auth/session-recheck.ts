import "server-only";
// Long responses (the Server-Sent Events streams) outlive the request's session check: a user who is
// disabled, deleted or signs out while a stream is open must stop receiving. The stream asks the
// database again before each batch it sends (at most once a second) and every few seconds while idle.
import { getDb } from "../db/client";
import { refreshOidcSession } from "./oidc-refresh";
import { can, type Permission } from "./roles";

export const SESSION_RECHECK_IDLE_MS = 5_000;
export const SESSION_RECHECK_BATCH_MS = 1_000;

/** Whether the session still exists, has not expired, and its user is enabled and still holds `permission`. */
export async function sessionStillAllows({ sessionId, permission }: { sessionId: string; permission: Permission }): Promise<boolean> {
  const read = () =>
    getDb().session.findUnique({ where: { id: sessionId }, select: { expiresAt: true, provider: true, refreshDueAt: true, user: { select: { disabled: true, role: true } } } });
  let s = await read();
  // An identity provider's session due for its check is checked here too, so a stream alone cannot outlive it.
  if (s?.provider === "oidc" && (!s.refreshDueAt || s.refreshDueAt <= new Date())) {
    if (!(await refreshOidcSession({ sessionId }))) return false;
    s = await read();
  }
  return !!s && s.expiresAt > new Date() && !s.user.disabled && can(s.user.role, permission);
}

export type SessionRecheck = {
  /** False once the session no longer allows the stream; asks the database when the last answer is older than `maxAgeMs`. */
  ok(maxAgeMs: number): Promise<boolean>;
};

export function sessionRecheck(check: () => Promise<boolean>): SessionRecheck {
  let checkedAt = Date.now();
  let valid = true;
  let pending: Promise<boolean> | undefined;
  return {
    async ok(maxAgeMs) {
      if (!valid) return false;
      if (Date.now() - checkedAt < maxAgeMs) return true;
      pending ??= check()
        .catch(() => false)
        .then((v) => {
          valid = v;
          checkedAt = Date.now();
          pending = undefined;
          return v;
        });
      return pending;
    },
  };
}
