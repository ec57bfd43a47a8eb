import "server-only";
// The fleet list: every cluster with what tells its health at a glance — nodes Ready as the live view
// last saw them (with when), the last run and its result, the earliest certificate expiry of its
// latest asset set, and its newest etcd backup with the schedule it answers to. A fixed number of
// queries whatever the cluster count (no query per cluster), so the list stays fast at a few hundred
// clusters (e2e/ui.spec.ts measures 200).
import { getDb } from "../db/client";
import { backfillNotAfter } from "../assets/store";
import { deployedClusterIds } from "./deployed";
import type { ClusterSummary } from "./repository";

export type FleetRow = ClusterSummary & {
  /** A run is in progress (the cluster's one-run lock). */
  busy: boolean;
  /** As the live view (pods and nodes) last saw them; null when it never watched this cluster. */
  nodes: { ready: number; total: number; seenAt: string } | null;
  lastRun: { id: string; type: string; status: string; at: string; outcome: string | null } | null;
  /** A run other than a check succeeded: its hosts hold its certificates. */
  deployed: boolean;
  /** The earliest certificate expiry in the latest asset set; null before the first render and before it is deployed. */
  certificates: { notAfter: string; assetSetVersion: number } | null;
  /** The newest stored etcd backup (null: none), and the interval of its backup schedule when that is on. */
  backup: { lastAt: string | null; intervalMinutes: number | null };
};

export async function listFleet(): Promise<FleetRow[]> {
  const db = getDb();
  const clusters = await db.cluster.findMany({
    orderBy: { name: "asc" },
    select: {
      id: true,
      name: true,
      kubernetesVersion: true,
      createdAt: true,
      updatedAt: true,
      activeRunId: true,
      nodesSeen: { select: { ready: true, total: true, seenAt: true } },
      _count: { select: { hosts: true } },
    },
  });
  const masters = new Map((await db.host.groupBy({ by: ["clusterId"], where: { role: "master" }, _count: { _all: true } })).map((g) => [g.clusterId, g._count._all]));

  // The latest run of each cluster: its newest createdAt, then those rows.
  const newest = await db.run.groupBy({ by: ["clusterId"], _max: { createdAt: true } });
  const runs = newest.length
    ? await db.run.findMany({
        where: { OR: newest.filter((g) => g._max.createdAt).map((g) => ({ clusterId: g.clusterId, createdAt: g._max.createdAt! })) },
        select: { id: true, clusterId: true, type: true, status: true, createdAt: true, startedAt: true, finishedAt: true, summary: true },
      })
    : [];
  const lastRun = new Map<string, FleetRow["lastRun"]>();
  for (const r of runs) {
    const prev = lastRun.get(r.clusterId);
    const at = (r.finishedAt ?? r.startedAt ?? r.createdAt).toISOString();
    if (prev && prev.at >= at) continue;
    const message = r.summary ? (JSON.parse(r.summary) as { message?: unknown }).message : undefined;
    lastRun.set(r.clusterId, { id: r.id, type: r.type, status: r.status, at, outcome: typeof message === "string" ? message : null });
  }

  // The latest asset set of each deployed cluster and its earliest certificate expiry.
  const deployed = await deployedClusterIds();
  const latestSets = (await db.assetSet.groupBy({ by: ["clusterId"], _max: { version: true } })).filter((g) => deployed.has(g.clusterId));
  const sets = latestSets.length
    ? await db.assetSet.findMany({ where: { OR: latestSets.map((g) => ({ clusterId: g.clusterId, version: g._max.version ?? 0 })) }, select: { id: true, clusterId: true, version: true, notAfter: true } })
    : [];
  const certs = new Map<string, FleetRow["certificates"]>();
  for (const set of sets) {
    const notAfter = set.notAfter ?? (await backfillNotAfter({ assetSetId: set.id }));
    if (notAfter) certs.set(set.clusterId, { notAfter: notAfter.toISOString(), assetSetVersion: set.version });
  }

  // The newest backup of each cluster (a stored snapshot is a successful one), and the schedules that are on.
  const lastBackup = new Map((await db.backup.groupBy({ by: ["clusterId"], _max: { createdAt: true } })).map((g) => [g.clusterId, g._max.createdAt]));
  const schedules = new Map((await db.backupPolicy.findMany({ where: { enabled: true }, select: { clusterId: true, intervalMinutes: true } })).map((p) => [p.clusterId, p.intervalMinutes]));

  return clusters.map((c) => {
    const m = masters.get(c.id) ?? 0;
    return {
      id: c.id,
      name: c.name,
      kubernetesVersion: c.kubernetesVersion,
      masters: m,
      workers: c._count.hosts - m,
      createdAt: c.createdAt.toISOString(),
      updatedAt: c.updatedAt.toISOString(),
      busy: c.activeRunId !== null,
      nodes: c.nodesSeen ? { ready: c.nodesSeen.ready, total: c.nodesSeen.total, seenAt: c.nodesSeen.seenAt.toISOString() } : null,
      lastRun: lastRun.get(c.id) ?? null,
      deployed: deployed.has(c.id),
      certificates: certs.get(c.id) ?? null,
      backup: { lastAt: lastBackup.get(c.id)?.toISOString() ?? null, intervalMinutes: schedules.get(c.id) ?? null },
    };
  });
}

/** What the live view saw: called when its node list changes (and now and then while it watches). */
export async function recordNodesSeen({ clusterId, ready, total }: { clusterId: string; ready: number; total: number }): Promise<void> {
  const seenAt = new Date();
  await getDb().nodesSeen.upsert({ where: { clusterId }, create: { clusterId, ready, total, seenAt }, update: { ready, total, seenAt } });
}
