import "server-only";
// Pausing and resuming an upgrade: a pause is an event in the run's log (who, when); the upgrade's
// pause points (one before each batch of nodes) wait while the latest of these events is a pause. Nodes
// in flight finish; nothing new starts. Aborting is cancelling (runs.ts requestCancel).
import { getDb } from "../db/client";
import { conflict, notFound } from "../http/errors";
import { appendRunEvent } from "./events";
import { pausedBy } from "./actions/upgrade";

/** Run types that stop at pause points. */
export const PAUSABLE_RUNS: readonly string[] = ["upgrade"];

async function pausableRun(runId: string): Promise<void> {
  const run = await getDb().run.findUnique({ where: { id: runId }, select: { type: true, status: true } });
  if (!run) throw notFound("Run");
  if (!PAUSABLE_RUNS.includes(run.type)) throw conflict(`a ${run.type} run has no pause points; only upgrades pause`);
  if (!["planned", "running"].includes(run.status)) throw conflict(`Run ${runId} is ${run.status}: ${run.status === "failed" || run.status === "cancelled" ? "retry it to go on" : "nothing to pause or resume"}`);
}

export async function pauseRun({ runId, by }: { runId: string; by: string }): Promise<{ already: boolean }> {
  await pausableRun(runId);
  if (await pausedBy(runId)) return { already: true };
  await appendRunEvent({ runId, type: "run.pause-requested", data: { by } });
  return { already: false };
}

export async function resumeRun({ runId, by }: { runId: string; by: string }): Promise<{ wasPaused: boolean }> {
  await pausableRun(runId);
  if (!(await pausedBy(runId))) return { wasPaused: false };
  await appendRunEvent({ runId, type: "run.resumed", data: { by } });
  return { wasPaused: true };
}
