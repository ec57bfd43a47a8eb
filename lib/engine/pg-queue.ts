import "server-only";
// Runs as pg-boss jobs (PostgreSQL). Why pg-boss: it is a plain library on the database Bootdeck
// already has (no broker, no daemon), its jobs are rows fetched with SELECT … FOR UPDATE SKIP LOCKED
// (exactly one worker gets each delivery), and it has what runs need: retries with exponential
// back-off, cancellation of queued jobs, expiry of jobs whose worker never comes back, and archival.
//
// One job per execution of a run ({ runId }). A worker process:
// - fetches jobs (every 0.5 s, up to `concurrency` runs at once) and, before executing a run, takes
//   the run's PostgreSQL advisory lock on a session of its own. The lock is what "this worker is
//   alive and holds the run" means: it is released by the server the moment the worker's connection
//   ends — a kill -9 or a crash at once, a machine that went silent (powered off, cut off) within
//   about 5 s (POSTGRES_SESSION_OPTIONS) — with no lease to wait out. A delivery whose run is locked
//   by another live worker is a duplicate and is completed without running anything.
// - executes the run as runner.ts does on SQLite, with claim "job": it takes Run.workerId, and every
//   write it makes is guarded by it (lease.ts), so a worker that was cut off and replaced writes
//   nothing more.
// - completes the job when the run ended (whatever its outcome: a failed run is retried by a person,
//   not by the queue), re-queues it at once when it was handed over at a shutdown, and fails it —
//   pg-boss retries it with back-off (1–2 s, 2–4 s, 4–8 s …, 8 retries) — when executing it threw.
// - every second, fails the active jobs whose run nobody holds the lock of (their worker is gone), so
//   pg-boss delivers them again; a run whose job ran out of retries is released as failed.
// - every 5 s, queues a job for a running run that has none (one started while no queue could be
//   reached, or a job lost with an older database): at start-up this resumes runs that were in flight.
import PgBoss from "pg-boss";
import pg from "pg";
import { getDb } from "../db/client";
import { POSTGRES_SESSION_OPTIONS } from "../db/postgres-session";
import { releaseRun } from "./runs";
import { localWorkerId } from "../worker-id";
import type { RunQueue } from "./run-queue";
import { executeRun, type RunnerOptions } from "./runner";

export const RUN_QUEUE = "bootdeck-run";
/** The first key of the runs' advisory locks (the second is hashtext(runId)). */
const RUN_LOCK_CLASS = 1_650_553_443;
/** The advisory lock (one bigint key, a space apart from the runs' two-key locks) around pg-boss's set-up. */
const SETUP_LOCK = 1_650_553_444;
const FETCH_MS = 500;
const REAP_MS = 1_000;
const RECONCILE_MS = 5_000;
/** A job fetched this recently may not have its lock yet: it is not reaped. */
const REAP_GRACE_S = 2;
const RETRY_LIMIT = 8;

type RunJob = { runId: string };

export type PgRunQueueOptions = {
  url: string;
  workerId?: string;
  /** Runs executed at once by this process. */
  concurrency?: number;
  /** Tests and benchmarks: the runner's executor and cluster API. */
  runner?: Pick<RunnerOptions, "executor" | "api" | "heartbeatMs">;
  /** Tests: how often the fetch loop looks for jobs when not woken. */
  fetchMs?: number;
  /** Tests: what executes a run (executeRun). */
  execute?: typeof executeRun;
};

export class PgBossRunQueue implements RunQueue {
  readonly kind = "pg-boss";
  readonly workerId: string;
  private boss: Promise<PgBoss> | undefined;
  private lockClient: Promise<pg.Client> | undefined;
  private readonly active = new Map<string, Promise<void>>();
  private readonly shutdown = new AbortController();
  private readonly timers: NodeJS.Timeout[] = [];
  private looping = false;
  private wakeFetch: (() => void) | undefined;
  private fetchLoop: Promise<void> | undefined;

  constructor(private readonly options: PgRunQueueOptions) {
    this.workerId = options.workerId ?? localWorkerId();
  }

  get runs(): string[] {
    return [...this.active.keys()];
  }

