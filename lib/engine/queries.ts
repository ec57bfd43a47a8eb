import "server-only";
// Read models of runs for the API and the pages.
import { getDb } from "../db/client";
import { storageStatus, type StorageStatus } from "../db/storage";
import { notFound } from "../http/errors";
import type { HostFacts } from "../clusters/host-facts";
import type { Finding } from "./actions/preflight";
import { runPlan, type RunPlan } from "./plan";
import { rolesWith } from "../auth/roles";
import { WARNINGS_NEED_DECISION } from "../clusters/host-state";
import type { StepOutputLine, StepWaitingEvent } from "./schemas";
import { clusterMustExist } from "../clusters/exists";

/** What a waiting step waits for (from its latest `step.waiting` event), e.g. kube-apiserver on master-1. */
export type StepWaiting = Omit<StepWaitingEvent, "key">;

export type StepView = {
  id: string;
  key: string;
  phase: string;
  title: string;
  host: string | null;
  status: string;
  attempts: number;
  exitCode: number | null;
  error: string | null;
  hint: string | null;
  output: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** Set while the step waits (status "waiting"); null otherwise. */
  waiting: StepWaiting | null;
  /**
   * The page's own: output lines received live as `step.output` events (components/runs/use-run-events.ts),
   * with their seq, at most the last 5 000. Never sent by the server.
   */
  liveOutput?: StepOutputLine[];
};

/** A host as the node inspector shows it: facts from phase 1, findings of this run's preflight. */
export type RunHost = { name: string; role: string; address: string; facts: HostFacts | null; findings: Finding[] | null };

export type RunView = {
  id: string;
  clusterId: string;
  clusterName: string;
  type: string;
  status: string;
  createdBy: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  cancelRequested: boolean;
  /** The engine worker holding the run and when it last renewed its lease (a stuck run shows an old one). */
  workerId: string | null;
  heartbeatAt: string | null;
  /** The cluster was edited after this run was planned: it can be neither started nor retried (plan again). */
  stale: boolean;
  /** This server found the database's disk full (and no write has succeeded since): the run cannot record progress. */
  storage: StorageStatus;
  lastSeq: number;
  summary: Record<string, unknown> | null;
  plan: RunPlan;
  /** The cluster's hosts in definition order, so the run page can show role and address. */
  hosts: RunHost[];
  steps: StepView[];
  /** Who may accept warnings that stop the run (enabled admins and leads); empty unless some wait for it. */
  deciders: { username: string; displayName: string; role: string }[];
};

export async function getRunView({ id }: { id: string }): Promise<RunView> {
  const run = await getDb().run.findUnique({
    where: { id },
    include: {
      cluster: { select: { name: true, revision: true, hosts: { orderBy: { position: "asc" }, select: { name: true, role: true, address: true, facts: true } } } },       createdBy: { select: { username: true } },
      steps: { orderBy: { ordinal: "asc" }, include: { host: { select: { name: true } } } },
    },
  });
  if (!run) throw notFound("Run");
  const waiting = await listOpenWaits({ runId: id, steps: run.steps });
  const findings = await preflightFindings(id, run.steps);
  const needsDecision = run.steps.some((s) => s.status === "failed" && s.error?.includes(WARNINGS_NEED_DECISION));
  const deciders = needsDecision
    ? await getDb().user.findMany({ where: { role: { in: rolesWith("run:start") }, disabled: false }, orderBy: [{ role: "asc" }, { username: "asc" }], select: { username: true, displayName: true, role: true } })
    : [];
  return {
    id: run.id,
    clusterId: run.clusterId,
    clusterName: run.cluster.name,
    type: run.type,
    status: run.status,
    createdBy: run.createdBy?.username ?? null,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    cancelRequested: run.cancelRequested,
    workerId: run.workerId,
    heartbeatAt: run.heartbeatAt?.toISOString() ?? null,
    stale: run.definitionRevision !== run.cluster.revision,
    storage: storageStatus(),
    lastSeq: run.lastSeq,
    summary: run.summary ? (JSON.parse(run.summary) as Record<string, unknown>) : null,
    plan: runPlan.parse(JSON.parse(run.plan)),
    hosts: run.cluster.hosts.map((h) => ({ name: h.name, role: h.role, address: h.address, facts: h.facts ? (JSON.parse(h.facts) as HostFacts) : null, findings: findings.get(h.name) ?? null })),
    steps: run.steps.map((s) => ({
      id: s.id,
      key: s.key,
      phase: s.phase,
      title: s.title,
      host: s.host?.name ?? null,
      status: s.status,
      attempts: s.attempts,
      exitCode: s.exitCode,
      error: s.error,
      hint: s.hint,
      output: s.output,
      startedAt: s.startedAt?.toISOString() ?? null,
      finishedAt: s.finishedAt?.toISOString() ?? null,
      waiting: waiting.get(s.id) ?? null,
    })),
    deciders,
  };
}

