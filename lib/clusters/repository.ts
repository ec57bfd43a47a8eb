import "server-only";
// Cluster definitions in the database: the validated document, its hosts' state rows, and its
// credentials with their secrets encrypted. Every write validates first; nothing invalid is saved.
import { parseSetOptions } from "../assets/set-options";
import { validateClusterDefinition, type ClusterDefinition, type Problem } from "../cluster/definition";
import { effectiveHost } from "../cluster/derive";
import { getDb } from "../db/client";
import { CHANGING_RUN_TYPES } from "../db/running-asset-set";
import { AppError, ValidationError, conflict, notFound } from "../http/errors";
import { newId } from "../ids";
import { encryptSecret, secretContexts } from "../secrets/cipher";
import { checkPrivateKey } from "../ssh/private-key";
import type { CredentialSecrets } from "./schemas";

export type ClusterSummary = {
  id: string;
  name: string;
  kubernetesVersion: string;
  masters: number;
  workers: number;
  updatedAt: string;
  createdAt: string;
};

export type CredentialView = { name: string; type: string; fingerprint: string | null; hasSecret: boolean };

export type ClusterView = ClusterSummary & {
  definition: ClusterDefinition;
  credentials: CredentialView[];
  hosts: { id: string; name: string; address: string; sshPort: number; role: string; hostKeyFingerprint: string | null }[];
};

export async function listClusters(): Promise<ClusterSummary[]> {
  const rows = await getDb().cluster.findMany({
    orderBy: { name: "asc" },
    include: { hosts: { select: { role: true } } },
  });
  return rows.map((c) => summarize(c, c.hosts));
}

export async function getClusterOrThrow({ id }: { id: string }): Promise<ClusterView> {
  const c = await getDb().cluster.findUnique({
    where: { id },
    include: { hosts: { orderBy: { position: "asc" } }, credentials: { orderBy: { name: "asc" } } },
  });
  if (!c) throw notFound("Cluster");
  const definition = JSON.parse(c.definition) as ClusterDefinition;
  // A host a removal run took out of the definition keeps its row (its runs still name it) until the next edit.
  const hosts = c.hosts.filter((h) => definition.spec.hosts.some((d) => d.name === h.name));
  return {
    ...summarize(c, hosts),
    definition,
    credentials: c.credentials.map((cr) => ({
      name: cr.name,
      type: cr.kind,
      fingerprint: cr.fingerprint,
      hasSecret: cr.kind === "agent" || cr.secretCipher !== null,
    })),
    hosts: hosts.map((h) => ({ id: h.id, name: h.name, address: h.address, sshPort: h.sshPort, role: h.role, hostKeyFingerprint: h.hostKeyFingerprint })),
  };
}

export async function findClusterIdByName({ name }: { name: string }): Promise<string | undefined> {
  return (await getDb().cluster.findUnique({ where: { name }, select: { id: true } }))?.id;
}

/** The definition as cluster.yaml shows it: credentials carry fingerprints, never secrets. */
export async function getExportableDefinition({ id }: { id: string }): Promise<ClusterDefinition> {
  const view = await getClusterOrThrow({ id });
  const byName = new Map(view.credentials.map((c) => [c.name, c]));
  return {
    ...view.definition,
    spec: {
      ...view.definition.spec,
      credentials: view.definition.spec.credentials.map((c) => {
        const stored = byName.get(c.name);
        return stored?.fingerprint ? { ...c, fingerprint: stored.fingerprint } : c;
      }),
    },
  };
}