  private getBoss(): Promise<PgBoss> {
    this.boss ??= (async () => {
      // pg-boss hands its options to pg.Pool as they are; its types leave out the session's `options`.
      const session = { options: POSTGRES_SESSION_OPTIONS };
      const boss = new PgBoss({ connectionString: this.options.url, max: 4, application_name: `bootdeck ${this.workerId}`, ...session });
      boss.on("error", (err) => console.error("[bootdeck engine] pg-boss:", err));
      // One process at a time: workers starting together on a new database deadlocked in
      // pgboss.create_queue (one waiting for the other's new queue row, the other for a table lock the
      // first held), and the losers exited. Under this lock the next one finds the queue made.
      const setup = new pg.Client({ connectionString: this.options.url, application_name: `bootdeck setup ${this.workerId}`, options: POSTGRES_SESSION_OPTIONS });
      await setup.connect();
      try {
        await setup.query("SELECT pg_advisory_lock($1)", [SETUP_LOCK]);
        await boss.start();
        if (!(await boss.getQueue(RUN_QUEUE))) {
          const queue = { name: RUN_QUEUE, policy: "standard" as const, retryLimit: RETRY_LIMIT, retryDelay: 1, retryBackoff: true, expireInSeconds: 23 * 3600 };
          await boss.createQueue(RUN_QUEUE, queue);
        }
      } finally {
        await setup.end(); // the lock ends with its session
      }
      return boss;
    })();
    return this.boss;
  }

  /** The session that holds this worker's run locks; when it ends, every lock it held is free. */
  private getLockClient(): Promise<pg.Client> {
    const session: Promise<pg.Client> = (this.lockClient ??= (async () => {
      const client = new pg.Client({ connectionString: this.options.url, application_name: `bootdeck locks ${this.workerId}`, options: POSTGRES_SESSION_OPTIONS });
      client.on("error", (err) => {
        // Its locks are gone: other workers take these runs over (this one's writes are then refused);
        // the next delivery opens a new session.
        console.error("[bootdeck engine] the run-lock session failed; its runs go to other workers:", err.message);
        if (this.lockClient === session) this.lockClient = undefined;
      });
      await client.connect();
      return client;
    })());
    return session;
  }

  async enqueueRun(runId: string): Promise<void> {
    const boss = await this.getBoss();
    await boss.send(RUN_QUEUE, { runId } satisfies RunJob);
    this.wakeFetch?.();
  }

  async startWorkerLoop(): Promise<void> {
    if (this.looping || this.shutdown.signal.aborted) return;
    this.looping = true;
    await this.getBoss();
    await this.getLockClient();
    await this.reconcile();
    this.fetchLoop = this.loop();
    const every = (ms: number, fn: () => Promise<unknown>) => {
      let busy = false;
      const t = setInterval(() => {
        if (busy || this.shutdown.signal.aborted) return;
        busy = true;
        void fn()
          .catch((err: unknown) => console.error("[bootdeck engine]", err))
          .finally(() => (busy = false));
      }, ms);
      t.unref();
      this.timers.push(t);
    };
    every(REAP_MS, () => this.reap());
    every(RECONCILE_MS, () => this.reconcile());
  }

  private async loop(): Promise<void> {
    const boss = await this.getBoss();
    const concurrency = this.options.concurrency ?? 16;
    while (!this.shutdown.signal.aborted) {
      const free = concurrency - this.active.size;
      if (free > 0) {
        const jobs = await boss.fetch<RunJob>(RUN_QUEUE, { batchSize: free, includeMetadata: true }).catch((err: unknown) => {
          console.error("[bootdeck engine] could not fetch runs:", err);
          return [];
        });
        for (const job of jobs) await this.handle(job);
        if (jobs.length === free) continue;
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.options.fetchMs ?? FETCH_MS);
        this.wakeFetch = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wakeFetch = undefined;
    }
  }

  private async handle(job: PgBoss.JobWithMetadata<RunJob>): Promise<void> {
    const boss = await this.getBoss();
    const { runId } = job.data;
    const locks = await this.getLockClient();
    if (this.active.has(runId) || !(await this.tryLock(locks, runId))) {
      // A live worker (maybe this one) executes the run: this delivery is a duplicate.
      await boss.complete(RUN_QUEUE, job.id, { duplicate: true }).catch(() => undefined);
      return;
    }
    const execution = (async () => {
      let unlocked = false;
      const unlock = async () => {
        if (unlocked) return;
        unlocked = true;
        await locks.query("SELECT pg_advisory_unlock($1, hashtext($2))", [RUN_LOCK_CLASS, runId]).catch(() => undefined);
      };
      try {
        const outcome = await (this.options.execute ?? executeRun)(runId, { ...this.options.runner, workerId: this.workerId, claim: "job", shutdown: this.shutdown.signal });
        await unlock();
        await boss.complete(RUN_QUEUE, job.id, { outcome });
        // Handed over at a shutdown: the run goes on on another worker now, not after a retry's back-off.
        if (outcome === "handed-over") await boss.send(RUN_QUEUE, { runId } satisfies RunJob);
      } catch (err) {
        await unlock();
        const message = err instanceof Error ? err.message : String(err);
        console.error(`[bootdeck engine] run ${runId} stopped with an error (attempt ${job.retryCount + 1} of ${job.retryLimit + 1}):`, err);
        if (job.retryCount >= job.retryLimit) await this.giveUp(runId, `its job failed ${job.retryCount + 1} times; last: ${message}`);
        await boss.fail(RUN_QUEUE, job.id, { message }).catch(() => undefined);
      } finally {
        this.active.delete(runId);
        this.wakeFetch?.();
      }
    })();
    this.active.set(runId, execution);
  }