/**
 * The wait of each step that is waiting now (the runner sets status "waiting" for the wait's length):
 * its latest `step.waiting` event, if the step has not started again since. A snapshot loaded
 * mid-wait (a reload, a refetch after a gap) keeps its "waiting for …" line; live events take over.
 */
async function listOpenWaits({ runId, steps }: { runId: string; steps: { id: string; status: string; startedAt: Date | null }[] }): Promise<Map<string, StepWaiting>> {
  const open = new Map(steps.filter((s) => s.status === "waiting").map((s) => [s.id, s]));
  const waits = new Map<string, StepWaiting>();
  if (open.size === 0) return waits;
  const events = await getDb().runEvent.findMany({ where: { runId, type: "step.waiting", stepId: { in: [...open.keys()] } }, orderBy: { seq: "asc" }, select: { stepId: true, data: true, createdAt: true } });
  for (const e of events) {
    const step = e.stepId ? open.get(e.stepId) : undefined;
    if (!step || (step.startedAt && e.createdAt < step.startedAt)) continue; // a wait of an earlier attempt
    const d = JSON.parse(e.data) as Partial<StepWaitingEvent>;
    waits.set(step.id, { what: String(d.what ?? ""), host: d.host ?? null, since: String(d.since ?? e.createdAt.toISOString()), deadline: String(d.deadline ?? ""), ...(typeof d.why === "string" ? { why: d.why } : {}) });
  }
  return waits;
}

export async function listClusterRuns({ clusterId }: { clusterId: string }) {
  await clusterMustExist(clusterId);
  const runs = await getDb().run.findMany({ where: { clusterId }, orderBy: { createdAt: "desc" }, take: 50, include: { createdBy: { select: { username: true } } } });
  return runs.map((r) => {
    const summary = r.summary ? (JSON.parse(r.summary) as { message?: string }) : null;
    return {
      id: r.id,
      type: r.type,
      status: r.status,
      createdBy: r.createdBy?.username ?? null,
      createdAt: r.createdAt.toISOString(),
      startedAt: r.startedAt?.toISOString() ?? null,
      finishedAt: r.finishedAt?.toISOString() ?? null,
      summary,
      /** Wall time from start to finish; null until the run has finished. */
      durationMs: r.startedAt && r.finishedAt ? r.finishedAt.getTime() - r.startedAt.getTime() : null,
      /** The run's one-line result ("all 3 hosts done", "failed on 1 of 40 hosts"); null while it runs. */
      outcome: typeof summary?.message === "string" ? summary.message : null,
    };
  });
}

export type ClusterRunRow = Awaited<ReturnType<typeof listClusterRuns>>[number];

/** Each host's findings from this run's latest preflight result (they travel in the step's event). */
async function preflightFindings(runId: string, steps: { id: string; key: string; host: { name: string } | null }[]): Promise<Map<string, Finding[]>> {
  const preflight = new Map(steps.filter((s) => s.key.startsWith("preflight/") && s.host).map((s) => [s.id, s.host!.name]));
  const out = new Map<string, Finding[]>();
  if (preflight.size === 0) return out;
  const events = await getDb().runEvent.findMany({ where: { runId, stepId: { in: [...preflight.keys()] }, type: { in: ["step.finished", "step.failed"] } }, orderBy: { seq: "asc" }, select: { stepId: true, data: true } });
  for (const e of events) {
    const data = JSON.parse(e.data) as { findings?: Finding[] };
    const host = e.stepId ? preflight.get(e.stepId) : undefined;
    if (host && data.findings) out.set(host, data.findings);
  }
  return out;
}