export async function createCluster(input: { definition: unknown; secrets: CredentialSecrets }): Promise<{ id: string; warnings: Problem[] }> {
  const { definition, warnings } = validateOrThrow(input.definition);
  const id = newId("cl");
  const sealed = sealSecrets(id, definition, input.secrets, new Map());
  try {
    await getDb().$transaction(async (tx) => {
      await tx.cluster.create({
        data: { id, name: definition.metadata.name, kubernetesVersion: definition.spec.kubernetes.version, definition: JSON.stringify(definition) },
      });
      for (const c of sealed) await tx.credential.create({ data: { id: newId("cred"), clusterId: id, ...c } });
      await tx.host.createMany({ data: hostRows(definition).map((h) => ({ id: newId("host"), clusterId: id, ...h })) });
    });
  } catch (err) {
    throw uniqueNameConflict(err, definition.metadata.name);
  }
  return { id, warnings };
}

/**
 * What an update did to the hosts' pinned SSH keys, so that it is never silent: a pin is kept when
 * the host keeps its address and port, and cleared when it moved (another machine answers there: the
 * next run trusts and records the key it is offered, or an admin re-pins it after a probe).
 */
export type HostKeyChanges = {
  kept: { host: string; fingerprint: string }[];
  cleared: { host: string; fingerprint: string; from: string; to: string }[];
  removed: { host: string; fingerprint: string }[];
};

export async function updateCluster(input: { id: string; definition: unknown; secrets: CredentialSecrets }): Promise<{ warnings: Problem[]; hostKeys: HostKeyChanges }> {
  const { definition, warnings } = validateOrThrow(input.definition);
  const db = getDb();
  const existing = await db.cluster.findUnique({ where: { id: input.id }, include: { hosts: true, credentials: true } });
  if (!existing) throw notFound("Cluster");
  if (existing.activeRunId) throw conflict("A run is in progress on this cluster; wait for it to finish or cancel it before editing");
  const algorithmChange = await refusedAlgorithmChange(input.id, definition);
  if (algorithmChange) throw new ValidationError([algorithmChange], warnings);
  const sealed = sealSecrets(input.id, definition, input.secrets, new Map(existing.credentials.map((c) => [c.name, c])));
  const hostKeys: HostKeyChanges = { kept: [], cleared: [], removed: [] };
  {
    const next = new Map(hostRows(definition).map((r) => [r.name, r]));
    for (const h of existing.hosts) {
      if (!h.hostKeyFingerprint) continue;
      const r = next.get(h.name);
      if (!r) hostKeys.removed.push({ host: h.name, fingerprint: h.hostKeyFingerprint });
      else if (r.address !== h.address || r.sshPort !== h.sshPort) hostKeys.cleared.push({ host: h.name, fingerprint: h.hostKeyFingerprint, from: `${h.address}:${h.sshPort}`, to: `${r.address}:${r.sshPort}` });
      else hostKeys.kept.push({ host: h.name, fingerprint: h.hostKeyFingerprint });
    }
  }
  try {
    await db.$transaction(async (tx) => {
      // Guarded: no run may have started since the check above. The revision counts edits; runs planned
      // at an earlier one are stale (they can be neither started nor retried; plan again).
      const saved = await tx.cluster.updateMany({
        where: { id: input.id, activeRunId: null, revision: existing.revision },
        data: { name: definition.metadata.name, kubernetesVersion: definition.spec.kubernetes.version, definition: JSON.stringify(definition), revision: { increment: 1 } },
      });
      if (saved.count === 0) throw conflict("A run started on this cluster, or someone else saved it, meanwhile; reload and try again");
      await tx.credential.deleteMany({ where: { clusterId: input.id, name: { notIn: sealed.map((c) => c.name) } } });
      for (const c of sealed)
        await tx.credential.upsert({
          where: { clusterId_name: { clusterId: input.id, name: c.name } },
          create: { id: newId("cred"), clusterId: input.id, ...c },
          update: c,
        });
      // Hosts keep their state by name; a host that moved to another address is another machine,
      // so its pinned host key is dropped and will be confirmed again.
      const rows = hostRows(definition);
      const old = new Map(existing.hosts.map((h) => [h.name, h]));
      await tx.host.deleteMany({ where: { clusterId: input.id, name: { notIn: rows.map((r) => r.name) } } });
      for (const r of rows) {
        const prev = old.get(r.name);
        if (!prev) await tx.host.create({ data: { id: newId("host"), clusterId: input.id, ...r } });
        else {
          const moved = prev.address !== r.address || prev.sshPort !== r.sshPort;
          await tx.host.update({
            where: { id: prev.id },
            data: { ...r, ...(moved ? { hostKeyFingerprint: null, hostKeyConfirmedAt: null, hostKeyConfirmedBy: null, facts: null } : {}) },
          });
        }
      }
    });
  } catch (err) {
    throw uniqueNameConflict(err, definition.metadata.name);
  }
  return { warnings, hostKeys };
}

