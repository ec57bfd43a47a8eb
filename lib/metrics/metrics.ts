import "server-only";
// /metrics in the Prometheus text format (prom-client). What the database knows is read at each
// scrape, so every dashboard instance answers alike whichever process executed the runs (a `bootdeck
// worker` has no HTTP server): runs by type and state, run and phase durations, host step failures,
// the queues' depth, and per cluster the newest backup's age, the first certificate's expiry and the
// nodes Ready as the live view last saw them (NodesSeen: no cluster is contacted by a scrape). What
// only this process knows — its open live streams, its own process metrics — is this process's.
// Names and alert rules: docs/metrics.md.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { getDb } from "../db/client";
import { getRunQueue } from "../engine/queue";
import { soonestCertificateExpiry } from "../engine/notification-checks";
import { deliveryQueueDepth } from "../notify/queue";
import { openViewers } from "../engine/viewers";

const FINISHED = ["succeeded", "failed", "needs-decision", "cancelled"];
const RUN_BUCKETS = [10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];
const PHASE_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 1800];
/** Two scrapes this close together (two Prometheus servers, a refresh) share one reading of the database. */
const CACHE_MS = 2_000;

const holder = globalThis as unknown as { bootdeckProcessMetrics?: Registry; bootdeckMetricsCache?: { at: number; text: Promise<string> } };

/** This process's own metrics (CPU, memory, event loop), collected from first use on. */
function processRegistry(): Registry {
  if (holder.bootdeckProcessMetrics) return holder.bootdeckProcessMetrics;
  const r = new Registry();
  collectDefaultMetrics({ register: r });
  // Gauges named like counters, which promtool's lint refuses ("non-counter metrics should not have
  // _total suffix"); nodejs_active_handles, nodejs_active_requests and nodejs_active_resources say the same by type.
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) r.removeSingleMetric(name);
  return (holder.bootdeckProcessMetrics = r);
}

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** The whole exposition, as a scraper reads it. */
export async function renderMetrics({ now = new Date(), cache = true }: { now?: Date; cache?: boolean } = {}): Promise<string> {
  const hit = holder.bootdeckMetricsCache;
  if (cache && hit && Date.now() - hit.at < CACHE_MS) return hit.text;
  const text = (async () => {
    const db = await databaseRegistry(now);
    return Registry.merge([db, processRegistry()]).metrics();
  })();
  if (cache) holder.bootdeckMetricsCache = { at: Date.now(), text };
  text.catch(() => (holder.bootdeckMetricsCache = undefined));
  return text;
}

