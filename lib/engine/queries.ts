import "server-only";
// Read models of runs for the API and the pages.
import { getDb } from "../db/client";
import { notFound } from "../http/errors";
import { runPlan, type RunPlan } from "./plan";

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
};

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
  lastSeq: number;
  summary: Record<string, unknown> | null;
  plan: RunPlan;
  steps: StepView[];
};

export async function getRunView({ id }: { id: string }): Promise<RunView> {
  const run = await getDb().run.findUnique({
    where: { id },
    include: { cluster: { select: { name: true } }, createdBy: { select: { username: true } }, steps: { orderBy: { ordinal: "asc" }, include: { host: { select: { name: true } } } } },
  });
  if (!run) throw notFound("Run");
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
    lastSeq: run.lastSeq,
    summary: run.summary ? (JSON.parse(run.summary) as Record<string, unknown>) : null,
    plan: runPlan.parse(JSON.parse(run.plan)),
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
    })),
  };
}

export async function listClusterRuns({ clusterId }: { clusterId: string }) {
  const runs = await getDb().run.findMany({ where: { clusterId }, orderBy: { createdAt: "desc" }, take: 50, include: { createdBy: { select: { username: true } } } });
  return runs.map((r) => ({
    id: r.id,
    type: r.type,
    status: r.status,
    createdBy: r.createdBy?.username ?? null,
    createdAt: r.createdAt.toISOString(),
    startedAt: r.startedAt?.toISOString() ?? null,
    finishedAt: r.finishedAt?.toISOString() ?? null,
    summary: r.summary ? (JSON.parse(r.summary) as { message?: string }) : null,
  }));
}
