import "server-only";
// Certificates read live from the hosts: the files the control plane and kubelets use, and what the API
// servers, etcd members and kubelets actually serve on their ports (a TLS handshake through the SSH
// tunnel, as the engine reaches the API). Read-only; nothing on a host changes. The rows and the
// parsing are lib/certs'.
import type { ClusterDefinition } from "../cluster/definition";
import { getDb } from "../db/client";
import { AppError, notFound } from "../http/errors";
import { Executor, isSshError } from "../ssh";
import { certificateRow, servedCertificate } from "../certs/expiry";
import { liveCertificateFiles, liveCertificatesArgv, parseCertFiles } from "../certs/files";
import type { CertificateRow, LiveCertificates } from "../certs/schemas";
import { assetContent } from "../assets/store";
import { loadEngineHosts, type EngineHost } from "./targets";

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
