import "server-only";
// Executes a run's plan durably. Every step's start and end is stored before the engine moves on,
// so a process killed at any moment resumes from the steps not yet done. Hosts run in parallel
// (bounded by the executor); a host whose step failed skips its later steps, other hosts go on; a
// failed cluster-wide or master step stops the phases after it.
import type { ClusterDefinition } from "../cluster/definition";
import { getDb } from "../db/client";
import { abortableSleep } from "../ssh/backoff";
import { isSshError, Executor, shellScript, type OutputLine } from "../ssh";
import { UNLOCK_SCRIPT } from "./actions/host-scripts";
import { WaitAbandoned, type WaitCheck } from "./actions/types";
import { actions } from "./actions";
import { appendRunEvent } from "./events";
import { hintFor } from "./hints";
import type { PlannedStep } from "./plan";
import { claimRun, finishRun, getRunPlan, type FinishedStatus } from "./runs";
import { loadRunResources } from "./run-resources";
import { loadEngineHosts, type EngineHost } from "./targets";
import { finishedStatus } from "./run-rules";
import { JOURNAL_MARKER } from "./schemas";

export type RunnerOptions = { workerId: string; staleMs?: number; heartbeatMs?: number; executor?: Executor };

const OUTPUT_TAIL_LINES = 200;
const OUTPUT_FLUSH_MS = 300;

