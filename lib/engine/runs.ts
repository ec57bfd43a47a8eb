import "server-only";
// Runs and their steps in the database. Every status change is a guarded update (it names the status
// it expects), so two workers, or a worker and a cancel, can never both win. A run keeps the
// definition it was planned from and the cluster's revision at that moment: editing the cluster makes
// its planned and finished runs stale, and a stale run can be neither started nor retried.
import { hostname } from "node:os";
import { getDb } from "../db/client";
import { conflict, notFound } from "../http/errors";
import { newId } from "../ids";
import { processGone } from "../process-gone";
import { parseWorkerId } from "../worker-id";
import { appendRunEvent, appendRunEventIn, publishRunEvent, type StoredRunEvent } from "./events";
import { writeAsHolder, type Lease } from "./lease";
import { runPlan, type RunPlan } from "./plan";
import type { z } from "zod";

export type RunPlanInput = z.input<typeof runPlan>;

export async function createRun(input: { id?: string; clusterId: string; type: string; plan: RunPlanInput; createdById?: string; assetSetId?: string; definition?: { json: string; revision: number } }): Promise<string> {
  const id = input.id ?? newId("run");
  const plan: RunPlan = runPlan.parse(input.plan);
  const hosts = await getDb().host.findMany({ where: { clusterId: input.clusterId }, select: { id: true, name: true } });
  const hostId = new Map(hosts.map((h) => [h.name, h.id]));
  let ordinal = 0;
  await getDb().$transaction(async (tx) => {
    const cluster = await tx.cluster.findUnique({ where: { id: input.clusterId }, select: { definition: true, revision: true } });
    if (!cluster) throw notFound("Cluster");
    // The plan was made from the definition at `revision`; if the cluster changed since, so must the plan.
    if (input.definition && input.definition.revision !== cluster.revision) throw conflict("The cluster was edited while the run was being planned; plan it again");
    await tx.run.create({
      data: {
        id,
        clusterId: input.clusterId,
        type: input.type,
        plan: JSON.stringify(plan),
        createdById: input.createdById,
        assetSetId: input.assetSetId,
        definition: input.definition?.json ?? cluster.definition,
        definitionRevision: input.definition?.revision ?? cluster.revision,
      },
    });
    await tx.step.createMany({
      data: plan.phases.flatMap((phase) =>
        phase.steps.map((s) => ({
          id: newId("step"),
          runId: id,
          hostId: s.host ? (hostId.get(s.host) ?? null) : null,
          phase: phase.id,
          key: s.key,
          ordinal: ordinal++,
          title: s.title,
          command: s.commands.join("\n") || null,
        })),
      ),
    });
  });
  await appendRunEvent({ runId: id, type: "run.planned", data: { type: input.type, steps: ordinal } });
  return id;
}

export async function getRunPlan(runId: string): Promise<RunPlan> {
  const run = await getDb().run.findUnique({ where: { id: runId }, select: { plan: true } });
  if (!run) throw notFound("Run");
  return runPlan.parse(JSON.parse(run.plan));
}

const staleMessage = (runId: string) => `The cluster was edited after run ${runId} was planned, so its plan no longer shows what would run: plan a new run`;

/** planned → running, holding the cluster's one-run-at-a-time lock; refused when the cluster changed since planning. */
export async function startRun({ runId }: { runId: string }): Promise<void> {
  const db = getDb();
  const run = await db.run.findUnique({ where: { id: runId }, select: { clusterId: true, status: true, definitionRevision: true } });
  if (!run) throw notFound("Run");
  await db.$transaction(async (tx) => {
    const cluster = await tx.cluster.findUniqueOrThrow({ where: { id: run.clusterId }, select: { revision: true } });
    if (run.status === "planned" && cluster.revision !== run.definitionRevision) throw conflict(staleMessage(runId));
    const locked = await tx.cluster.updateMany({ where: { id: run.clusterId, revision: run.definitionRevision ?? -1, OR: [{ activeRunId: null }, { activeRunId: runId }] }, data: { activeRunId: runId } });
    if (locked.count === 0) {
      const c = await tx.cluster.findUnique({ where: { id: run.clusterId }, select: { activeRunId: true } });
      throw conflict(`Another run (${c?.activeRunId}) is in progress on this cluster; wait for it or cancel it`);
    }
    const started = await tx.run.updateMany({ where: { id: runId, status: "planned", cancelRequested: false }, data: { status: "running", startedAt: new Date() } });
    if (started.count === 0) throw conflict(`Run ${runId} is ${run.status}; only a planned run can start`);
  });
  await appendRunEvent({ runId, type: "run.started" });
}

/**
 * A planned run is cancelled at once (it ends; nobody can start it afterwards); a running one is asked
 * to stop, which its worker does between steps and by aborting the commands in flight.
 */
