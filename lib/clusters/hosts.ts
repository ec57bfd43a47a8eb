import "server-only";
// A host's page: what Bootdeck knows of one host — its state, facts (with their time), pinned key, and
// the runs that worked on it with the step that failed there, each a link to that step's cell (and its
// output) on the run page.
import { getDb } from "../db/client";
import { notFound } from "../http/errors";
import type { HostFacts } from "./host-facts";
import { hostState, WARNINGS_NEED_DECISION, type HostRunView, type HostState } from "./host-state";
import { clusterMembers } from "./lifecycle-facts";

export type { HostRunView } from "./host-state";

export type HostView = {
  clusterId: string;
  clusterName: string;
  name: string;
  address: string;
  sshPort: number;
  role: string;
  /** In the cluster now (a bootstrap or join installed its kubelet, no reset since): Join is not offered. */
  member: boolean;
  hostKeyFingerprint: string | null;
  facts: HostFacts | null;
  state: HostState;
  runs: HostRunView[];
};

const RUNS_SHOWN = 15;

export async function getHostView({ clusterId, host }: { clusterId: string; host: string }): Promise<HostView> {
  const db = getDb();
  const row = await db.host.findUnique({ where: { clusterId_name: { clusterId, name: host } }, include: { cluster: { select: { name: true } } } });
  if (!row) throw notFound("Host");
  const steps = await db.step.findMany({
    where: { hostId: row.id },
    select: { key: true, phase: true, title: true, status: true, error: true, ordinal: true, run: { select: { id: true, type: true, status: true, createdAt: true, startedAt: true, finishedAt: true } } },
  });
  const byRun = new Map<string, { run: (typeof steps)[number]["run"]; steps: typeof steps }>();
  for (const s of steps) {
    const g = byRun.get(s.run.id) ?? { run: s.run, steps: [] };
    g.steps.push(s);
    byRun.set(s.run.id, g);
  }
  const runs = [...byRun.values()]
    .sort((a, b) => b.run.createdAt.getTime() - a.run.createdAt.getTime())
    .slice(0, RUNS_SHOWN)
    .map(({ run, steps }): HostRunView => {
      const ordered = [...steps].sort((a, b) => a.ordinal - b.ordinal);
      const failed = ordered.find((s) => s.status === "failed");
      const decision = failed?.error?.includes(WARNINGS_NEED_DECISION);
      const outcome: HostRunView["outcome"] = failed
        ? decision
          ? "decision"
          : "failed"
        : run.status === "planned"
          ? "not started"
          : run.status === "running"
            ? "in progress"
            : ordered.every((s) => s.status === "done" || s.status === "skipped") && ordered.some((s) => s.status === "done")
          ? "done"
          : ordered.some((s) => s.status === "running" || s.status === "waiting")
            ? "in progress"
            : ordered.some((s) => s.status === "cancelled")
              ? "cancelled"
              : ordered.every((s) => s.status === "pending")
                ? "not started"
                : "skipped";
      return {
        id: run.id,
        type: run.type,
        status: run.status,
        at: (run.finishedAt ?? run.startedAt ?? run.createdAt).toISOString(),
        outcome,
        failedStep: failed ? { key: failed.key, phase: failed.phase, title: failed.title, error: failed.error } : null,
      };
    });
  return {
    clusterId,
    clusterName: row.cluster.name,
    name: row.name,
    address: row.address,
    sshPort: row.sshPort,
    role: row.role,
    member: (await clusterMembers(clusterId)).includes(row.name),
    hostKeyFingerprint: row.hostKeyFingerprint,
    facts: row.facts ? (JSON.parse(row.facts) as HostFacts) : null,
    state: hostState(runs, row.hostKeyFingerprint !== null),
    runs,
  };
}
