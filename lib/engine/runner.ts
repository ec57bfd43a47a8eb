import "server-only";
// Executes a run's plan durably. Every step's start and end is stored before the engine moves on,
// so a process killed at any moment resumes from the steps not yet done. Hosts run in parallel
// (bounded by the executor); a host whose step failed skips its later steps, other hosts go on; a
// failed cluster-wide or master step stops the phases after it.
//
// What runs is what was planned: the plan's steps (their commands and files), the definition and the
// asset set the run was planned from, never the cluster's current ones. Every write goes through the
// run's lease (lease.ts): a worker that lost it writes nothing more.
import type { ClusterDefinition } from "../cluster/definition";
import { getDb } from "../db/client";
import { isDiskFull, noteDiskFull, noteWriteOk } from "../db/storage";
import { abortableSleep } from "../ssh/backoff";
import { isSshError, Executor, type OutputLine } from "../ssh";
import { actions } from "./actions";
import { releaseLockArgv } from "./actions/host-scripts";
import { WaitAbandoned, type EngineExecutor, type WaitCheck } from "./actions/types";
import type { ClusterApiClient } from "./cluster-api";
import { hintFor } from "./hints";
import { appendAsHolder, LeaseLost, writeAsHolder, type Lease } from "./lease";
import { runPlan, type PlannedStep, type RunPlan } from "./plan";
import { claimRun, releaseLease, renewLease, takeRun } from "./runs";
import { loadRunResources, type RunResources } from "./run-resources";
import { summarizeRun } from "./summary";
import { loadEngineHosts, type EngineHost } from "./targets";
import { finishedStatus, type FinishedStatus } from "./run-rules";
import { JOURNAL_MARKER } from "./schemas";

export type RunnerOptions = {
  workerId: string;
  staleMs?: number;
  heartbeatMs?: number;
  executor?: EngineExecutor;
  /** Tests only: the cluster's API the actions talk to. */
  api?: (r: RunResources) => ClusterApiClient;
  /** Aborted when this process shuts down: the run is handed over (its lease released), not ended. */
  shutdown?: AbortSignal;
  /**
   * How the run is held. "lease" (SQLite): claimed when unheld, stale or its holder's process is gone,
   * and claimed again every heartbeat. "job" (PostgreSQL): the job queue delivered it to this worker,
   * which holds its lock, so it is taken whoever held it; the heartbeat only renews it.
   */
  claim?: "lease" | "job";
};

export type RunOutcome = FinishedStatus | "not-claimed" | "lost-lease" | "handed-over";

const OUTPUT_TAIL_LINES = 200;
const OUTPUT_FLUSH_MS = 300;

/** Why the run's controller was aborted. */
type Stop = "cancel" | "lease" | "shutdown";

export async function executeRun(runId: string, options: RunnerOptions): Promise<RunOutcome> {
  const staleMs = options.staleMs ?? 30_000;
  const claimed = options.claim === "job" ? await takeRun({ runId, workerId: options.workerId }) : await claimRun({ runId, workerId: options.workerId, staleMs });
  if (!claimed) return "not-claimed";
  const lease: Lease = { runId, workerId: options.workerId };
  try {
    return await executeClaimed(runId, lease, options, staleMs);
  } catch (err) {
    if (err instanceof LeaseLost) return "lost-lease";
    // Anything that escaped the steps (a credential that cannot be decrypted, a plan that does not
    // parse, a host missing from the database) ends the run, with the reason, and frees the cluster.
    const reason = err instanceof Error ? err.message : String(err);
    // In the worker's log too, with the stack: such a failure has no step to show it.
    console.error(`[bootdeck engine] run ${runId} could not run:`, err);
    try {
      await failRun(lease, `could not run: ${reason}`);
      return "failed";
    } catch (e) {
      if (e instanceof LeaseLost) return "lost-lease";
      throw e;
    }
  }
}

/** Ends a run that could not go on, as its lease holder: pending steps skipped, the reason as its outcome. */
async function failRun(lease: Lease, message: string): Promise<void> {
  await finishAsHolder(lease, "failed", { steps: 0, done: 0, failed: 0, failedHosts: [], failedSteps: [], message });
}

