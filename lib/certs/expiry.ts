import "server-only";
// Certificate expiry: from the cluster's newest asset set (what Bootdeck rendered and pushed), and read
// live from the hosts — the files the control plane and kubelets use, and what the API servers, etcd
// members and kubelets actually serve on their ports (a TLS handshake through the SSH tunnel, as the
// engine reaches the API). Read-only; nothing on a host changes.
import { X509Certificate } from "node:crypto";
import tls from "node:tls";
import type { ClusterDefinition } from "../cluster/definition";
import { getDb } from "../db/client";
import { deployedClusterIds } from "../clusters/deployed";
import { AppError, notFound } from "../http/errors";
import { Executor, isSshError, type HostTarget } from "../ssh";
import { liveCertificateFiles, liveCertificatesArgv, parseCertFiles } from "./files";
import { listScheduleHealth } from "../backups/store";
import { loadEngineHosts, type EngineHost } from "../engine/targets";
import { EXPIRY_WARNING_DAYS, expiryText, type AssetCertificates, type CertificateRow, type ClusterAlerts, type LiveCertificates } from "./schemas";
import { assetContent } from "../assets/store";

export function certificateRow(pem: string | Buffer, at: { source: string; host: string | null; what: string }, now = new Date()): CertificateRow {
  const c = new X509Certificate(pem);
  const notAfter = new Date(c.validTo);
  const daysLeft = Math.floor((notAfter.getTime() - now.getTime()) / 86_400_000);
  const dn = (s: string) => s.split("\n").filter(Boolean).join(", ");
  return { ...at, subject: dn(c.subject), issuer: dn(c.issuer), serial: c.serialNumber, notAfter: notAfter.toISOString(), daysLeft, warn: daysLeft < EXPIRY_WARNING_DAYS };
}

async function latestCertificateAssets(clusterIds: string[]): Promise<Map<string, { version: number; certs: { path: string; purpose: string; content: string }[] }>> {
  const db = getDb();
  const sets = await db.assetSet.findMany({ where: { clusterId: { in: clusterIds } }, orderBy: { version: "desc" }, select: { id: true, clusterId: true, version: true } });
  const newest = new Map<string, { id: string; version: number }>();
  for (const s of sets) if (!newest.has(s.clusterId)) newest.set(s.clusterId, s);
  const rows = await db.asset.findMany({ where: { assetSetId: { in: [...newest.values()].map((s) => s.id) }, path: { endsWith: ".crt" }, sensitive: false }, select: { assetSetId: true, path: true, purpose: true, content: true } });
  const out = new Map<string, { version: number; certs: { path: string; purpose: string; content: string }[] }>();
  for (const [clusterId, s] of newest) out.set(clusterId, { version: s.version, certs: rows.filter((r) => r.assetSetId === s.id && !r.path.startsWith("runtime/")) });
  return out;
}

/** Every certificate of the newest asset set, soonest expiry first. */
export async function assetCertificates({ clusterId }: { clusterId: string }): Promise<AssetCertificates> {
  if (!(await getDb().cluster.findUnique({ where: { id: clusterId }, select: { id: true } }))) throw notFound("Cluster");
  const set = (await latestCertificateAssets([clusterId])).get(clusterId);
  const rows = (set?.certs ?? []).map((c) => certificateRow(c.content, { source: c.path, host: null, what: c.purpose }));
  return { assetSetVersion: set?.version ?? null, rows: rows.sort((a, b) => a.daysLeft - b.daysLeft) };
}

/** For the cluster list: each cluster's failing backup schedule and its soonest certificate ending within the warning window. */
export async function clusterAlerts(): Promise<ClusterAlerts> {
  // Only a deployed cluster's certificates are on hosts and can run out.
  const ids = [...(await deployedClusterIds())];
  const [sets, schedules] = await Promise.all([latestCertificateAssets(ids), listScheduleHealth()]);
  const out: ClusterAlerts = {};
  for (const id of ids) {
    const a: ClusterAlerts[string] = {};
    const health = schedules.get(id);
    if (health?.state === "failing") a.backup = `backups failing: ${health.message}`;
    const soonest = (sets.get(id)?.certs ?? []).map((c) => certificateRow(c.content, { source: c.path, host: null, what: c.purpose })).sort((x, y) => x.daysLeft - y.daysLeft)[0];
    if (soonest?.warn) a.certificates = `${soonest.source} ${expiryText(soonest.daysLeft)}`;
    if (a.backup || a.certificates) out[id] = a;
  }
  return out;
}

