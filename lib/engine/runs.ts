import "server-only";
// Runs and their steps in the database. Every status change is a guarded update (it names the status
// it expects), so two workers, or a worker and a cancel, can never both win.
import { getDb } from "../db/client";
import { conflict, notFound } from "../http/errors";
import { newId } from "../ids";
import { appendRunEvent } from "./events";
import { runPlan, type RunPlan } from "./plan";

export async function createRun(input: { clusterId: string; type: string; plan: RunPlan; createdById?: string; assetSetId?: string }): Promise<string> {
  const id = newId("run");
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

export async function finishRun({ runId, status, summary }: { runId: string; status: "succeeded" | "failed" | "cancelled"; summary: unknown }): Promise<void> {
  const db = getDb();
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { clusterId: true } });
  await db.$transaction([
    db.run.updateMany({ where: { id: runId, status: "running" }, data: { status, finishedAt: new Date(), summary: JSON.stringify(summary), workerId: null } }),
    db.cluster.updateMany({ where: { id: run.clusterId, activeRunId: runId }, data: { activeRunId: null } }),
  ]);
  await appendRunEvent({ runId, type: "run.finished", data: { status, summary } });
}