async function finishAsHolder(lease: Lease, status: FinishedStatus, summary: Record<string, unknown>, leftover?: "skipped" | "cancelled", write: typeof writeAsHolder = writeAsHolder): Promise<void> {
  await write(lease, async (tx, append) => {
    if (leftover) await tx.step.updateMany({ where: { runId: lease.runId, status: { in: ["pending", "waiting", "running"] } }, data: { status: leftover } });
    else await tx.step.updateMany({ where: { runId: lease.runId, status: { in: ["pending", "waiting", "running"] } }, data: { status: "skipped", error: "not run: the run ended before it" } });
    const run = await tx.run.findUniqueOrThrow({ where: { id: lease.runId }, select: { clusterId: true } });
    await append({ type: "run.finished", data: { status, summary } });
    await tx.run.update({ where: { id: lease.runId }, data: { status, finishedAt: new Date(), summary: JSON.stringify(summary), workerId: null } });
    await tx.cluster.updateMany({ where: { id: run.clusterId, activeRunId: lease.runId }, data: { activeRunId: null } });
  });
}

async function executeClaimed(runId: string, lease: Lease, options: RunnerOptions, staleMs: number): Promise<RunOutcome> {
  const db = getDb();
  const run = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { clusterId: true, type: true, plan: true, definition: true, assetSetId: true } });
  const plan: RunPlan = runPlan.parse(JSON.parse(run.plan));
  if (!run.definition) throw new Error("the run does not keep the definition it was planned from; plan it again");
  const definition = JSON.parse(run.definition) as ClusterDefinition;

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
  const executor: EngineExecutor = options.executor ?? new Executor({ sink });
  const controller = new AbortController();
  let stop: Stop | undefined;
  const abort = (why: Stop, message: string) => {
    if (stop) return;
    stop = why;
    controller.abort(new Error(message));
  };
  const onShutdown = () => abort("shutdown", "the engine is shutting down; another worker takes the run over");
  if (options.shutdown?.aborted) onShutdown();
  options.shutdown?.addEventListener("abort", onShutdown, { once: true });
  /**
   * Writes as the lease holder; a lost lease stops the run at once. A full disk does not end the run:
   * the write is tried again (every 0.5 s, then up to every 5 s) until there is room, the run stopping
   * meanwhile; once it goes through, the pause is recorded in the run's log (`run.storage-recovered`).
   */
  let fullSince: Date | undefined;
  const write: typeof writeAsHolder = async (l, fn) => {
    for (let delay = 500; ; delay = Math.min(delay * 2, 5_000)) {
      try {
        const result = await writeAsHolder(l, fn);
        noteWriteOk();
        if (fullSince) {
          const since = fullSince;
          fullSince = undefined;
          const until = new Date();
          await writeAsHolder(l, (_tx, append) =>
            append({ type: "run.storage-recovered", data: { since: since.toISOString(), until: until.toISOString(), message: `the database disk was full for ${Math.round((until.getTime() - since.getTime()) / 1000)} s; the run waited and went on` } }),
          );
        }
        return result;
      } catch (err) {
        if (err instanceof LeaseLost) abort("lease", "another worker took this run over, or it was released");
        if (!isDiskFull(err) || stop === "shutdown") throw err;
        noteDiskFull();
        if (!fullSince) {
          fullSince = new Date();
          console.error(`[bootdeck engine] run ${runId}: the database disk is full; waiting for space to record its progress`);
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };
  const emitEvent = (e: Parameters<typeof appendAsHolder>[1]) => write(lease, (_tx, append) => append(e));

  // Flushes run one after another, so a step's lines reach the log in the order they were printed.
  let flushing: Promise<void> = Promise.resolve();
  const flush = () =>
    (flushing = flushing.catch(() => undefined).then(async () => {
      const batches = [...pending.entries()];
      pending.clear();
      if (!batches.length) return;
      await write(lease, async (_tx, append) => {
        for (const [step, lines] of batches) await append({ type: "step.output", data: { step, lines: lines.map((l) => ({ stream: l.stream, line: l.line })) } });
      });
    }));

  let hosts: EngineHost[] = [];
  let resources: RunResources | undefined;
  const mutates = plan.lock !== undefined;
  // Timers start here, next to the try that stops them: nothing before it may leave them running.
  // One heartbeat at a time, and the last one is awaited when the run stops: a claim still in flight
  // after the lease was given up (a shutdown) would take the unheld run back for this worker.
  let heartbeat: Promise<void> | undefined;
  const timer = setInterval(() => {
    heartbeat ??= (async () => {
      const r = await db.run.findUnique({ where: { id: runId }, select: { cancelRequested: true } });
      if (r?.cancelRequested) abort("cancel", "cancelled by a user");
      const held = options.claim === "job" ? await renewLease(lease) : await claimRun({ runId, workerId: options.workerId, staleMs });
      if (!held) abort("lease", "another worker took this run over, or it was released");
    })()
      .catch(() => undefined)
      .finally(() => (heartbeat = undefined));
  }, options.heartbeatMs ?? 1_000);
  const outputTimer = setInterval(() => void flush().catch(() => undefined), OUTPUT_FLUSH_MS);
  const failedHosts = new Set<string>();
  let stopAll = false;
  /** Settles when a step of the current phase has finished; steps may wait for others of their phase (masters join one at a time). */
  const finished = new Map<string, Promise<unknown>>();
  try {
    hosts = await loadEngineHosts({
      clusterId: run.clusterId,
      runId,
      definition,
      onPinned: async (h, fingerprint) => {
        await write(lease, async (tx, append) => {
          await tx.host.updateMany({ where: { id: h.id, hostKeyFingerprint: null }, data: { hostKeyFingerprint: fingerprint } });
          await append({ type: "host.key-pinned", hostId: h.id, data: { host: h.name, fingerprint } });
        });
      },
    });
    resources = await loadRunResources({ assetSetId: run.assetSetId, definition, executor, hosts, api: options.api });
    const hostByName = new Map(hosts.map((h) => [h.name, h]));
    const statuses = new Map((await db.step.findMany({ where: { runId }, select: { key: true, status: true } })).map((s) => [s.key, s.status]));
    for (const phase of plan.phases) {
      if (stopAll || controller.signal.aborted) break;
      // A phase whose steps all ended earlier (a resumed run) is passed over without events.
      const open = phase.steps.some((s) => !["done", "skipped", "failed"].includes(statuses.get(s.key) ?? "pending"));
      if (open) await emitEvent({ type: "phase.started", data: { phase: phase.id, title: phase.title } });
      finished.clear();
      for (const s of phase.steps) finished.set(s.key, runStep(s, hostByName, resources));
      // Every step of the phase settles before anything else is written (one that threw must not leave
      // the others writing behind the run's end).
      const settled = await Promise.allSettled(phase.steps.map((s) => finished.get(s.key)));
      const thrown = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (thrown) throw thrown.reason;
      const results = settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as { failed: boolean; critical: boolean }[];
      if (open && !controller.signal.aborted) await emitEvent({ type: "phase.finished", data: { phase: phase.id } });
      if (results.some((r) => r.failed && r.critical)) stopAll = true;
    }
  } catch (err) {
    if (!(err instanceof LeaseLost) && !stop) throw err;
  } finally {
    clearInterval(timer);
    clearInterval(outputTimer);
    await heartbeat;
    options.shutdown?.removeEventListener("abort", onShutdown);
    await flush().catch(() => undefined);
    // The worker that takes over holds the same host locks (they name the run, not the worker); a run
    // that ends releases them with the plan's release command.
    if (mutates && stop !== "lease" && stop !== "shutdown" && plan.lock) await releaseHostLocks(plan.lock);
    await resources?.close();
    if (!options.executor) await executor.close();
  }
  if (stop === "lease") return "lost-lease";
  if (stop === "shutdown") {
    // Steps in flight stay running for the next worker; the lease is given up so it can start at once.
    await releaseLease(lease);
    return "handed-over";
  }

  // Whatever did not run is marked: cancelled after a cancel, skipped after a stop.
  const cancelled = stop === "cancel";
  const steps = await db.step.findMany({ where: { runId }, select: { key: true, status: true, title: true, error: true, host: { select: { name: true } } } });
  const status = finishedStatus({ cancelled, stopped: stopAll, failedErrors: steps.filter((s) => s.status === "failed").map((s) => s.error) });
  // The hosts this run works on (a join or reset names some of the cluster's).
  const runHosts = new Set(plan.phases.flatMap((p) => p.steps.map((st) => st.host).filter(Boolean))).size;
  const summary = summarizeRun({ status, runHosts, steps: steps.map((s) => ({ key: s.key, status: s.status === "pending" || s.status === "waiting" ? (cancelled ? "cancelled" : "skipped") : s.status, title: s.title, error: s.error, host: s.host?.name ?? null })) });
  try {
    await finishAsHolder(lease, status, summary, cancelled ? "cancelled" : "skipped", write);
  } catch (err) {
    if (err instanceof LeaseLost) return "lost-lease";
    throw err;
  }
  return status;

  async function runStep(planned: PlannedStep, hostByName: Map<string, EngineHost>, resources: RunResources): Promise<{ failed: boolean; critical: boolean }> {
    const host = planned.host ? hostByName.get(planned.host) : undefined;
    const critical = !host || host.role === "master";
    try {
      return await runStepGuarded(planned, host, critical, resources);
    } catch (err) {
      // A lost lease, or a shutdown: this worker stops writing; the step is left as it is for the next.
      if (err instanceof LeaseLost || stop === "lease" || stop === "shutdown") return { failed: false, critical };
      throw err;
    }
  }

  async function runStepGuarded(planned: PlannedStep, host: EngineHost | undefined, critical: boolean, resources: RunResources): Promise<{ failed: boolean; critical: boolean }> {
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
    if (controller.signal.aborted) return { failed: false, critical };
    if (host && failedHosts.has(host.name)) {
      await write(lease, (tx) => tx.step.update({ where: { id: row.id }, data: { status: "skipped", error: `skipped: an earlier step failed on ${host.name}` } }));
      return { failed: false, critical };
    }
    if (planned.dependsOn.length) {
      const deps = await db.step.findMany({ where: { runId, key: { in: planned.dependsOn }, status: { in: ["failed", "skipped", "cancelled"] } }, select: { key: true, status: true } });
      if (deps.length) {
        await write(lease, (tx) => tx.step.update({ where: { id: row.id }, data: { status: "skipped", error: `skipped: ${deps.map((d) => `${d.key} ${d.status}`).join(", ")}` } }));
        return { failed: false, critical };
      }
    }
    const action = actions[planned.action];
    const startedAt = new Date();
    // pending, or running when a dead worker left it: all actions are safe to repeat. The step row and
    // its event commit together, so the log never tells of an attempt the row does not count.
    const started = await write(lease, async (tx, append) => {
      const fresh = await tx.step.findUniqueOrThrow({ where: { id: row.id }, select: { status: true, attempts: true } });
      if (!["pending", "running", "waiting"].includes(fresh.status)) return false;
      await tx.step.update({ where: { id: row.id }, data: { status: "running", attempts: fresh.attempts + 1, startedAt, finishedAt: null } });
      await append({ type: "step.started", stepId: row.id, hostId: host?.id, data: { key: planned.key, attempt: fresh.attempts + 1, resumed: fresh.status !== "pending" } });
      return true;
    });
    if (!started) return { failed: false, critical };
    let outcome: Awaited<ReturnType<NonNullable<typeof action>>> = { ok: false, error: "not run" };
    let exitCode: number | null = null;
    const emit = (type: string, data: Record<string, unknown>) => emitEvent({ type, stepId: row.id, hostId: host?.id, data }).then(() => undefined);
    const store = (fn: Parameters<typeof writeAsHolder>[1]) => write(lease, fn).then(() => undefined);
    for (let retry = 0; ; retry++) {
      const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(planned.timeoutMs)]);
      exitCode = null;
      try {
        if (!action) throw new Error(`no action "${planned.action}" in this version of Bootdeck`);
        outcome = await action({ runId, runType: run.type, planned, host, hosts, executor, signal, resources, startedAt, emit, store, wait: (what, opts, check) => waitFor(row.id, planned, host, signal, emit, what, opts, check) });
      } catch (err) {
        if (err instanceof LeaseLost) throw err;
        if (isSshError(err) && err.detail.kind === "command-failed") exitCode = err.detail.exitCode;
        const message = err instanceof Error ? err.message : String(err);
        // A host that did not answer at all (not a command that failed on it): a check tells the webhooks.
        const unreachable = isSshError(err) && (err.detail.kind === "unreachable" || err.detail.kind === "refused" || (err.detail.kind === "timeout" && err.detail.phase === "connect"));
        outcome = { ok: false, error: message, ...(unreachable ? { data: { unreachable: true } } : {}) };
      }
      if (outcome.ok || controller.signal.aborted || retry >= (planned.retries ?? 0)) break;
      // The step's retry policy: idempotent steps (downloads, package installs) try again after a pause.
      const inMs = 2_000 * 2 ** retry;
      await emit("step.retrying", { key: planned.key, attempt: retry + 2, of: (planned.retries ?? 0) + 1, error: outcome.error, inMs });
      await abortableSleep(inMs, controller.signal).catch(() => undefined);
      if (controller.signal.aborted) break;
      await write(lease, (tx) => tx.step.update({ where: { id: row.id }, data: { attempts: { increment: 1 } } }));
    }
    // A shutdown or a lost lease leaves the step as it is: the next worker repeats it.
    if (stop === "shutdown" || stop === "lease") return { failed: false, critical };
    // The step's last lines go in the log before its end does.
    await flush();
    const finishedAt = new Date();
    const durationMs = finishedAt.getTime() - startedAt.getTime();
    const journal = Array.isArray(outcome.data?.journal) ? (outcome.data.journal as string[]) : [];
    // Every failure gets a hint for a known cause, from its message and the kubelet's journal.
    if (!outcome.ok && !outcome.hint) outcome = { ...outcome, hint: hintFor([outcome.error, ...journal].join("\n")) };
    const output = [...(tails.get(planned.key) ?? []), ...(journal.length ? [JOURNAL_MARKER, ...journal] : [])].join("\n") || null;
    if (outcome.ok) {
      const ok = outcome;
      await write(lease, async (tx, append) => {
        await tx.step.update({ where: { id: row.id }, data: { status: "done", finishedAt, output, error: null, hint: null, exitCode: 0 } });
        await append({ type: "step.finished", stepId: row.id, hostId: host?.id, data: { key: planned.key, durationMs, summary: ok.summary, ...ok.data } });
      });
      return { failed: false, critical };
    }
    const failedOutcome = outcome;
    const wasCancel = stop === "cancel";
    await write(lease, async (tx, append) => {
      await tx.step.update({
        where: { id: row.id },
        data: { status: wasCancel ? "cancelled" : "failed", finishedAt, output, error: failedOutcome.error, hint: failedOutcome.hint ?? null, exitCode },
      });
      await append({ type: wasCancel ? "step.cancelled" : "step.failed", stepId: row.id, hostId: host?.id, data: { key: planned.key, durationMs, error: failedOutcome.error, hint: failedOutcome.hint, ...failedOutcome.data } });
    });
    if (!wasCancel && host) failedHosts.add(host.name);
    return { failed: !wasCancel, critical };
  }

  /** Sends the plan's release to every host this run may have locked (best effort: a dead host keeps it until a later run takes it over). */
  async function releaseHostLocks(lock: NonNullable<RunPlan["lock"]>): Promise<void> {
    const argv = releaseLockArgv(runId);
    if (argv.join("\0") !== lock.release.join("\0")) throw new Error("the plan's host-lock release is not this run's");
    await Promise.all(
      hosts
        .filter((h) => lock.hosts.includes(h.name))
        .map((h) => executor.run(h.target, lock.release, { step: "unlock", quiet: true, timeoutMs: 10_000, allowFailure: true }).catch(() => undefined)),
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
    await write(lease, async (tx, append) => {
      await tx.step.update({ where: { id: stepId }, data: { status: "waiting" } });
      await append({ type: "step.waiting", stepId, hostId: host?.id, data: { key: planned.key, what, host: host?.name ?? null, since: since.toISOString(), deadline: deadline.toISOString() } });
    });
    let why = "";
    try {
      for (;;) {
        try {
          const r = await check();
          if (r.ok) return r.value;
          why = r.why;
        } catch (err) {
          if (signal.aborted) throw signal.reason;
          if (err instanceof WaitAbandoned || err instanceof LeaseLost) throw err;
          why = err instanceof Error ? err.message : String(err);
        }
        if (Date.now() + opts.intervalMs > deadline.getTime()) {
          const mins = opts.timeoutMs / 60_000;
          throw new Error(`timed out after ${mins >= 1 ? `${mins} min` : `${opts.timeoutMs / 1000} s`} waiting for ${what}${why ? `: ${why}` : ""}`);
        }
        await abortableSleep(opts.intervalMs, signal);
      }
    } finally {
      if (stop !== "lease" && stop !== "shutdown")
        await write(lease, async (tx, append) => {
          const back = await tx.step.updateMany({ where: { id: stepId, status: "waiting" }, data: { status: "running" } });
          if (back.count) await append({ type: "step.wait-ended", stepId, hostId: host?.id, data: { key: planned.key, what } });
        }).catch((e: unknown) => {
          if (!(e instanceof LeaseLost)) throw e;
        });
    }
  }
}