/** The certificate a TLS server presents on address:port, reached through the host's SSH connection. */
export async function servedCertificate(executor: Pick<Executor, "forward">, via: HostTarget, address: string, port: number, client?: { cert: string; key: string }, timeoutMs = 10_000): Promise<Buffer> {
  const stream = await executor.forward(via, address, port);
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ socket: stream as never, rejectUnauthorized: false, ...(client ?? {}) });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no TLS handshake from ${address}:${port} within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      const raw = socket.getPeerCertificate(false)?.raw;
      socket.destroy();
      if (raw) resolve(raw);
      else reject(new Error(`${address}:${port} presented no certificate`));
    });
    socket.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/**
 * What one host serves and holds, as certificate rows; an unreachable part becomes an error line. A run
 * passes the command its plan carries (`filesArgv`, liveCertificatesArgv) and its step.
 */
export async function readHostCertificates(
  executor: Pick<Executor, "run" | "forward">,
  def: ClusterDefinition,
  host: EngineHost,
  etcdClient?: { cert: string; key: string },
  opts: { filesArgv?: string[]; step?: string } = {},
): Promise<{ rows: CertificateRow[]; errors: string[] }> {
  const rows: CertificateRow[] = [];
  const errors: string[] = [];
  const files = liveCertificateFiles(def, host.role);
  try {
    const r = await executor.run(host.target, opts.filesArgv ?? liveCertificatesArgv(def, host.role), { step: opts.step ?? "certificates", quiet: true, timeoutMs: 20_000 });
    const found = parseCertFiles(r.stdout.toString("utf8"));
    for (const f of files) {
      const pem = found.get(f.path);
      if (pem) rows.push(certificateRow(pem, { source: f.path, host: host.name, what: f.what }));
    }
  } catch (err) {
    errors.push(`files: ${err instanceof Error ? err.message : String(err)}`);
  }
  const ports: { port: number; what: string; client?: { cert: string; key: string } }[] = [{ port: 10250, what: "kubelet serving (TLS)" }];
  if (host.role === "master") ports.push({ port: def.spec.apiEndpoint.port, what: "API server serving (TLS)" }, { port: 2379, what: "etcd client port serving (TLS)", client: etcdClient });
  for (const p of ports) {
    try {
      rows.push(certificateRow(await servedCertificate(executor, host.target, host.address, p.port, p.client), { source: `${host.address}:${p.port}`, host: host.name, what: p.what }));
    } catch (err) {
      errors.push(`${p.what} on :${p.port}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { rows, errors };
}

/** Every host's certificates, read now. */
export async function readLiveCertificates({ clusterId }: { clusterId: string }): Promise<LiveCertificates> {
  const db = getDb();
  const cluster = await db.cluster.findUnique({ where: { id: clusterId }, select: { definition: true, hosts: { select: { name: true, hostKeyFingerprint: true } } } });
  if (!cluster) throw notFound("Cluster");
  if (cluster.hosts.some((h) => !h.hostKeyFingerprint)) throw new AppError(409, "conflict", "Some host keys are not pinned yet: run a check of the cluster first");
  const definition = JSON.parse(cluster.definition) as ClusterDefinition;
  const etcdClient = await etcdClientCredentials(clusterId);
  const executor = new Executor({ connectTimeoutMs: 10_000, retry: { attempts: 2 } });
  try {
    const hosts = await loadEngineHosts({
      clusterId,
      definition,
      purpose: "certificates",
      onPinned: async (h) => {
        throw new Error(`the host key of ${h.name} is not pinned yet: run a check of the cluster first`);
      },
    });
    const at = new Date().toISOString();
    const results = await Promise.all(hosts.map(async (h) => ({ host: h.name, ...(await readHostCertificates(executor, definition, h, etcdClient)) })));
    return {
      at,
      rows: results.flatMap((r) => r.rows).sort((a, b) => a.daysLeft - b.daysLeft),
      errors: results.flatMap((r) => r.errors.map((e) => ({ host: r.host, error: executor.redactor.redact(e) }))),
    };
  } catch (err) {
    if (isSshError(err)) throw new AppError(502, "ssh", executor.redactor.redact(err.message));
    throw err;
  } finally {
    await executor.close();
  }
}

/** The API server's etcd client pair from the newest asset set: etcd asks for a client certificate before it shows its own. */
async function etcdClientCredentials(clusterId: string): Promise<{ cert: string; key: string } | undefined> {
  const db = getDb();
  const set = await db.assetSet.findFirst({ where: { clusterId }, orderBy: { version: "desc" }, select: { id: true } });
  if (!set) return undefined;
  const rows = await db.asset.findMany({ where: { assetSetId: set.id, path: { in: ["tls/etcd-client.crt", "tls/etcd-client.key"] } }, select: { id: true, path: true, content: true, sensitive: true } });
  const get = (p: string) => rows.find((r) => r.path === p);
  const cert = get("tls/etcd-client.crt");
  const key = get("tls/etcd-client.key");
  if (!cert || !key) return undefined;
  return { cert: cert.content, key: assetContent(key) };
}