/** The host-key changes of an update, one line each, as the CLI prints them and the audit log keeps them. */
export function describeHostKeyChanges(c: HostKeyChanges, cluster: string): string[] {
  return [
    ...c.cleared.map((x) => `host key of ${x.host} cleared: it moved from ${x.from} to ${x.to} (was ${x.fingerprint}); the next run trusts and records the key it is offered there. Check it in that run's log, or re-pin it now: bootdeck host repin ${cluster} ${x.host}`),
    ...c.removed.map((x) => `host key of ${x.host} removed with the host (was ${x.fingerprint})`),
    ...(c.kept.length ? [`host keys kept (address and port unchanged): ${c.kept.map((x) => `${x.host} ${x.fingerprint}`).join(", ")}`] : []),
  ];
}

export async function deleteCluster({ id, confirmName }: { id: string; confirmName: string }): Promise<void> {
  const c = await getDb().cluster.findUnique({ where: { id }, select: { name: true, activeRunId: true } });
  if (!c) throw notFound("Cluster");
  if (confirmName !== c.name) throw new ValidationError([{ path: "confirmName", message: `type the cluster's name, ${c.name}, to confirm` }]);
  if (c.activeRunId) throw conflict("A run is in progress on this cluster; cancel it before deleting");
  await getDb().cluster.delete({ where: { id } });
}

// ---- helpers ----

/**
 * A definition may not move a running cluster to another key algorithm: that needs new CAs, and the
 * certificate rotation keeps them (docs/cluster-yaml.md, "Key algorithm"). Running: a run that changes
 * hosts has pushed an asset set, and no reset came after it. An unset algorithm keeps the cluster's.
 */
async function refusedAlgorithmChange(clusterId: string, definition: ClusterDefinition): Promise<Problem | undefined> {
  const asked = definition.spec.pki?.encryptionAlgorithm;
  if (!asked) return undefined;
  const run = await getDb().run.findFirst({
    where: { clusterId, type: { in: [...CHANGING_RUN_TYPES, "reset"] }, status: { not: "planned" }, assetSetId: { not: null } },
    orderBy: { createdAt: "desc" },
    select: { type: true, status: true, assetSet: { select: { version: true, options: true } } },
  });
  if (!run?.assetSet || (run.type === "reset" && run.status === "succeeded")) return undefined;
  const running = parseSetOptions(run.assetSet.options).encryptionAlgorithm;
  if (running === asked) return undefined;
  return {
    path: "spec.pki.encryptionAlgorithm",
    message: `the cluster runs ${running} keys (asset set v${run.assetSet.version}); ${asked} needs new CAs, and a certificate rotation keeps the CAs: keep ${running} (or leave the field out), or reset the cluster and bootstrap it again with ${asked}`,
  };
}

function validateOrThrow(input: unknown): { definition: ClusterDefinition; warnings: Problem[] } {
  const result = validateClusterDefinition(input);
  if (!result.ok) throw new ValidationError(result.errors, result.warnings);
  return { definition: result.definition, warnings: result.warnings };
}

