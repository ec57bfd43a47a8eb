import "server-only";
// Re-pinning a host's SSH key after it legitimately changed (a reinstall). The admin sees the pinned
// fingerprint and the one the host offers now, read by a probe that stops at the key exchange (no
// credential is sent to the host), and confirms that exact fingerprint; it is stored with who confirmed
// it and when. A host that offers another key by then is refused: probe again.
import { z } from "zod";
import type { ClusterDefinition } from "../cluster/definition";
import { getDb } from "../db/client";
import { AppError, conflict, notFound } from "../http/errors";
import { Executor, isSshError, type HostTarget } from "../ssh";
import { hostDiagnosticsParams } from "./diagnostics";
import type { HostKeyProbe } from "./schemas";
import { loadEngineHosts } from "./targets";

export const hostKeyParams = hostDiagnosticsParams;

const fingerprintText = z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, "must be an OpenSSH SHA256 fingerprint (SHA256: and 43 base64 characters)");

/** PUT body: the fingerprint the admin saw offered, the pin they saw replaced (null: none), and their confirmation. */
export const repinHostKeyBody = z.strictObject({
  fingerprint: fingerprintText,
  previous: fingerprintText.nullable(),
  confirm: z.literal(true, { error: "re-pinning a host key needs confirm: true" }),
});

export type { HostKeyProbe } from "./schemas";

/** The key a host offers, read by a connection that refuses every key (so nothing is authenticated). */
export async function readOfferedHostKey(executor: Pick<Executor, "connect">, target: HostTarget): Promise<string> {
  const probe: HostTarget = { ...target, id: `${target.id} (host-key probe)`, hostKey: { pinned: "SHA256:(probe: accept no key)" } };
  try {
    await executor.connect(probe);
  } catch (err) {
    if (isSshError(err) && err.detail.kind === "host-key-changed") return err.detail.offered;
    throw err;
  }
  throw new Error(`${target.id}: the probe connected although it accepts no key`);
}

async function targetOf(clusterId: string, host: string): Promise<{ target: HostTarget; row: { id: string; hostKeyFingerprint: string | null; address: string; sshPort: number } }> {
  const cluster = await getDb().cluster.findUnique({ where: { id: clusterId }, select: { definition: true, hosts: { where: { name: host }, select: { id: true, hostKeyFingerprint: true, address: true, sshPort: true } } } });
  if (!cluster) throw notFound("Cluster");
  const row = cluster.hosts[0];
  if (!row) throw notFound("Host");
  const hosts = await loadEngineHosts({
    clusterId,
    definition: JSON.parse(cluster.definition) as ClusterDefinition,
    purpose: "host-key probe",
    onPinned: async () => undefined,
  });
  const target = hosts.find((h) => h.name === host)?.target;
  if (!target) throw notFound("Host");
  return { target, row };
}

async function probe(target: HostTarget): Promise<string> {
  const executor = new Executor({ connectTimeoutMs: 10_000, retry: { attempts: 2 } });
  try {
    return await readOfferedHostKey(executor, target);
  } catch (err) {
    if (isSshError(err)) throw new AppError(502, "ssh", err.message);
    throw err;
  } finally {
    await executor.close();
  }
}

/** What the host offers now next to what is pinned. */
export async function probeHostKey({ clusterId, host }: { clusterId: string; host: string }): Promise<HostKeyProbe> {
  const { target, row } = await targetOf(clusterId, host);
  const offered = await probe(target);
  return { host, address: row.address, port: row.sshPort, pinned: row.hostKeyFingerprint, offered, matches: row.hostKeyFingerprint === offered };
}

/**
 * Pins `fingerprint` for the host if it is what the host offers now and `previous` is still the pin
 * (a guarded update); refused while a run is in progress on the cluster (its connections use the old pin).
 */
export async function repinHostKey({ clusterId, host, fingerprint, previous, by }: { clusterId: string; host: string; fingerprint: string; previous: string | null; by: string }): Promise<{ previous: string | null; pinned: string }> {
  const cluster = await getDb().cluster.findUnique({ where: { id: clusterId }, select: { activeRunId: true } });
  if (!cluster) throw notFound("Cluster");
  if (cluster.activeRunId) throw conflict(`Run ${cluster.activeRunId} is in progress on this cluster; re-pin when it has finished`);
  const { target, row } = await targetOf(clusterId, host);
  const offered = await probe(target);
  if (offered !== fingerprint) throw conflict(`${host} now offers ${offered}, not the ${fingerprint} you confirmed: probe it again and compare out of band`);
  const r = await getDb().host.updateMany({
    where: { id: row.id, hostKeyFingerprint: previous },
    data: { hostKeyFingerprint: fingerprint, hostKeyConfirmedAt: new Date(), hostKeyConfirmedBy: by },
  });
  if (r.count === 0) throw conflict(`The pinned key of ${host} changed meanwhile (it is ${row.hostKeyFingerprint ?? "none"}); probe again`);
  return { previous, pinned: fingerprint };
}
