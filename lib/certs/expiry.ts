import "server-only";
// Certificate expiry: from the cluster's newest asset set (what Bootdeck rendered and pushed), and the
// certificate a TLS port serves, through the SSH tunnel. Reading the hosts live connects to them as a
// run does, so it is the engine's: lib/engine/cert-expiry.ts.
import { X509Certificate } from "node:crypto";
import tls from "node:tls";
import { getDb } from "../db/client";
import { deployedClusterIds } from "../clusters/deployed";
import type { Executor, HostTarget } from "../ssh";
import { listScheduleHealth } from "../backups/store";
import { EXPIRY_WARNING_DAYS, expiryText, type AssetCertificates, type CertificateRow, type ClusterAlerts } from "./schemas";
import { clusterMustExist } from "../clusters/exists";

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
  await clusterMustExist(clusterId);
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