export async function executeRun(runId: string, options: RunnerOptions): Promise<FinishedStatus | "not-claimed"> {
  const db = getDb();
  const staleMs = options.staleMs ?? 30_000;
  if (!(await claimRun({ runId, workerId: options.workerId, staleMs }))) return "not-claimed";
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { cluster: true } });
  const plan = await getRunPlan(runId);
  const definition = JSON.parse(run.cluster.definition) as ClusterDefinition;

  // Output: a tail per step for the record, and batched live events for watchers.
  const tails = new Map<string, string[]>();
  const pending = new Map<string, OutputLine[]>();
  const sink = (line: OutputLine) => {
    const tail = tails.get(line.step) ?? [];
    tail.push(`${line.stream === "stderr" ? "! " : ""}${line.line}`);
    if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
    tails.set(line.step, tail);
    pending.set(line.step, [...(pending.get(line.step) ?? []), line]);
  };
  const executor = options.executor ?? new Executor({ sink });
  // Flushes run one after another, so a step's lines reach the log in the order they were printed.
  let flushing: Promise<void> = Promise.resolve();
  const flush = () =>
    (flushing = flushing.catch(() => undefined).then(async () => {
      const batches = [...pending.entries()];
      pending.clear();
      for (const [step, lines] of batches) await appendRunEvent({ runId, type: "step.output", data: { step, lines: lines.map((l) => ({ stream: l.stream, line: l.line })) } });
    }));

  const controller = new AbortController();
  let cancelled = false;
  let lostLease = false;

  const hosts = await loadEngineHosts({
    clusterId: run.clusterId,
    runId,
    definition,
    onPinned: async (h, fingerprint) => {
      await db.host.updateMany({ where: { id: h.id, hostKeyFingerprint: null }, data: { hostKeyFingerprint: fingerprint } });
      await appendRunEvent({ runId, type: "host.key-pinned", hostId: h.id, data: { host: h.name, fingerprint } });
    },
  });
  const hostByName = new Map(hosts.map((h) => [h.name, h]));
  const resources = await loadRunResources({ assetSetId: run.assetSetId, definition, executor, hosts });
  const failedHosts = new Set<string>();
  let stopAll = false;
  /** Settles when a step of the current phase has finished; steps may wait for others of their phase (masters join one at a time). */
  const finished = new Map<string, Promise<unknown>>();
  const mutates = plan.phases.some((p) => !["facts", "preflight"].includes(p.id));

  // Timers start here, next to the try that stops them: nothing before it may leave them running.
  const timer = setInterval(() => {
    void (async () => {
      const r = await db.run.findUnique({ where: { id: runId }, select: { cancelRequested: true } });
      if (r?.cancelRequested && !cancelled) {
        cancelled = true;
        controller.abort(new Error("cancelled by a user"));
      }
      if (!(await claimRun({ runId, workerId: options.workerId, staleMs }))) {
        lostLease = true;
        controller.abort(new Error("another worker took over this run"));
      }
    })().catch(() => undefined);
  }, options.heartbeatMs ?? 1_000);
  const outputTimer = setInterval(() => void flush().catch(() => undefined), OUTPUT_FLUSH_MS);
  try {
    for (const phase of plan.phases) {
      if (stopAll || controller.signal.aborted) break;
      await appendRunEvent({ runId, type: "phase.started", data: { phase: phase.id, title: phase.title } });
      finished.clear();
      for (const s of phase.steps) finished.set(s.key, runStep(s));
      const results = (await Promise.all(phase.steps.map((s) => finished.get(s.key)))) as { failed: boolean; critical: boolean }[];
      await appendRunEvent({ runId, type: "phase.finished", data: { phase: phase.id } });
      if (results.some((r) => r.failed && r.critical)) stopAll = true;
    }
  } finally {
    clearInterval(timer);
    clearInterval(outputTimer);
    await flush();
    // The worker that took over holds the same locks (they name the run, not the worker).
    if (mutates && !lostLease) await releaseHostLocks();
    await resources.close();
    if (!options.executor) await executor.close();
  }

  // Whatever did not run is marked: cancelled after a cancel, skipped after a stop.
  const leftover = cancelled ? "cancelled" : "skipped";
  await db.step.updateMany({ where: { runId, status: { in: ["pending", "waiting"] } }, data: { status: leftover } });
  const steps = await db.step.findMany({ where: { runId }, select: { status: true, hostId: true, title: true, error: true } });
  const failed = steps.filter((s) => s.status === "failed");
  const status: FinishedStatus = finishedStatus({ cancelled, stopped: stopAll, failedErrors: failed.map((s) => s.error) });
  const failedHostNames = [...failedHosts];
  // The hosts this run works on (a join or reset names some of the cluster's).
  const runHosts = new Set(plan.phases.flatMap((p) => p.steps.map((st) => st.host).filter(Boolean))).size;
  await finishRun({
    runId,
    status,
    summary: {
      steps: steps.length,
      done: steps.filter((s) => s.status === "done").length,
      failed: failed.length,
      failedHosts: failedHostNames,
      message:
        status === "succeeded"
          ? runHosts === 1
            ? "1 host done"
            : `all ${runHosts} hosts done`
          : status === "cancelled"
            ? "cancelled by a user"
            : status === "needs-decision"
              ? `needs a decision: preflight warnings on ${failedHostNames.length ? `${failedHostNames.length} of ${runHosts} hosts (${failedHostNames.join(", ")})` : "the cluster"} wait for an admin or lead to accept them`
              : `failed on ${failedHostNames.length} of ${runHosts} hosts${failedHostNames.length ? `: ${failedHostNames.join(", ")}` : ""}`,
    },
  });
  return status;

  async function runStep(planned: PlannedStep): Promise<{ failed: boolean; critical: boolean }> {
    const host = planned.host ? hostByName.get(planned.host) : undefined;
    const critical = !host || host.role === "master";
    const row = await db.step.findUniqueOrThrow({ where: { runId_key: { runId, key: planned.key } } });
    if (row.status === "done" || row.status === "skipped") return { failed: false, critical };
    if (row.status === "failed") {
      if (host) failedHosts.add(host.name);
      return { failed: true, critical };
    }
    if (controller.signal.aborted) return { failed: false, critical };
    // Dependencies in this phase (e.g. the previous master's join) finish first.
    const sameDeps = planned.dependsOn.map((k) => finished.get(k)).filter(Boolean);
    if (sameDeps.length) await Promise.all(sameDeps);
    if (host && failedHosts.has(host.name)) {
      await db.step.update({ where: { id: row.id }, data: { status: "skipped", error: `skipped: an earlier step failed on ${host.name}` } });
      return { failed: false, critical };
    }
    if (planned.dependsOn.length) {
      const deps = await db.step.findMany({ where: { runId, key: { in: planned.dependsOn }, status: { in: ["failed", "skipped", "cancelled"] } }, select: { key: true, status: true } });
      if (deps.length) {
        await db.step.update({ where: { id: row.id }, data: { status: "skipped", error: `skipped: ${deps.map((d) => `${d.key} ${d.status}`).join(", ")}` } });
        return { failed: false, critical };
      }
    }
    const action = actions[planned.action];
    const startedAt = new Date();
    // pending, or running when a dead worker left it: all actions are safe to repeat.
    const claimed = await db.step.updateMany({ where: { id: row.id, status: { in: ["pending", "running", "waiting"] } }, data: { status: "running", attempts: { increment: 1 }, startedAt, finishedAt: null } });
    if (claimed.count === 0) return { failed: false, critical };
    await appendRunEvent({ runId, type: "step.started", stepId: row.id, hostId: host?.id, data: { key: planned.key, attempt: row.attempts + 1, resumed: row.status === "running" || row.status === "waiting" } });
    let outcome: Awaited<ReturnType<NonNullable<typeof action>>> = { ok: false, error: "not run" };
    let exitCode: number | null = null;
    const emit = (type: string, data: Record<string, unknown>) => appendRunEvent({ runId, type, stepId: row.id, hostId: host?.id, data }).then(() => undefined);
    for (let retry = 0; ; retry++) {
      const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(planned.timeoutMs)]);
      exitCode = null;
      try {
        if (!action) throw new Error(`no action "${planned.action}" in this version of Bootdeck`);
        outcome = await action({ runId, runType: run.type, planned, host, hosts, executor, signal, resources, emit, wait: (what, opts, check) => waitFor(row.id, planned, host, signal, emit, what, opts, check) });
      } catch (err) {
        if (isSshError(err) && err.detail.kind === "command-failed") exitCode = err.detail.exitCode;
        const message = err instanceof Error ? err.message : String(err);
        outcome = { ok: false, error: message };
      }
      if (outcome.ok || controller.signal.aborted || retry >= (planned.retries ?? 0)) break;
      // The step's retry policy: idempotent steps (downloads, package installs) try again after a pause.
      const inMs = 2_000 * 2 ** retry;
      await emit("step.retrying", { key: planned.key, attempt: retry + 2, of: (planned.retries ?? 0) + 1, error: outcome.error, inMs });
      await abortableSleep(inMs, controller.signal).catch(() => undefined);
      if (controller.signal.aborted) break;
      await db.step.update({ where: { id: row.id }, data: { attempts: { increment: 1 } } });
    }
    // The step's last lines go in the log before its end does.
    await flush();
    const finishedAt = new Date();
    const durationMs = finishedAt.getTime() - startedAt.getTime();
    const journal = Array.isArray(outcome.data?.journal) ? (outcome.data.journal as string[]) : [];
    // Every failure gets a hint for a known cause, from its message and the kubelet's journal.
    if (!outcome.ok && !outcome.hint) outcome = { ...outcome, hint: hintFor([outcome.error, ...journal].join("\n")) };
    const output = [...(tails.get(planned.key) ?? []), ...(journal.length ? [JOURNAL_MARKER, ...journal] : [])].join("\n") || null;
    if (outcome.ok) {
      await db.step.update({ where: { id: row.id }, data: { status: "done", finishedAt, output, error: null, hint: null, exitCode: 0 } });
      await appendRunEvent({ runId, type: "step.finished", stepId: row.id, hostId: host?.id, data: { key: planned.key, durationMs, summary: outcome.summary, ...outcome.data } });
      return { failed: false, critical };
    }
    const wasCancel = controller.signal.aborted && cancelled;
    await db.step.update({
      where: { id: row.id },
      data: { status: wasCancel ? "cancelled" : "failed", finishedAt, output, error: outcome.error, hint: outcome.hint ?? null, exitCode },
    });
    await appendRunEvent({ runId, type: wasCancel ? "step.cancelled" : "step.failed", stepId: row.id, hostId: host?.id, data: { key: planned.key, durationMs, error: outcome.error, hint: outcome.hint, ...outcome.data } });
    if (!wasCancel && host) failedHosts.add(host.name);
    return { failed: !wasCancel, critical };
  }

  /** Drops the host-side run lock on every host this run may have locked (best effort: a dead host keeps it until a later run takes it over). */
  async function releaseHostLocks(): Promise<void> {
    await Promise.all(
      hosts.map((h) => executor.run(h.target, shellScript(UNLOCK_SCRIPT, [runId], "bootdeck-unlock"), { step: "unlock", quiet: true, timeoutMs: 10_000, allowFailure: true }).catch(() => undefined)),
    );
  }

  async function waitFor<T>(
    stepId: string,
    planned: PlannedStep,
    host: EngineHost | undefined,
    signal: AbortSignal,
    emit: (type: string, data: Record<string, unknown>) => Promise<void>,
    what: string,
    opts: { timeoutMs: number; intervalMs: number },
    check: () => Promise<WaitCheck<T>>,
  ): Promise<T> {
    const since = new Date();
    const deadline = new Date(since.getTime() + opts.timeoutMs);
    await db.step.update({ where: { id: stepId }, data: { status: "waiting" } });
    await emit("step.waiting", { key: planned.key, what, host: host?.name ?? null, since: since.toISOString(), deadline: deadline.toISOString() });
    let why = "";
    try {
      for (;;) {
        try {
          const r = await check();
          if (r.ok) return r.value;
          why = r.why;
        } catch (err) {
          if (signal.aborted) throw signal.reason;
          if (err instanceof WaitAbandoned) throw err;
          why = err instanceof Error ? err.message : String(err);
        }
        if (Date.now() + opts.intervalMs > deadline.getTime()) {
          const mins = opts.timeoutMs / 60_000;
          throw new Error(`timed out after ${mins >= 1 ? `${mins} min` : `${opts.timeoutMs / 1000} s`} waiting for ${what}${why ? `: ${why}` : ""}`);
        }
        await abortableSleep(opts.intervalMs, signal);
      }
    } finally {
      const back = await db.step.updateMany({ where: { id: stepId, status: "waiting" }, data: { status: "running" } });
      if (back.count) await emit("step.wait-ended", { key: planned.key, what });
    }
  }
}
