// /metrics: what the database knows, in the Prometheus text format, at every scrape — runs by type and
// state, run and phase durations as histograms, step failures per host, the queues' depth, live
// streams, and per cluster the newest backup's age (which grows while the schedule is paused), the
// first certificate's expiry and nodes Ready; read with the bearer token or by a signed-in user.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, createActor, signIn } from "../../test/http-helpers";
import { seedMetrics, type MetricsFixture } from "../../test/metrics-fixture";
import { createTempDb, onPostgres, type TempDb } from "../../test/temp-db";
import { GET } from "../../app/metrics/route";
import { backupSchedulerTick } from "../engine/backup-schedule";
import { getDb } from "../db/client";
import { getRunQueue, setRunQueue } from "../engine/queue";
import { resetEnvCache } from "../env";
import { renderMetrics } from "./metrics";
import { viewerOpened } from "../engine/viewers";

const TOKEN = "metrics-token-0123456789abcdef0123456789";
let db: TempDb;
let f: MetricsFixture;

beforeAll(async () => {
  db = await createTempDb();
  process.env.BOOTDECK_METRICS_TOKEN = TOKEN;
  resetEnvCache();
  f = await seedMetrics();
  // On PostgreSQL a started run waits as a pg-boss job (no worker here fetches it).
  if (onPostgres) await getRunQueue().enqueueRun(f.waitingRunId);
}, 60_000);
afterAll(async () => {
  await getRunQueue().stop();
  setRunQueue(undefined);
  delete process.env.BOOTDECK_METRICS_TOKEN;
  resetEnvCache();
  await db?.cleanup();
});