  private async tryLock(locks: pg.Client, runId: string): Promise<boolean> {
    const r = await locks.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok", [RUN_LOCK_CLASS, runId]);
    return r.rows[0]?.ok === true;
  }

  /** Active jobs whose run's lock nobody holds: their worker is gone. pg-boss delivers them again (with back-off). */
  private async reap(): Promise<void> {
    const boss = await this.getBoss();
    const orphans = await getDb().$queryRawUnsafe<{ id: string; runId: string; retryCount: number; retryLimit: number }[]>(
      `SELECT j.id::text AS id, j.data->>'runId' AS "runId", j.retry_count AS "retryCount", j.retry_limit AS "retryLimit"
         FROM pgboss.job j
        WHERE j.name = $1 AND j.state = 'active' AND j.started_on < now() - make_interval(secs => $2)
          AND NOT EXISTS (SELECT 1 FROM pg_locks l
                           WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                             AND l.classid = $3::int4::oid AND l.objid = hashtext(j.data->>'runId')::oid)`,
      RUN_QUEUE,
      REAP_GRACE_S,
      RUN_LOCK_CLASS,
    );
    for (const job of orphans) {
      if (job.retryCount >= job.retryLimit) await this.giveUp(job.runId, `its worker died ${job.retryCount + 1} times`);
      await boss.fail(RUN_QUEUE, job.id, { message: "its worker is gone (its database session ended)" });
    }
  }

  /** Running runs without a queued or active job get one (this resumes, at start-up, the runs that were in flight). */
  private async reconcile(): Promise<void> {
    const boss = await this.getBoss();
    const missing = await getDb().$queryRawUnsafe<{ id: string }[]>(
      `SELECT r.id FROM "Run" r
        WHERE r.status = 'running'
          AND NOT EXISTS (SELECT 1 FROM pgboss.job j WHERE j.name = $1 AND j.data->>'runId' = r.id AND j.state IN ('created', 'retry', 'active'))`,
      RUN_QUEUE,
    );
    for (const r of missing) await boss.send(RUN_QUEUE, { runId: r.id } satisfies RunJob);
    if (missing.length) this.wakeFetch?.();
  }

  /** A run whose job ran out of retries ends failed, saying why; the cluster is free again. */
  private async giveUp(runId: string, reason: string): Promise<void> {
    await releaseRun({ runId, by: "the engine", reason }).catch(() => undefined);
  }

  async cancel(runId: string): Promise<void> {
    const boss = await this.getBoss();
    const queued = await getDb().$queryRawUnsafe<{ id: string }[]>(
      `SELECT id::text AS id FROM pgboss.job WHERE name = $1 AND data->>'runId' = $2 AND state IN ('created', 'retry')`,
      RUN_QUEUE,
      runId,
    );
    if (!queued.length) return; // held by a worker, which reads cancelRequested every second
    // Waiting for a retry's back-off: take those deliveries back and queue one due now, so a worker
    // takes the run and ends it as cancelled at once.
    await boss.cancel(
      RUN_QUEUE,
      queued.map((j) => j.id),
    );
    await boss.send(RUN_QUEUE, { runId } satisfies RunJob);
    this.wakeFetch?.();
  }

  async stop({ handOver = false, graceMs = 5_000 }: { handOver?: boolean; graceMs?: number } = {}): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.timers.length = 0;
    this.looping = false;
    if (handOver || this.active.size === 0) this.shutdown.abort();
    this.wakeFetch?.();
    if (handOver) {
      // Each run stops its commands and gives its run up; one that takes longer keeps its lock until
      // the session closes below, and is then reaped by another worker.
      await Promise.race([this.drain(), new Promise((r) => setTimeout(r, graceMs).unref())]);
    } else await this.drain();
    this.shutdown.abort();
    await this.fetchLoop?.catch(() => undefined);
    const [boss, locks] = [this.boss, this.lockClient];
    this.boss = undefined;
    this.lockClient = undefined;
    await (await locks?.catch(() => undefined))?.end().catch(() => undefined);
    await (await boss?.catch(() => undefined))?.stop({ graceful: false, wait: true }).catch(() => undefined);
  }

  async drain(): Promise<void> {
    while (this.active.size) await Promise.allSettled([...this.active.values()]);
  }

  /** Run jobs queued or waiting for a retry; 0 before any worker created pg-boss's tables. */
  async depth(): Promise<number> {
    const [exists] = await getDb().$queryRawUnsafe<{ t: string | null }[]>(`SELECT to_regclass('pgboss.job')::text AS t`);
    if (!exists?.t) return 0;
    const [row] = await getDb().$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry')`, RUN_QUEUE);
    return row?.n ?? 0;
  }
}
