import "server-only";
// Notifications about conditions rather than moments: a cluster's first certificate expiring within an
// endpoint's window (looked at every engine process's tick; told once per endpoint and certificate),
// and a backup schedule that failed (told by the schedule when it records the failure). The same tick
// prunes the delivery log.
import { backfillNotAfter } from "../assets/store";
import { deployedClusterIds } from "../clusters/deployed";
import { getDb } from "../db/client";
import { newId } from "../ids";
import { queueNotification } from "../notify/outbox";

const TICK_MS = 15 * 60_000;
const DAY_MS = 86_400_000;

/** Each deployed cluster's soonest certificate expiry, from its newest asset set (what its hosts were given). */
export async function soonestCertificateExpiry(): Promise<Map<string, { name: string; notAfter: Date; assetSetVersion: number }>> {
  const db = getDb();
  const deployed = await deployedClusterIds();
  const sets = await db.assetSet.findMany({ where: { clusterId: { in: [...deployed] } }, orderBy: { version: "desc" }, select: { id: true, clusterId: true, version: true, notAfter: true, cluster: { select: { name: true } } } });
  const out = new Map<string, { name: string; notAfter: Date; assetSetVersion: number }>();
  const seen = new Set<string>();
  for (const s of sets) {
    if (seen.has(s.clusterId)) continue;
    seen.add(s.clusterId);
    const notAfter = s.notAfter ?? (await backfillNotAfter({ assetSetId: s.id }));
    if (notAfter) out.set(s.clusterId, { name: s.cluster.name, notAfter, assetSetVersion: s.version });
  }
  return out;
}

/** Queues certificate.expiring for every endpoint whose window a cluster's first expiry has entered. */
export async function checkCertificateExpiry(now = new Date()): Promise<number> {
  let queued = 0;
  for (const [clusterId, c] of await soonestCertificateExpiry()) {
    const daysLeft = Math.floor((c.notAfter.getTime() - now.getTime()) / DAY_MS);
    const when = daysLeft < 0 ? `expired ${-daysLeft} day${daysLeft === -1 ? "" : "s"} ago` : daysLeft === 0 ? "expires today" : `expires in ${daysLeft} day${daysLeft === 1 ? "" : "s"}`;
    queued += await queueNotification(
      {
        id: newId("evt"),
        type: "certificate.expiring",
        occurredAt: now.toISOString(),
        summary: `a certificate of the cluster ${when} (${c.notAfter.toISOString().slice(0, 10)}): rotate the certificates`,
        cluster: { id: clusterId, name: c.name },
        path: `/clusters/${clusterId}`,
        certificate: { notAfter: c.notAfter.toISOString(), daysLeft, assetSetVersion: c.assetSetVersion },
      },
      { dedupeKey: `certificate:${clusterId}:${c.notAfter.toISOString()}` },
    );
  }
  return queued;
}

/**
 * The schedule recorded a failed scheduled backup (`failed`), or one that could not start because
 * another run held the cluster (`skipped`, told only when it begins a streak: it is tried again every
 * few minutes).
 */
export async function notifyBackupFailing(input: { clusterId: string; outcome: "failed" | "skipped"; error: string; runId: string | null; at?: Date }): Promise<number> {
  const db = getDb();
  const p = await db.backupPolicy.findUnique({ where: { clusterId: input.clusterId }, select: { failures: true, lastSuccessAt: true, cluster: { select: { name: true } } } });
  if (!p) return 0;
  if (input.outcome === "skipped" && p.failures > 1) return 0;
  const at = input.at ?? new Date();
  return queueNotification(
    {
      id: newId("evt"),
      type: "backup.failing",
      occurredAt: at.toISOString(),
      summary: `scheduled backup ${input.outcome === "skipped" ? "could not start" : "failed"}: ${input.error.split("\n")[0]}`,
      cluster: { id: input.clusterId, name: p.cluster.name },
      path: input.runId ? `/clusters/${input.clusterId}/runs/${input.runId}` : `/clusters/${input.clusterId}`,
      backup: { outcome: input.outcome, error: input.error, failures: p.failures, lastSuccessAt: p.lastSuccessAt?.toISOString() ?? null, runId: input.runId },
    },
    { dedupeKey: `backup:${input.clusterId}:${input.runId ?? at.toISOString()}` },
  );
}

/** The delivery log keeps what was delivered or given up for this long. */
export const DELIVERY_LOG_DAYS = 30;

/** Deletes finished deliveries older than the log keeps (their attempts go with them). */
export async function pruneDeliveryLog(now = new Date()): Promise<number> {
  const r = await getDb().webhookDelivery.deleteMany({ where: { status: { in: ["delivered", "failed"] }, createdAt: { lt: new Date(now.getTime() - DELIVERY_LOG_DAYS * DAY_MS) } } });
  return r.count;
}

const holder = globalThis as unknown as { bootdeckNotifyChecks?: NodeJS.Timeout };

/** Starts the certificate check and the log's pruning in this process (once); its timer does not keep the process alive. */
export function startNotificationChecks(): void {
  if (holder.bootdeckNotifyChecks) return;
  const tick = () =>
    void checkCertificateExpiry()
      .then(() => pruneDeliveryLog())
      .catch((err: unknown) => console.error("[bootdeck webhooks] certificate check or delivery log pruning failed:", err));
  holder.bootdeckNotifyChecks = setInterval(tick, TICK_MS);
  holder.bootdeckNotifyChecks.unref();
  tick();
}

export function stopNotificationChecks(): void {
  clearInterval(holder.bootdeckNotifyChecks);
  holder.bootdeckNotifyChecks = undefined;
}