/** The value of one sample, by its name and labels as written in the exposition. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("the exposition", () => {
  it("counts runs by type and state, and their durations and their phases' as histograms", async () => {
    const text = await renderMetrics({ now: f.now, cache: false });
    expect(sample(text, 'bootdeck_runs{type="check",status="failed"}')).toBe(1);
    expect(sample(text, 'bootdeck_runs{type="bootstrap",status="running"}')).toBe(1);
    expect(text).toContain("# TYPE bootdeck_run_duration_seconds histogram");
    expect(sample(text, 'bootdeck_run_duration_seconds_bucket{le="60",type="check",status="failed"}')).toBe(0);
    expect(sample(text, 'bootdeck_run_duration_seconds_bucket{le="120",type="check",status="failed"}')).toBe(1);
    expect(sample(text, 'bootdeck_run_duration_seconds_sum{type="check",status="failed"}')).toBe(95);
    // facts: 0–5 s; preflight: from its first step's start (5 s) to its last one's end (95 s).
    expect(sample(text, 'bootdeck_phase_duration_seconds_sum{type="check",phase="facts"}')).toBe(5);
    expect(sample(text, 'bootdeck_phase_duration_seconds_sum{type="check",phase="preflight"}')).toBe(90);
    expect(sample(text, 'bootdeck_phase_duration_seconds_count{type="check",phase="preflight"}')).toBe(1);
  });

  it("counts step failures per host, and the work waiting in each queue", async () => {
    const text = await renderMetrics({ now: f.now, cache: false });
    expect(text).toContain("# TYPE bootdeck_host_step_failures_total counter");
    expect(sample(text, 'bootdeck_host_step_failures_total{cluster="metered",host="worker-1"}')).toBe(2);
    expect(sample(text, 'bootdeck_queue_depth{queue="runs"}')).toBe(1);
    expect(sample(text, 'bootdeck_queue_depth{queue="webhooks"}')).toBe(1);
    expect(sample(text, 'bootdeck_webhook_deliveries{status="pending"}')).toBe(1);
  });

  it("says per cluster how old its newest backup is, when its first certificate expires and how many nodes are Ready", async () => {
    const text = await renderMetrics({ now: f.now, cache: false });
    expect(sample(text, 'bootdeck_cluster_backup_age_seconds{cluster="metered"}')).toBe(7200);
    expect(sample(text, 'bootdeck_cluster_backup_interval_seconds{cluster="metered"}')).toBe(0);
    expect(sample(text, 'bootdeck_cluster_certificate_expires_in_seconds{cluster="metered"}')).toBe(40 * 86_400);
    expect(sample(text, 'bootdeck_cluster_nodes_ready{cluster="metered"}')).toBe(3);
    expect(sample(text, 'bootdeck_cluster_nodes{cluster="metered"}')).toBe(4);
    expect(sample(text, 'bootdeck_cluster_nodes_seen_timestamp_seconds{cluster="metered"}')).toBe(f.now.getTime() / 1000);
  });

  it("counts this process's open live streams", async () => {
    const close = [viewerOpened("run"), viewerOpened("run"), viewerOpened("cluster")];
    const open = await renderMetrics({ now: f.now, cache: false });
    expect([sample(open, 'bootdeck_sse_viewers{stream="run"}'), sample(open, 'bootdeck_sse_viewers{stream="cluster"}')]).toEqual([2, 1]);
    for (const c of close) c();
    close[0]!(); // closing twice counts once
    const closed = await renderMetrics({ now: f.now, cache: false });
    expect([sample(closed, 'bootdeck_sse_viewers{stream="run"}'), sample(closed, 'bootdeck_sse_viewers{stream="cluster"}')]).toEqual([0, 0]);
  });
});

describe("the newest backup's age", () => {
  it("grows while the schedule is paused: its ticks start no backup", async () => {
    const later = new Date(f.now.getTime() + 3 * 3_600_000);
    await backupSchedulerTick(later);
    expect(await getDb().run.count({ where: { clusterId: f.clusterId, type: "backup" } })).toBe(0);
    const before = sample(await renderMetrics({ now: f.now, cache: false }), 'bootdeck_cluster_backup_age_seconds{cluster="metered"}')!;
    const after = sample(await renderMetrics({ now: later, cache: false }), 'bootdeck_cluster_backup_age_seconds{cluster="metered"}')!;
    expect(after - before).toBe(3 * 3600);
    // Switched on, the schedule says how often a backup is due, which an alert compares the age with.
    await getDb().backupPolicy.update({ where: { clusterId: f.clusterId }, data: { enabled: true } });
    expect(sample(await renderMetrics({ now: later, cache: false }), 'bootdeck_cluster_backup_interval_seconds{cluster="metered"}')).toBe(3600);
    await getDb().backupPolicy.update({ where: { clusterId: f.clusterId }, data: { enabled: false } });
  });
});

describe("GET /metrics", () => {
  const get = (headers: Record<string, string> = {}, signed?: Awaited<ReturnType<typeof signIn>>) => call(GET as never, { method: "GET", path: "/metrics", headers, signed });

  it("answers a scraper with the bearer token", async () => {
    const res = await get({ authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(await res.text()).toContain("bootdeck_runs{");
  });

  it("refuses a wrong token, or none, with a 401 that names the bearer scheme", async () => {
    const tries: Record<string, string>[] = [{ authorization: "Bearer wrong-token" }, { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}` }, {}];
    for (const headers of tries) {
      const res = await get(headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="bootdeck"');
      expect(await res.text()).not.toContain("bootdeck_runs");
    }
  });

  it("answers a signed-in user of any role; a wrong token is not rescued by a session", async () => {
    const support = await signIn(await createActor("support", "metrics-support"));
    expect((await get({}, support)).status).toBe(200);
    expect((await get({ authorization: "Bearer wrong-token" }, support)).status).toBe(401);
  });

  it("refuses every bearer token when none is configured", async () => {
    delete process.env.BOOTDECK_METRICS_TOKEN;
    resetEnvCache();
    try {
      expect((await get({ authorization: `Bearer ${TOKEN}` })).status).toBe(401);
    } finally {
      process.env.BOOTDECK_METRICS_TOKEN = TOKEN;
      resetEnvCache();
    }
  });
});