export async function requestCancel({ runId, by }: { runId: string; by?: string }): Promise<"cancelled" | "requested"> {
  const db = getDb();
  const events: StoredRunEvent[] = [];
  const result = await db.$transaction(async (tx) => {
    const planned = await tx.run.updateMany({
      where: { id: runId, status: "planned" },
      data: { status: "cancelled", cancelRequested: true, finishedAt: new Date(), summary: JSON.stringify({ message: `cancelled before it started${by ? ` by ${by}` : ""}` }) },
    });
    if (planned.count === 1) {
      await tx.step.updateMany({ where: { runId, status: "pending" }, data: { status: "cancelled" } });
      events.push(await appendRunEventIn(tx, { runId, type: "run.finished", data: { status: "cancelled", summary: { message: "cancelled before it started" }, by: by ?? null } }));
      return "cancelled" as const;
    }
    const running = await tx.run.updateMany({ where: { id: runId, status: "running" }, data: { cancelRequested: true } });
    if (running.count === 0) throw conflict("Only a planned or running run can be cancelled");
    events.push(await appendRunEventIn(tx, { runId, type: "run.cancel-requested", data: { by: by ?? null } }));
    return "requested" as const;
  });
  for (const e of events) publishRunEvent(e);
  return result;
}

/** Whether a worker id names a process on this machine that is gone (its lease can be taken over at once). */
export function isLocalWorkerGone(workerId: string): boolean {
  const id = parseWorkerId(workerId);
  if (!id || id.host !== hostname()) return false;
  return id.pid !== process.pid && processGone(id.pid);
}

/**
 * Takes (or renews) a worker's lease on a running run. A lease older than staleMs may be taken over,
 * and so may one held by a process of this machine that no longer exists (a restart takes over at once).
 */
export async function claimRun({ runId, workerId, staleMs }: { runId: string; workerId: string; staleMs: number }): Promise<boolean> {
  const db = getDb();
  const stale = new Date(Date.now() - staleMs);
  const r = await db.run.updateMany({
    where: { id: runId, status: "running", OR: [{ workerId: null }, { workerId }, { heartbeatAt: null }, { heartbeatAt: { lt: stale } }] },
    data: { workerId, heartbeatAt: new Date() },
  });
  if (r.count === 1) return true;
  const holder = await db.run.findUnique({ where: { id: runId }, select: { workerId: true, status: true } });
  if (holder?.status !== "running" || !holder.workerId || !isLocalWorkerGone(holder.workerId)) return false;
  const taken = await db.run.updateMany({ where: { id: runId, status: "running", workerId: holder.workerId }, data: { workerId, heartbeatAt: new Date() } });
  return taken.count === 1;
}

/**
 * The job queue (PostgreSQL, pg-boss) delivered this run to `workerId`, which holds the run's lock
 * (pg-queue.ts): it takes the run from whoever held it before — a worker that died, or one cut off from
 * the database, whose later writes are then refused (they name the old holder).
 */
export async function takeRun({ runId, workerId }: { runId: string; workerId: string }): Promise<boolean> {
  const r = await getDb().run.updateMany({ where: { id: runId, status: "running" }, data: { workerId, heartbeatAt: new Date() } });
  return r.count === 1;
}

/** Renews the holder's heartbeat; false when `workerId` no longer holds the running run. */
export async function renewLease({ runId, workerId }: Lease): Promise<boolean> {
  const r = await getDb().run.updateMany({ where: { id: runId, status: "running", workerId }, data: { heartbeatAt: new Date() } });
  return r.count === 1;
}

/** Running runs this worker may take: unheld, its own, stale, or held by a process of this machine that is gone. */
export async function listResumableRuns({ workerId, staleMs }: { workerId: string; staleMs: number }): Promise<string[]> {
  const stale = new Date(Date.now() - staleMs);
  const rows = await getDb().run.findMany({ where: { status: "running" }, select: { id: true, workerId: true, heartbeatAt: true }, orderBy: { createdAt: "asc" } });
  return rows.filter((r) => !r.workerId || r.workerId === workerId || !r.heartbeatAt || r.heartbeatAt < stale || isLocalWorkerGone(r.workerId)).map((r) => r.id);
}