async function databaseRegistry(now: Date): Promise<Registry> {
  const db = getDb();
  const register = new Registry();
  const [byState, finished, phases, stepFailures, clusters, backups, policies, nodes, certificates, runDepth, webhookDepth, deliveries] = await Promise.all([
    db.run.groupBy({ by: ["type", "status"], _count: { _all: true } }),
    db.run.findMany({ where: { status: { in: FINISHED }, startedAt: { not: null }, finishedAt: { not: null } }, select: { type: true, status: true, startedAt: true, finishedAt: true } }),
    db.step.groupBy({ by: ["runId", "phase"], where: { run: { status: { in: FINISHED } }, startedAt: { not: null }, finishedAt: { not: null } }, _min: { startedAt: true }, _max: { finishedAt: true } }),
    db.runEvent.groupBy({ by: ["hostId"], where: { type: "step.failed", hostId: { not: null } }, _count: { _all: true } }),
    db.cluster.findMany({ select: { id: true, name: true } }),
    db.backup.groupBy({ by: ["clusterId"], _max: { createdAt: true } }),
    db.backupPolicy.findMany({ select: { clusterId: true, enabled: true, intervalMinutes: true, failures: true } }),
    db.nodesSeen.findMany(),
    soonestCertificateExpiry(),
    getRunQueue().depth(),
    deliveryQueueDepth(),
    db.webhookDelivery.groupBy({ by: ["status"], _count: { _all: true } }),
  ]);
  const clusterName = new Map(clusters.map((c) => [c.id, c.name]));

  const runs = new Gauge({ name: "bootdeck_runs", help: "Runs by type and state (planned, running, succeeded, failed, needs-decision, cancelled).", labelNames: ["type", "status"], registers: [register] });
  for (const r of byState) runs.set({ type: r.type, status: r.status }, r._count._all);

  const runDuration = new Histogram({ name: "bootdeck_run_duration_seconds", help: "How long finished runs took, from start to end (a retried run counts from its first start).", labelNames: ["type", "status"], buckets: RUN_BUCKETS, registers: [register] });
  for (const r of finished) runDuration.observe({ type: r.type, status: r.status }, (r.finishedAt!.getTime() - r.startedAt!.getTime()) / 1000);

  // A phase lasts from its first step's start to its last step's end, in runs that are over.
  const runType = new Map(phases.length ? (await db.run.findMany({ where: { id: { in: [...new Set(phases.map((p) => p.runId))] } }, select: { id: true, type: true } })).map((r) => [r.id, r.type]) : []);
  const phaseDuration = new Histogram({ name: "bootdeck_phase_duration_seconds", help: "How long the phases of finished runs took, from their first step's start to their last step's end.", labelNames: ["type", "phase"], buckets: PHASE_BUCKETS, registers: [register] });
  for (const p of phases) {
    const type = runType.get(p.runId);
    if (!type || !p._min.startedAt || !p._max.finishedAt) continue;
    phaseDuration.observe({ type, phase: p.phase }, Math.max(0, (p._max.finishedAt.getTime() - p._min.startedAt.getTime()) / 1000));
  }

  const hosts = stepFailures.length ? await db.host.findMany({ where: { id: { in: stepFailures.map((s) => s.hostId!) } }, select: { id: true, name: true, clusterId: true } }) : [];
  const hostById = new Map(hosts.map((h) => [h.id, h]));
  const hostFailures = new Counter({ name: "bootdeck_host_step_failures_total", help: "Steps that failed on a host, every attempt counted (run events step.failed).", labelNames: ["cluster", "host"], registers: [register] });
  for (const s of stepFailures) {
    const h = hostById.get(s.hostId!);
    if (h) hostFailures.inc({ cluster: clusterName.get(h.clusterId) ?? h.clusterId, host: h.name }, s._count._all);
  }

  const depth = new Gauge({ name: "bootdeck_queue_depth", help: "Work waiting: started runs no worker has taken yet (runs), webhook deliveries not yet delivered or given up (webhooks).", labelNames: ["queue"], registers: [register] });
  depth.set({ queue: "runs" }, runDepth);
  depth.set({ queue: "webhooks" }, webhookDepth);

  const webhooks = new Gauge({ name: "bootdeck_webhook_deliveries", help: "Webhook deliveries by state (pending, delivering, delivered, failed: given up).", labelNames: ["status"], registers: [register] });
  for (const s of ["pending", "delivering", "delivered", "failed"]) webhooks.set({ status: s }, deliveries.find((d) => d.status === s)?._count._all ?? 0);

  const viewers = new Gauge({ name: "bootdeck_sse_viewers", help: "Live streams this dashboard process serves now: run pages (run) and clusters' pods and nodes (cluster).", labelNames: ["stream"], registers: [register] });
  for (const [stream, n] of Object.entries(openViewers())) viewers.set({ stream }, n);

  const backupAge = new Gauge({ name: "bootdeck_cluster_backup_age_seconds", help: "Age of the cluster's newest stored etcd backup (absent when it has none).", labelNames: ["cluster"], registers: [register] });
  for (const b of backups) if (b._max.createdAt) backupAge.set({ cluster: clusterName.get(b.clusterId) ?? b.clusterId }, Math.max(0, (now.getTime() - b._max.createdAt.getTime()) / 1000));
  const schedule = new Gauge({ name: "bootdeck_cluster_backup_interval_seconds", help: "The backup schedule's interval; 0 when the schedule is off.", labelNames: ["cluster"], registers: [register] });
  const scheduleFailures = new Gauge({ name: "bootdeck_cluster_backup_schedule_failures", help: "Scheduled backups that failed or could not start since the last one that succeeded.", labelNames: ["cluster"], registers: [register] });
  for (const p of policies) {
    const cluster = clusterName.get(p.clusterId) ?? p.clusterId;
    schedule.set({ cluster }, p.enabled ? p.intervalMinutes * 60 : 0);
    scheduleFailures.set({ cluster }, p.failures);
  }

  // Seconds, not days: Prometheus' base unit (promtool refuses a _days metric); divide by 86400.
  const certLeft = new Gauge({ name: "bootdeck_cluster_certificate_expires_in_seconds", help: "Time until the first certificate of the cluster's newest asset set expires (negative once it has); / 86400 for days.", labelNames: ["cluster"], registers: [register] });
  for (const [clusterId, c] of certificates) certLeft.set({ cluster: clusterName.get(clusterId) ?? c.name }, (c.notAfter.getTime() - now.getTime()) / 1000);

  const ready = new Gauge({ name: "bootdeck_cluster_nodes_ready", help: "Nodes Ready when the dashboard's live view last saw the cluster.", labelNames: ["cluster"], registers: [register] });
  const total = new Gauge({ name: "bootdeck_cluster_nodes", help: "Nodes when the dashboard's live view last saw the cluster.", labelNames: ["cluster"], registers: [register] });
  const seen = new Gauge({ name: "bootdeck_cluster_nodes_seen_timestamp_seconds", help: "When the live view last saw the cluster's nodes (Unix time).", labelNames: ["cluster"], registers: [register] });
  for (const n of nodes) {
    const cluster = clusterName.get(n.clusterId) ?? n.clusterId;
    ready.set({ cluster }, n.ready);
    total.set({ cluster }, n.total);
    seen.set({ cluster }, n.seenAt.getTime() / 1000);
  }
  return register;
}
