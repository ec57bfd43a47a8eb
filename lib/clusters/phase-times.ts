import "server-only";
// How long each phase took in an earlier successful run of the same type: what the run page's ETA goes
// by for the phases it has not measured yet (components/runs/eta.ts). Read from the run's event log:
// each execution of a run (the first, every retry) logs phase.started and phase.finished, and a
// phase's time is the longest of its executions (a retry passes quickly over phases already done).
import { getDb } from "../db/client";

export type PhaseTimes = { runId: string; clusterId: string; finishedAt: string; hosts: number; phases: Record<string, number> };

/** The latest successful run of `type` that logged its phases, on this cluster, else on any cluster; null when there is none. */
export async function getPhaseTimes({ clusterId, type }: { clusterId: string; type: string }): Promise<PhaseTimes | null> {
  const db = getDb();
  const latest = (where: { clusterId?: string }) =>
    db.runEvent.findFirst({ where: { type: "phase.finished", run: { type, status: "succeeded", ...where } }, orderBy: { id: "desc" }, select: { runId: true } });
  const found = (await latest({ clusterId })) ?? (await latest({}));
  const run = found ? await db.run.findUnique({ where: { id: found.runId }, select: { id: true, clusterId: true, finishedAt: true, plan: true } }) : null;
  if (!run?.finishedAt) return null;
  const events = await db.runEvent.findMany({ where: { runId: run.id, type: { in: ["phase.started", "phase.finished"] } }, orderBy: { seq: "asc" }, select: { type: true, data: true, createdAt: true } });
  const phases = phaseDurations(events.map((e) => ({ type: e.type, phase: String((JSON.parse(e.data) as { phase?: unknown }).phase ?? ""), at: e.createdAt.getTime() })));
  const plan = JSON.parse(run.plan) as { phases?: { steps?: { host?: string | null }[] }[] };
  const hosts = new Set((plan.phases ?? []).flatMap((p) => (p.steps ?? []).map((s) => s.host).filter(Boolean))).size;
  return { runId: run.id, clusterId: run.clusterId, finishedAt: run.finishedAt.toISOString(), hosts, phases };
}

/** Each phase's longest started → finished span; a start without its finish (a worker died) is ignored. */
export function phaseDurations(events: readonly { type: string; phase: string; at: number }[]): Record<string, number> {
  const out: Record<string, number> = {};
  const open = new Map<string, number>();
  for (const e of events) {
    if (e.type === "phase.started") open.set(e.phase, e.at);
    else if (e.type === "phase.finished") {
      const start = open.get(e.phase);
      if (start === undefined) continue;
      open.delete(e.phase);
      out[e.phase] = Math.max(out[e.phase] ?? 0, e.at - start);
    }
  }
  return out;
}