/** Gives a run's lease up (a worker shutting down): the next worker takes it over without waiting for it to go stale. */
export async function releaseLease(lease: Lease): Promise<boolean> {
  try {
    await writeAsHolder(lease, async (tx, append) => {
      await append({ type: "run.handed-over", data: { worker: lease.workerId } });
      await tx.run.update({ where: { id: lease.runId }, data: { workerId: null, heartbeatAt: null } });
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * An admin ends a run that is stuck (its worker gone, or wedged): it becomes failed with who released
 * it and why, the cluster's lock is freed, and a worker still holding it writes nothing more (its
 * lease-guarded writes need the run running). Steps left running or pending are marked so.
 */
export async function releaseRun({ runId, by, reason }: { runId: string; by: string; reason?: string }): Promise<{ status: string; previousWorker: string | null }> {
  const db = getDb();
  const events: StoredRunEvent[] = [];
  const result = await db.$transaction(async (tx) => {
    const run = await tx.run.findUnique({ where: { id: runId }, select: { clusterId: true, status: true, workerId: true, heartbeatAt: true } });
    if (!run) throw notFound("Run");
    if (run.status !== "running") throw conflict(`Run ${runId} is ${run.status}; only a running run can be released${run.status === "planned" ? " (cancel a planned run instead)" : ""}`);
    const message = `released by ${by}${reason ? `: ${reason}` : ""}`;
    const summary = { message, releasedBy: by, reason: reason ?? null, worker: run.workerId, heartbeatAt: run.heartbeatAt?.toISOString() ?? null };
    const r = await tx.run.updateMany({ where: { id: runId, status: "running" }, data: { status: "failed", finishedAt: new Date(), workerId: null, heartbeatAt: null, summary: JSON.stringify(summary) } });
    if (r.count === 0) throw conflict("The run changed meanwhile; reload and try again");
    await tx.step.updateMany({ where: { runId, status: { in: ["running", "waiting"] } }, data: { status: "failed", error: `stopped: the run was ${message}`, finishedAt: new Date() } });
    await tx.step.updateMany({ where: { runId, status: "pending" }, data: { status: "skipped", error: `not run: the run was ${message}` } });
    await tx.cluster.updateMany({ where: { id: run.clusterId, activeRunId: runId }, data: { activeRunId: null } });
    events.push(await appendRunEventIn(tx, { runId, type: "run.released", data: { by, reason: reason ?? null, worker: run.workerId } }));
    events.push(await appendRunEventIn(tx, { runId, type: "run.finished", data: { status: "failed", summary } }));
    return { status: "failed", previousWorker: run.workerId };
  });
  for (const e of events) publishRunEvent(e);
  return result;
}

/** Runs that are over but may go on: retried, or (needs-decision) their warnings accepted. */
export const RETRYABLE_STATUSES = ["failed", "needs-decision", "cancelled"];

/**
 * Retries a failed, stopped-for-a-decision or cancelled run in place: the chosen failed steps (one step, one host's, or all) and
 * the steps skipped or cancelled after them go back to pending, and the run runs again from there.
 * Steps that are done stay done; every action is idempotent, so nothing is applied twice. A run whose
 * cluster was edited since it was planned is stale and is not retried.
 */
export async function retryRun({ runId, step, host }: { runId: string; step?: string; host?: string }): Promise<number> {
  const db = getDb();
  const run = await db.run.findUnique({ where: { id: runId }, select: { clusterId: true, status: true, definitionRevision: true, steps: { select: { id: true, key: true, status: true, host: { select: { name: true } } } } } });
  if (!run) throw notFound("Run");
  if (!RETRYABLE_STATUSES.includes(run.status)) throw conflict(`Run ${runId} is ${run.status}; only a failed, stopped or cancelled run can be retried`);
  const failed = run.steps.filter((s) => s.status === "failed" && (!step || s.key === step) && (!host || s.host?.name === host));
  if (step && failed.length === 0) throw conflict(`Step ${step} did not fail in this run`);
  if (host && failed.length === 0 && !run.steps.some((s) => s.host?.name === host && ["skipped", "cancelled"].includes(s.status))) throw conflict(`Nothing failed on ${host} in this run`);
  const hostOf = new Set(failed.map((s) => s.host?.name).filter(Boolean));
  // What did not run because of these failures: the same host's later steps, and cluster-wide steps.
  // The final verification is read-only and judges the whole cluster: it always runs again.
  const again = run.steps.filter(
    (s) =>
      failed.includes(s) ||
      (["skipped", "cancelled"].includes(s.status) && (!host || !s.host || s.host.name === host || hostOf.has(s.host.name))) ||
      (s.key === "verify/cluster" && s.status === "done"),
  );
  await db.$transaction(async (tx) => {
    const cluster = await tx.cluster.findUniqueOrThrow({ where: { id: run.clusterId }, select: { revision: true } });
    if (cluster.revision !== run.definitionRevision) throw conflict(staleMessage(runId));
    const locked = await tx.cluster.updateMany({ where: { id: run.clusterId, revision: cluster.revision, OR: [{ activeRunId: null }, { activeRunId: runId }] }, data: { activeRunId: runId } });
    if (locked.count === 0) throw conflict("Another run is in progress on this cluster; wait for it or cancel it");
    await tx.step.updateMany({ where: { id: { in: again.map((s) => s.id) } }, data: { status: "pending", error: null, hint: null, finishedAt: null } });
    const r = await tx.run.updateMany({
      where: { id: runId, status: run.status },
      data: { status: "running", cancelRequested: false, finishedAt: null, summary: null, workerId: null, heartbeatAt: null },
    });
    if (r.count === 0) throw conflict("The run changed meanwhile; reload and try again");
  });
  await appendRunEvent({ runId, type: "run.retried", data: { step: step ?? null, host: host ?? null, steps: again.map((s) => s.key) } });
  await appendRunEvent({ runId, type: "run.started", data: { retry: true } });
  return again.length;
}

/** An admin accepts a run's preflight warnings: recorded in its event log, read by the preflight steps. */
export async function acceptRunWarnings({ runId, by }: { runId: string; by: string }): Promise<void> {
  await appendRunEvent({ runId, type: "run.warnings-accepted", data: { by } });
}
