import "server-only";
// Runs and their steps in the database. Every status change is a guarded update (it names the status
// it expects), so two workers, or a worker and a cancel, can never both win.
import { getDb } from "../db/client";
import { conflict, notFound } from "../http/errors";
import { newId } from "../ids";
import { appendRunEvent } from "./events";
import { runPlan, type RunPlan } from "./plan";

export async function createRun(input: { id?: string; clusterId: string; type: string; plan: RunPlan; createdById?: string; assetSetId?: string }): Promise<string> {
  const id = input.id ?? newId("run");
  const hosts = await getDb().host.findMany({ where: { clusterId: input.clusterId }, select: { id: true, name: true } });
  const hostId = new Map(hosts.map((h) => [h.name, h.id]));
  let ordinal = 0;
  await getDb().$transaction(async (tx) => {
    await tx.run.create({
      data: { id, clusterId: input.clusterId, type: input.type, plan: JSON.stringify(input.plan), createdById: input.createdById, assetSetId: input.assetSetId },
    });
    await tx.step.createMany({
      data: input.plan.phases.flatMap((phase) =>
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

/** planned → running, holding the cluster's one-run-at-a-time lock. */
export async function startRun({ runId }: { runId: string }): Promise<void> {
  const db = getDb();
  const run = await db.run.findUnique({ where: { id: runId }, select: { clusterId: true, status: true } });
  if (!run) throw notFound("Run");
  await db.$transaction(async (tx) => {
    const locked = await tx.cluster.updateMany({ where: { id: run.clusterId, OR: [{ activeRunId: null }, { activeRunId: runId }] }, data: { activeRunId: runId } });
    if (locked.count === 0) {
      const c = await tx.cluster.findUnique({ where: { id: run.clusterId }, select: { activeRunId: true } });
      throw conflict(`Another run (${c?.activeRunId}) is in progress on this cluster; wait for it or cancel it`);
    }
    const started = await tx.run.updateMany({ where: { id: runId, status: "planned" }, data: { status: "running", startedAt: new Date() } });
    if (started.count === 0) throw conflict(`Run ${runId} is ${run.status}; only a planned run can start`);
  });
  await appendRunEvent({ runId, type: "run.started" });
}

export async function requestCancel({ runId }: { runId: string }): Promise<void> {
  const r = await getDb().run.updateMany({ where: { id: runId, status: { in: ["planned", "running"] } }, data: { cancelRequested: true } });
  if (r.count === 0) throw conflict("Only a planned or running run can be cancelled");
  await appendRunEvent({ runId, type: "run.cancel-requested" });
}

/** Takes (or renews) a worker's lease on a running run; a lease older than staleMs may be taken over. */
export async function claimRun({ runId, workerId, staleMs }: { runId: string; workerId: string; staleMs: number }): Promise<boolean> {
  const stale = new Date(Date.now() - staleMs);
  const r = await getDb().run.updateMany({
    where: { id: runId, status: "running", OR: [{ workerId: null }, { workerId }, { heartbeatAt: null }, { heartbeatAt: { lt: stale } }] },
    data: { workerId, heartbeatAt: new Date() },
  });
  return r.count === 1;
}

export async function listResumableRuns({ workerId, staleMs }: { workerId: string; staleMs: number }): Promise<string[]> {
  const stale = new Date(Date.now() - staleMs);
  const rows = await getDb().run.findMany({
    where: { status: "running", OR: [{ workerId: null }, { workerId }, { heartbeatAt: null }, { heartbeatAt: { lt: stale } }] },
    select: { id: true },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((r) => r.id);
}

export type FinishedStatus = "succeeded" | "failed" | "needs-decision" | "cancelled";

export async function finishRun({ runId, status, summary }: { runId: string; status: FinishedStatus; summary: unknown }): Promise<void> {
  const db = getDb();
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { clusterId: true } });
  await db.$transaction([
    db.run.updateMany({ where: { id: runId, status: "running" }, data: { status, finishedAt: new Date(), summary: JSON.stringify(summary), workerId: null } }),
    db.cluster.updateMany({ where: { id: run.clusterId, activeRunId: runId }, data: { activeRunId: null } }),
  ]);
  await appendRunEvent({ runId, type: "run.finished", data: { status, summary } });
}

/** Runs that are over but may go on: retried, or (needs-decision) their warnings accepted. */
export const RETRYABLE_STATUSES = ["failed", "needs-decision", "cancelled"];

/**
 * Retries a failed, stopped-for-a-decision or cancelled run in place: the chosen failed steps (one step, one host's, or all) and
 * the steps skipped or cancelled after them go back to pending, and the run runs again from there.
 * Steps that are done stay done; every action is idempotent, so nothing is applied twice.
 */
export async function retryRun({ runId, step, host }: { runId: string; step?: string; host?: string }): Promise<number> {
  const db = getDb();
  const run = await db.run.findUnique({ where: { id: runId }, select: { clusterId: true, status: true, steps: { select: { id: true, key: true, status: true, host: { select: { name: true } } } } } });
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
    const locked = await tx.cluster.updateMany({ where: { id: run.clusterId, OR: [{ activeRunId: null }, { activeRunId: runId }] }, data: { activeRunId: runId } });
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
