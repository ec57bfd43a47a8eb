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
};

export async function recordAudit(input: AuditInput): Promise<void> {
  await getDb().auditEvent.create({
    data: {
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
