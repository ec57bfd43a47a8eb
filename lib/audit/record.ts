import "server-only";
// The append-only audit trail: who did what, to what, from where. Rows are only ever inserted.
import { getDb } from "../db/client";

export type AuditInput = {
  action: string;
  userId?: string;
  username?: string;
  target?: string;
  ip?: string;
  details?: Record<string, unknown>;
  /** Who acted as their provider names them; found from the user's account when not given. */
  provider?: string;
  subject?: string;
};

/**
 * The provider and subject of an actor: an identity provider's issuer and `sub`, or "local" and the
 * account's id. Someone who named no account (a failed local sign-in) is "local" without a subject.
 */
async function actorIdentity(input: AuditInput): Promise<{ provider: string | null; subject: string | null }> {
  if (input.provider) return { provider: input.provider, subject: input.subject ?? null };
  if (input.userId) {
    const u = await getDb().user.findUnique({ where: { id: input.userId }, select: { authProvider: true, oidcIssuer: true, oidcSubject: true } });
    if (u?.authProvider === "oidc" && u.oidcIssuer) return { provider: u.oidcIssuer, subject: u.oidcSubject };
    return { provider: "local", subject: input.userId };
  }
  return { provider: input.username ? "local" : null, subject: null };
}

export async function recordAudit(input: AuditInput): Promise<void> {
  const who = await actorIdentity(input);
  await getDb().auditEvent.create({
    data: {
      provider: who.provider?.slice(0, 512),
      subject: who.subject?.slice(0, 256),
      action: input.action,
      userId: input.userId,
      username: input.username,
      target: input.target,
      ip: input.ip?.slice(0, 64),
      details: JSON.stringify(input.details ?? {}),
    },
  });
}

/**
 * Secret use: which run (or action) opened which stored credential. Call it where a credential is
 * decrypted for use (the engine, before it connects), never with the secret itself.
 */
export async function recordSecretUse(input: { credentialId: string; credentialName: string; clusterId: string; runId?: string; purpose: string; userId?: string; username?: string }): Promise<void> {
  await recordAudit({
    action: "secret.use",
    userId: input.userId,
    username: input.username,
    target: input.credentialId,
    details: { credential: input.credentialName, clusterId: input.clusterId, runId: input.runId, purpose: input.purpose },
  });
}