function summarize(c: { id: string; name: string; kubernetesVersion: string; createdAt: Date; updatedAt: Date }, hosts: { role: string }[]): ClusterSummary {
  const masters = hosts.filter((h) => h.role === "master").length;
  return {
    id: c.id,
    name: c.name,
    kubernetesVersion: c.kubernetesVersion,
    masters,
    workers: hosts.length - masters,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

function hostRows(def: ClusterDefinition) {
  return def.spec.hosts.map((h, position) => {
    const e = effectiveHost(def, h);
    return { position, name: e.name, address: e.address, sshPort: e.port, role: e.role };
  });
}

type StoredCredential = { kind: string; secretCipher: string | null; passphraseCipher: string | null; fingerprint: string | null };
type SealedCredential = { name: string; kind: string; secretCipher: string | null; passphraseCipher: string | null; fingerprint: string | null };

/**
 * Checks each credential's secret and encrypts it. A credential given no new secret keeps the one
 * stored under its name (so cluster.yaml, which never holds secrets, can be re-imported).
 */
function sealSecrets(clusterId: string, def: ClusterDefinition, secrets: CredentialSecrets, stored: Map<string, StoredCredential>): SealedCredential[] {
  // Each secret is sealed for its row (the cluster's credential of that name) and field.
  const seal = (name: string, field: "secretCipher" | "passphraseCipher", plain: string) => encryptSecret(plain, secretContexts.credential(clusterId, name, field));
  const errors: Problem[] = [];
  const declared = new Set(def.spec.credentials.map((c) => c.name));
  for (const name of Object.keys(secrets))
    if (!declared.has(name)) errors.push({ path: `secrets.${name}`, message: "is a secret for a credential the definition does not declare" });
  const sealed = def.spec.credentials.map((c): SealedCredential => {
    const s = secrets[c.name] ?? {};
    const prev = stored.get(c.name);
    const keep = prev && prev.kind === c.type ? prev : undefined;
    const path = `secrets.${c.name}`;
    if (c.type === "agent") return { name: c.name, kind: c.type, secretCipher: null, passphraseCipher: null, fingerprint: null };
    if (c.type === "password") {
      if (s.password) return { name: c.name, kind: c.type, secretCipher: seal(c.name, "secretCipher", s.password), passphraseCipher: null, fingerprint: null };
      if (keep?.secretCipher) return { name: c.name, kind: c.type, secretCipher: keep.secretCipher, passphraseCipher: null, fingerprint: null };
      errors.push({ path: `${path}.password`, message: "is required for a password credential" });
      return { name: c.name, kind: c.type, secretCipher: null, passphraseCipher: null, fingerprint: null };
    }
    if (s.privateKey) {
      const check = checkPrivateKey(s.privateKey, s.passphrase);
      if (!check.ok) {
        errors.push({ path: `${path}.${/passphrase/.test(check.reason) ? "passphrase" : "privateKey"}`, message: check.reason });
        return { name: c.name, kind: c.type, secretCipher: null, passphraseCipher: null, fingerprint: null };
      }
      return {
        name: c.name,
        kind: c.type,
        secretCipher: seal(c.name, "secretCipher", s.privateKey),
        passphraseCipher: s.passphrase ? seal(c.name, "passphraseCipher", s.passphrase) : null,
        fingerprint: check.fingerprint,
      };
    }
    if (keep?.secretCipher) return { name: c.name, kind: c.type, secretCipher: keep.secretCipher, passphraseCipher: keep.passphraseCipher, fingerprint: keep.fingerprint };
    errors.push({ path: `${path}.privateKey`, message: "is required: paste or upload the private key" });
    return { name: c.name, kind: c.type, secretCipher: null, passphraseCipher: null, fingerprint: null };
  });
  if (errors.length) throw new ValidationError(errors);
  return sealed;
}

function uniqueNameConflict(err: unknown, name: string): unknown {
  if (err && typeof err === "object" && "code" in err && (err as { code: string }).code === "P2002")
    return new AppError(409, "name_taken", `A cluster named "${name}" already exists`, {
      errors: [{ path: "metadata.name", message: `a cluster named "${name}" already exists` }],
      warnings: [],
    });
  return err;
}
