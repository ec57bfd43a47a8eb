import "server-only";
// Connection details for the executor, from the stored definition, credentials and pinned keys.
// Secrets are decrypted here, in memory, for the duration of a run only.
import type { ClusterDefinition } from "../cluster/definition";
import { effectiveHost } from "../cluster/derive";
import { getDb } from "../db/client";
import { decryptSecret, secretContexts } from "../secrets/cipher";
import { recordSecretUse } from "../audit/record";
import type { HostTarget, SshAuth } from "../ssh";

export type EngineHost = { id: string; name: string; role: "master" | "worker"; address: string; target: HostTarget };

export async function loadEngineHosts(params: {
  clusterId: string;
  /** The run the secrets are decrypted for (or, without one, the purpose); each credential's use is written to the audit log. */
  runId?: string;
  purpose?: string;
  /** False when the caller already recorded this use (a live view reconnecting): no audit row again. */
  auditSecretUse?: boolean;
  definition: ClusterDefinition;
  onPinned: (host: { id: string; name: string }, fingerprint: string) => Promise<void>;
}): Promise<EngineHost[]> {
  const db = getDb();
  const [rows, credentials] = await Promise.all([
    db.host.findMany({ where: { clusterId: params.clusterId }, orderBy: { position: "asc" } }),
    db.credential.findMany({ where: { clusterId: params.clusterId } }),
  ]);
  // Only what SSH uses: the hosts' and bastions' credentials (a registry's password is read, and its
  // use recorded, by the runtime step that needs it).
  const effective = params.definition.spec.hosts.map((h) => effectiveHost(params.definition, h));
  const forSsh = new Set(effective.flatMap((e) => [e.credential, e.bastion ? (e.bastion.credential ?? e.credential) : undefined]).filter((n): n is string => !!n));
  const auth = new Map<string, SshAuth>();
  for (const c of credentials.filter((x) => forSsh.has(x.name))) {
    if (c.secretCipher && params.auditSecretUse !== false) await recordSecretUse({ credentialId: c.id, credentialName: c.name, clusterId: params.clusterId, runId: params.runId, purpose: params.purpose ?? "ssh" });
    if (c.kind === "agent") auth.set(c.name, { kind: "agent" });
    else if (c.kind === "password" && c.secretCipher) auth.set(c.name, { kind: "password", password: decryptSecret(c.secretCipher, secretContexts.credential(c.clusterId, c.name, "secretCipher")) });
    else if (c.secretCipher)
      auth.set(c.name, { kind: "key", privateKey: decryptSecret(c.secretCipher, secretContexts.credential(c.clusterId, c.name, "secretCipher")),
        ...(c.passphraseCipher ? { passphrase: decryptSecret(c.passphraseCipher, secretContexts.credential(c.clusterId, c.name, "passphraseCipher")) } : {}),
      });
  }
  const authFor = (name: string | undefined, host: string): SshAuth => {
    const a = name ? auth.get(name) : undefined;
    if (!a) throw new Error(`host ${host} has no usable credential${name ? ` ("${name}" has no stored secret)` : ""}: edit the cluster and give one`);
    return a;
  };
  const byName = new Map(rows.map((r) => [r.name, r]));
  return params.definition.spec.hosts.map((h) => {
    const e = effectiveHost(params.definition, h);
    const row = byName.get(e.name);
    if (!row) throw new Error(`host ${e.name} is in the definition but not in the database; save the cluster again`);
    const hostKey = {
      pinned: row.hostKeyFingerprint ?? undefined,
      onFirstContact: (fp: string) => params.onPinned({ id: row.id, name: row.name }, fp),
    };
    const bastion: HostTarget | undefined = e.bastion
      ? {
          id: `${e.name}-bastion`,
          address: e.bastion.address,
          port: e.bastion.port,
          user: e.bastion.user ?? e.user,
          auth: authFor(e.bastion.credential ?? e.credential, `${e.name}'s bastion`),
          // The bastion's key is trusted on first use per run; pinning bastions is a follow-up.
          hostKey: {},
        }
      : undefined;
    return {
      id: row.id,
      name: e.name,
      role: e.role,
      address: e.address,
      target: { id: e.name, address: e.address, port: e.port, user: e.user, auth: authFor(e.credential, e.name), hostKey, ...(bastion ? { bastion } : {}) },
    };
  });
}
