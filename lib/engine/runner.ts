import "server-only";
// Executes a run's plan durably. Every step's start and end is stored before the engine moves on,
// so a process killed at any moment resumes from the steps not yet done. Hosts run in parallel
// (bounded by the executor); a host whose step failed skips its later steps, other hosts go on; a
// failed cluster-wide or master step stops the phases after it.
//
// What runs is what was planned: the plan's steps (their commands and files), the definition and the
// asset set the run was planned from, never the cluster's current ones. Every write goes through the
// run's lease (lease.ts): a worker that lost it writes nothing more.
import { setMaxListeners } from "node:events";
import type { ClusterDefinition } from "../cluster/definition";
import { getDb } from "../db/client";
import { isDiskFull, noteDiskFull, noteWriteOk } from "../db/storage";
import { abortableSleep } from "../ssh/backoff";
import { isSshError, Executor, type OutputLine } from "../ssh";
import { actions } from "./actions";
import { releaseLockArgv } from "./actions/host-scripts";
import { WaitAbandoned, type Action, type ActionContext, type EngineExecutor, type WaitCheck } from "./actions/types";
import type { ClusterApiClient } from "./cluster-api";
import { hintFor } from "./hints";
import { appendAsHolder, LeaseLost, writeAsHolder, type Lease } from "./lease";
import { runPlan, type PlannedPhase, type PlannedStep, type RunPlan } from "./plan";
import { claimRun, releaseLease, renewLease, takeRun } from "./runs";
import { loadRunResources, type RunResources } from "./run-resources";
import { summarizeRun } from "./summary";
import { clipText } from "../text";
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
/** A wait tells what it is still waiting on at most this often. */
const WHY_EVERY_MS = 5_000;

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
    const data = leftover === "cancelled" ? { status: "cancelled" } : { status: "skipped", error: `not run: the run ${leftover === "skipped" ? "stopped" : "ended"} before it` };
    await tx.step.updateMany({ where: { runId: lease.runId, status: { in: ["pending", "waiting", "running"] } }, data });
    const run = await tx.run.findUniqueOrThrow({ where: { id: lease.runId }, select: { clusterId: true } });
    await append({ type: "run.finished", data: { status, summary } });
    await tx.run.update({ where: { id: lease.runId }, data: { status, finishedAt: new Date(), summary: JSON.stringify(summary), workerId: null } });
    await tx.cluster.updateMany({ where: { id: run.clusterId, activeRunId: lease.runId }, data: { activeRunId: null } });
  });
}

async function executeClaimed(runId: string, lease: Lease, options: RunnerOptions, staleMs: number): Promise<RunOutcome> {
  const run = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { clusterId: true, type: true, plan: true, definition: true, assetSetId: true } });
  const plan: RunPlan = runPlan.parse(JSON.parse(run.plan));
  if (!run.definition) throw new Error("the run does not keep the definition it was planned from; plan it again");
  const definition = JSON.parse(run.definition) as ClusterDefinition;
  return new RunExecution({ runId, lease, options, staleMs, plan, definition, clusterId: run.clusterId, runType: run.type, assetSetId: run.assetSetId }).execute();
}

type StepResult = { failed: boolean; critical: boolean };
type Outcome = Awaited<ReturnType<Action>>;
type Emit = (type: string, data: Record<string, unknown>) => Promise<void>;

/**
 * One execution of a claimed run, with its state in plain sight: why it stopped (`stop`), the hosts
 * that failed, whether a critical failure stops later phases, each step's output tail and the output
 * not yet written, the steps of the current phase. `execute` runs the phases in order and ends the run.
 */
class RunExecution {
  private readonly db = getDb();
  private readonly controller = new AbortController();
  private stop: Stop | undefined;
  private readonly executor: EngineExecutor;
  /** Output: a tail per step for the record, and lines not yet written as live events. */
  private readonly tails = new Map<string, string[]>();
  private readonly pending = new Map<string, OutputLine[]>();
  private flushing: Promise<void> = Promise.resolve();
  /** Since when the database disk has been full (writes are tried again meanwhile). */
  private fullSince: Date | undefined;
  private readonly failedHosts = new Set<string>();
  private stopAll = false;
  /** Settles when a step of the current phase has finished; steps may wait for others of their phase (masters join one at a time). */
  private readonly finished = new Map<string, Promise<unknown>>();
  private hosts: EngineHost[] = [];
  private resources: RunResources | undefined;
  private heartbeat: Promise<void> | undefined;
  private timers: ReturnType<typeof setInterval>[] = [];

  constructor(private readonly run: { runId: string; lease: Lease; options: RunnerOptions; staleMs: number; plan: RunPlan; definition: ClusterDefinition; clusterId: string; runType: string; assetSetId: string | null }) {
    this.executor = run.options.executor ?? new Executor({ sink: (line) => this.collect(line) });
    // Each step in flight listens on the run's signal, and a phase runs a step on every host at once:
    // hundreds of listeners are how it works, not a leak.
    setMaxListeners(0, this.controller.signal);
  }

  private get runId() {
    return this.run.runId;
  }

  async execute(): Promise<RunOutcome> {
    const { options } = this.run;
    const onShutdown = () => this.abort("shutdown", "the engine is shutting down; another worker takes the run over");
    if (options.shutdown?.aborted) onShutdown();
    options.shutdown?.addEventListener("abort", onShutdown, { once: true });
    // Timers start here, next to the try that stops them: nothing before it may leave them running.
    this.startTimers();
    try {
      await this.runPhases();
    } catch (err) {
      if (!(err instanceof LeaseLost) && !this.stop) throw err;
    } finally {
      await this.stopTimers();
      options.shutdown?.removeEventListener("abort", onShutdown);
      await this.cleanUp();
    }
    return this.end();
  }

  private abort(why: Stop, message: string): void {
    if (this.stop) return;
    this.stop = why;
    this.controller.abort(new Error(message));
  }

  /** A lost lease or a shutdown: this worker writes nothing more about the steps in flight. */
  private get leaving(): boolean {
    return this.stop === "lease" || this.stop === "shutdown";
  }

  // ---- writes, output, timers

  /**
   * Writes as the lease holder; a lost lease stops the run at once. A full disk does not end the run:
   * the write is tried again (every 0.5 s, then up to every 5 s) until there is room, the run stopping
   * meanwhile; once it goes through, the pause is recorded in the run's log (`run.storage-recovered`).
   */
  private readonly write: typeof writeAsHolder = async (l, fn) => {
    for (let delay = 500; ; delay = Math.min(delay * 2, 5_000)) {
      try {
        const result = await writeAsHolder(l, fn);
        noteWriteOk();
        await this.noteStorageRecovered(l);
        return result;
      } catch (err) {
        if (err instanceof LeaseLost) this.abort("lease", "another worker took this run over, or it was released");
        if (!isDiskFull(err) || this.stop === "shutdown") throw err;
        noteDiskFull();
        if (!this.fullSince) {
          this.fullSince = new Date();
          console.error(`[bootdeck engine] run ${this.runId}: the database disk is full; waiting for space to record its progress`);
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };

  private async noteStorageRecovered(l: Lease): Promise<void> {
    if (!this.fullSince) return;
    const since = this.fullSince;
    this.fullSince = undefined;
    const until = new Date();
    await writeAsHolder(l, (_tx, append) =>
      append({ type: "run.storage-recovered", data: { since: since.toISOString(), until: until.toISOString(), message: `the database disk was full for ${Math.round((until.getTime() - since.getTime()) / 1000)} s; the run waited and went on` } }),
    );
  }

  private emitEvent(e: Parameters<typeof appendAsHolder>[1]) {
    return this.write(this.run.lease, (_tx, append) => append(e));
  }

  private collect(line: OutputLine): void {
    const tail = this.tails.get(line.step) ?? [];
    tail.push(`${line.stream === "stderr" ? "! " : ""}${line.line}`);
    if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
    this.tails.set(line.step, tail);
    this.pending.set(line.step, [...(this.pending.get(line.step) ?? []), line]);
  }

  /** Flushes run one after another, so a step's lines reach the log in the order they were printed. */
  private flush(): Promise<void> {
    this.flushing = this.flushing
      .catch(() => undefined)
      .then(async () => {
        const batches = [...this.pending.entries()];
        this.pending.clear();
        if (!batches.length) return;
        await this.write(this.run.lease, async (_tx, append) => {
          for (const [step, lines] of batches) await append({ type: "step.output", data: { step, lines: lines.map((l) => ({ stream: l.stream, line: l.line })) } });
        });
      });
    return this.flushing;
  }

  /**
   * The heartbeat (cancel requests, the lease) and the output flush. One heartbeat at a time, and the
   * last one is awaited when the run stops: a claim still in flight after the lease was given up (a
   * shutdown) would take the unheld run back for this worker.
   */
  private startTimers(): void {
    const { runId, options, staleMs, lease } = this.run;
    const beat = setInterval(() => {
      this.heartbeat ??= (async () => {
        const r = await this.db.run.findUnique({ where: { id: runId }, select: { cancelRequested: true } });
        if (r?.cancelRequested) this.abort("cancel", "cancelled by a user");
        const held = options.claim === "job" ? await renewLease(lease) : await claimRun({ runId, workerId: options.workerId, staleMs });
        if (!held) this.abort("lease", "another worker took this run over, or it was released");
      })()
        .catch(() => undefined)
        .finally(() => (this.heartbeat = undefined));
    }, options.heartbeatMs ?? 1_000);
    const output = setInterval(() => void this.flush().catch(() => undefined), OUTPUT_FLUSH_MS);
    this.timers = [beat, output];
  }

  private async stopTimers(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.heartbeat;
  }

  /** The last output; the host locks released unless another worker goes on; tunnels and connections closed. */
  private async cleanUp(): Promise<void> {
    await this.flush().catch(() => undefined);
    // The worker that takes over holds the same host locks (they name the run, not the worker); a run
    // that ends releases them with the plan's release command.
    if (this.run.plan.lock && !this.leaving) await this.releaseHostLocks(this.run.plan.lock);
    await this.resources?.close();
    if (!this.run.options.executor) await this.executor.close();
  }

  // ---- phases

  private async runPhases(): Promise<void> {
    const { runId, lease, definition, options } = this.run;
    this.hosts = await loadEngineHosts({
      clusterId: this.run.clusterId,
      runId,
      definition,
      onPinned: async (h, fingerprint) => {
        await this.write(lease, async (tx, append) => {
          await tx.host.updateMany({ where: { id: h.id, hostKeyFingerprint: null }, data: { hostKeyFingerprint: fingerprint } });
          await append({ type: "host.key-pinned", hostId: h.id, data: { host: h.name, fingerprint } });
        });
      },
    });
    this.resources = await loadRunResources({ assetSetId: this.run.assetSetId, definition, executor: this.executor, hosts: this.hosts, api: options.api });
    const statuses = new Map((await this.db.step.findMany({ where: { runId }, select: { key: true, status: true } })).map((s) => [s.key, s.status]));
    for (const phase of this.run.plan.phases) {
      if (this.stopAll || this.controller.signal.aborted) break;
      await this.runPhase(phase, statuses, this.resources);
    }
  }

  /** One phase: its steps in parallel (each after its dependencies in the phase); a critical failure stops the phases after it. */
  private async runPhase(phase: PlannedPhase, statuses: ReadonlyMap<string, string>, resources: RunResources): Promise<void> {
    // A phase whose steps all ended earlier (a resumed run) is passed over without events.
    const open = phase.steps.some((s) => !["done", "skipped", "failed"].includes(statuses.get(s.key) ?? "pending"));
    if (open) await this.emitEvent({ type: "phase.started", data: { phase: phase.id, title: phase.title } });
    const hostByName = new Map(this.hosts.map((h) => [h.name, h]));
    this.finished.clear();
    for (const s of phase.steps) this.finished.set(s.key, this.runStep(s, hostByName, resources));
    // Every step of the phase settles before anything else is written (one that threw must not leave
    // the others writing behind the run's end).
    const settled = await Promise.allSettled(phase.steps.map((s) => this.finished.get(s.key)));
    const thrown = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (thrown) throw thrown.reason;
    const results = settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as StepResult[];
    if (open && !this.controller.signal.aborted) await this.emitEvent({ type: "phase.finished", data: { phase: phase.id } });
    if (results.some((r) => r.failed && r.critical)) this.stopAll = true;
  }

  // ---- the end

  /** The run's end: handed over, lost, or finished with its status and summary (what did not run marked). */
  private async end(): Promise<RunOutcome> {
    const { runId, lease, plan } = this.run;
    if (this.stop === "lease") return "lost-lease";
    if (this.stop === "shutdown") {
      // Steps in flight stay running for the next worker; the lease is given up so it can start at once.
      await releaseLease(lease);
      return "handed-over";
    }
    // Whatever did not run is marked: cancelled after a cancel, skipped after a stop.
    const cancelled = this.stop === "cancel";
    const steps = await this.db.step.findMany({ where: { runId }, select: { key: true, status: true, title: true, error: true, host: { select: { name: true } } } });
    const status = finishedStatus({ cancelled, stopped: this.stopAll, failedErrors: steps.filter((s) => s.status === "failed").map((s) => s.error) });
    // The hosts this run works on (a join or reset names some of the cluster's).
    const runHosts = new Set(plan.phases.flatMap((p) => p.steps.map((st) => st.host).filter(Boolean))).size;
    const summary = summarizeRun({ status, runHosts, steps: steps.map((s) => ({ key: s.key, status: s.status === "pending" || s.status === "waiting" ? (cancelled ? "cancelled" : "skipped") : s.status, title: s.title, error: s.error, host: s.host?.name ?? null })) });
    try {
      await finishAsHolder(lease, status, summary, cancelled ? "cancelled" : "skipped", this.write);
    } catch (err) {
      if (err instanceof LeaseLost) return "lost-lease";
      throw err;
    }
    return status;
  }

  /** Sends the plan's release to every host this run may have locked (best effort: a dead host keeps it until a later run takes it over). */
  private async releaseHostLocks(lock: NonNullable<RunPlan["lock"]>): Promise<void> {
    const argv = releaseLockArgv(this.runId);
    if (argv.join("\0") !== lock.release.join("\0")) throw new Error("the plan's host-lock release is not this run's");
    await Promise.all(
      this.hosts
        .filter((h) => lock.hosts.includes(h.name))
        .map((h) => this.executor.run(h.target, lock.release, { step: "unlock", quiet: true, timeoutMs: 10_000, allowFailure: true }).catch(() => undefined)),
    );
  }

  // ---- steps

  private async runStep(planned: PlannedStep, hostByName: Map<string, EngineHost>, resources: RunResources): Promise<StepResult> {
    const host = planned.host ? hostByName.get(planned.host) : undefined;
    const critical = !host || host.role === "master";
    try {
      return await this.runStepGuarded(planned, host, critical, resources);
    } catch (err) {
      // A lost lease, or a shutdown: this worker stops writing; the step is left as it is for the next.
      if (err instanceof LeaseLost || this.leaving) return { failed: false, critical };
      throw err;
    }
  }

  private async runStepGuarded(planned: PlannedStep, host: EngineHost | undefined, critical: boolean, resources: RunResources): Promise<StepResult> {
    const row = await this.db.step.findUniqueOrThrow({ where: { runId_key: { runId: this.runId, key: planned.key } } });
    const before = await this.beforeStep(planned, row, host);
    if (before !== "run") return { failed: before === "failed", critical };
    const startedAt = new Date();
    if (!(await this.markStarted(planned, row.id, host, startedAt))) return { failed: false, critical };
    const { outcome, exitCode } = await this.attempt(planned, row.id, host, resources, startedAt);
    // A shutdown or a lost lease leaves the step as it is: the next worker repeats it.
    if (this.leaving) return { failed: false, critical };
    const failed = await this.recordOutcome(planned, row.id, host, startedAt, outcome, exitCode);
    return { failed, critical };
  }

  /**
   * Whether the step runs: not when it ended earlier (a failed one counts as failed), when the run is
   * stopping, or when its host or a dependency failed (then it is marked skipped, saying why).
   */
  private async beforeStep(planned: PlannedStep, row: { id: string; status: string }, host: EngineHost | undefined): Promise<"run" | "failed" | "passed"> {
    if (row.status === "done" || row.status === "skipped") return "passed";
    if (row.status === "failed") {
      if (host) this.failedHosts.add(host.name);
      return "failed";
    }
    if (this.controller.signal.aborted) return "passed";
    // Dependencies in this phase (e.g. the previous master's join) finish first.
    const sameDeps = planned.dependsOn.map((k) => this.finished.get(k)).filter(Boolean);
    if (sameDeps.length) await Promise.all(sameDeps);
    if (this.controller.signal.aborted) return "passed";
    const skip = (error: string) => this.write(this.run.lease, (tx) => tx.step.update({ where: { id: row.id }, data: { status: "skipped", error } }));
    if (host && this.failedHosts.has(host.name)) {
      await skip(`skipped: an earlier step failed on ${host.name}`);
      return "passed";
    }
    if (planned.dependsOn.length) {
      const deps = await this.db.step.findMany({ where: { runId: this.runId, key: { in: planned.dependsOn }, status: { in: ["failed", "skipped", "cancelled"] } }, select: { key: true, status: true } });
      if (deps.length) {
        await skip(`skipped: ${deps.map((d) => `${d.key} ${d.status}`).join(", ")}`);
        return "passed";
      }
    }
    return "run";
  }

  /**
   * The step's start: pending, or running when a dead worker left it (all actions are safe to repeat).
   * The step row and its event commit together, so the log never tells of an attempt the row does not count.
   */
  private markStarted(planned: PlannedStep, stepId: string, host: EngineHost | undefined, startedAt: Date): Promise<boolean> {
    return this.write(this.run.lease, async (tx, append) => {
      const fresh = await tx.step.findUniqueOrThrow({ where: { id: stepId }, select: { status: true, attempts: true } });
      if (!["pending", "running", "waiting"].includes(fresh.status)) return false;
      await tx.step.update({ where: { id: stepId }, data: { status: "running", attempts: fresh.attempts + 1, startedAt, finishedAt: null } });
      await append({ type: "step.started", stepId, hostId: host?.id, data: { key: planned.key, attempt: fresh.attempts + 1, resumed: fresh.status !== "pending" } });
      return true;
    });
  }

  /** The step's action, and its retry policy: idempotent steps (downloads, package installs) try again after a pause. */
  private async attempt(planned: PlannedStep, stepId: string, host: EngineHost | undefined, resources: RunResources, startedAt: Date): Promise<{ outcome: Outcome; exitCode: number | null }> {
    const action = actions[planned.action];
    const emit: Emit = (type, data) => this.emitEvent({ type, stepId, hostId: host?.id, data }).then(() => undefined);
    const store = (fn: Parameters<typeof writeAsHolder>[1]) => this.write(this.run.lease, fn).then(() => undefined);
    let outcome: Outcome = { ok: false, error: "not run" };
    let exitCode: number | null = null;
    for (let retry = 0; ; retry++) {
      const { signal, release } = attemptSignal(this.controller.signal, planned.timeoutMs);
      exitCode = null;
      try {
        if (!action) throw new Error(`no action "${planned.action}" in this version of Bootdeck`);
        const wait: ActionContext["wait"] = (what, opts, check) => this.waitFor(stepId, planned, host, signal, what, opts, check);
        outcome = await action({ runId: this.runId, runType: this.run.runType, planned, host, hosts: this.hosts, executor: this.executor, signal, resources, startedAt, emit, store, wait });
      } catch (err) {
        if (err instanceof LeaseLost) throw err;
        if (isSshError(err) && err.detail.kind === "command-failed") exitCode = err.detail.exitCode;
        const message = err instanceof Error ? err.message : String(err);
        // A host that did not answer at all (not a command that failed on it): a check tells the webhooks.
        const unreachable = isSshError(err) && (err.detail.kind === "unreachable" || err.detail.kind === "refused" || (err.detail.kind === "timeout" && err.detail.phase === "connect"));
        outcome = { ok: false, error: message, ...(unreachable ? { data: { unreachable: true } } : {}) };
      } finally {
        release();
      }
      if (outcome.ok || this.controller.signal.aborted || retry >= (planned.retries ?? 0)) break;
      const inMs = 2_000 * 2 ** retry;
      await emit("step.retrying", { key: planned.key, attempt: retry + 2, of: (planned.retries ?? 0) + 1, error: outcome.error, inMs });
      await abortableSleep(inMs, this.controller.signal).catch(() => undefined);
      if (this.controller.signal.aborted) break;
      await this.write(this.run.lease, (tx) => tx.step.update({ where: { id: stepId }, data: { attempts: { increment: 1 } } }));
    }
    return { outcome, exitCode };
  }

  /** The step's end, with its output (and a failed kubelet's journal) and, for a failure, a hint; returns whether it failed. */
  private async recordOutcome(planned: PlannedStep, stepId: string, host: EngineHost | undefined, startedAt: Date, result: Outcome, exitCode: number | null): Promise<boolean> {
    // The step's last lines go in the log before its end does.
    await this.flush();
    const finishedAt = new Date();
    const durationMs = finishedAt.getTime() - startedAt.getTime();
    const journal = Array.isArray(result.data?.journal) ? (result.data.journal as string[]) : [];
    // Every failure gets a hint for a known cause, from its message and the kubelet's journal.
    const outcome: Outcome = !result.ok && !result.hint ? { ...result, hint: hintFor([result.error, ...journal].join("\n")) } : result;
    const output = [...(this.tails.get(planned.key) ?? []), ...(journal.length ? [JOURNAL_MARKER, ...journal] : [])].join("\n") || null;
    if (outcome.ok) {
      await this.write(this.run.lease, async (tx, append) => {
        await tx.step.update({ where: { id: stepId }, data: { status: "done", finishedAt, output, error: null, hint: null, exitCode: 0 } });
        await append({ type: "step.finished", stepId, hostId: host?.id, data: { key: planned.key, durationMs, summary: outcome.summary, ...outcome.data } });
      });
      return false;
    }
    const wasCancel = this.stop === "cancel";
    await this.write(this.run.lease, async (tx, append) => {
      await tx.step.update({ where: { id: stepId }, data: { status: wasCancel ? "cancelled" : "failed", finishedAt, output, error: outcome.error, hint: outcome.hint ?? null, exitCode } });
      await append({ type: wasCancel ? "step.cancelled" : "step.failed", stepId, hostId: host?.id, data: { key: planned.key, durationMs, error: outcome.error, hint: outcome.hint, ...outcome.data } });
    });
    if (!wasCancel && host) this.failedHosts.add(host.name);
    return !wasCancel;
  }

  // ---- waits

  /** A step's wait: says what for, on which host, since when and until which deadline; times out with the last reason it was not done. */
  private async waitFor<T>(stepId: string, planned: PlannedStep, host: EngineHost | undefined, signal: AbortSignal, what: string, opts: { timeoutMs: number; intervalMs: number }, check: () => Promise<WaitCheck<T>>): Promise<T> {
    const since = new Date();
    const deadline = new Date(since.getTime() + opts.timeoutMs);
    await this.write(this.run.lease, async (tx, append) => {
      await tx.step.update({ where: { id: stepId }, data: { status: "waiting" } });
      await append({ type: "step.waiting", stepId, hostId: host?.id, data: { key: planned.key, what, host: host?.name ?? null, since: since.toISOString(), deadline: deadline.toISOString() } });
    });
    // What it is still waiting on (which pods, on which masters), told when that changes, at most every
    // 5 s and not before the wait lasted that long: the page shows more than "waiting for …" through a
    // long wait, and a short one costs no extra event.
    let told = { why: "", at: Date.now() };
    const tell = async (why: string) => {
      if (!why || why === told.why || Date.now() - told.at < WHY_EVERY_MS) return;
      told = { why, at: Date.now() };
      await this.write(this.run.lease, async (_tx, append) => {
        await append({ type: "step.waiting", stepId, hostId: host?.id, data: { key: planned.key, what, host: host?.name ?? null, since: since.toISOString(), deadline: deadline.toISOString(), why: clipText(why, 600) } });
      });
    };
    try {
      return await pollUntil(check, { signal, deadline, intervalMs: opts.intervalMs, timeoutMs: opts.timeoutMs, what, tell });
    } finally {
      if (!this.leaving)
        await this.write(this.run.lease, async (tx, append) => {
          const back = await tx.step.updateMany({ where: { id: stepId, status: "waiting" }, data: { status: "running" } });
          if (back.count) await append({ type: "step.wait-ended", stepId, hostId: host?.id, data: { key: planned.key, what } });
        }).catch((e: unknown) => {
          if (!(e instanceof LeaseLost)) throw e;
        });
    }
  }
}

/**
 * One attempt's signal: aborted with the run's reason when the run stops, or when the step's time is up
 * with a reason that names the limit (AbortSignal.timeout's says only "The operation was aborted due to
 * timeout", which is what a failed step showed). `release` drops its timer and its listener on the
 * run's signal when the attempt ends.
 */
function attemptSignal(run: AbortSignal, timeoutMs: number): { signal: AbortSignal; release(): void } {
  const c = new AbortController();
  const onRun = () => c.abort(run.reason);
  if (run.aborted) onRun();
  else run.addEventListener("abort", onRun, { once: true });
  const limit = timeoutMs >= 60_000 ? `${timeoutMs / 60_000} min` : `${timeoutMs / 1000} s`;
  const timer = setTimeout(() => c.abort(new DOMException(`the step ran past its time limit of ${limit}`, "TimeoutError")), timeoutMs);
  return {
    signal: c.signal,
    release: () => {
      clearTimeout(timer);
      run.removeEventListener("abort", onRun);
    },
  };
}

/** Polls `check` until it is done, the deadline passes (an error with the last reason) or the signal aborts. */
async function pollUntil<T>(check: () => Promise<WaitCheck<T>>, o: { signal: AbortSignal; deadline: Date; intervalMs: number; timeoutMs: number; what: string; tell?: (why: string) => Promise<void> }): Promise<T> {
  let why = "";
  for (;;) {
    try {
      const r = await check();
      if (r.ok) return r.value;
      why = r.why;
    } catch (err) {
      if (o.signal.aborted) throw o.signal.reason;
      if (err instanceof WaitAbandoned || err instanceof LeaseLost) throw err;
      why = err instanceof Error ? err.message : String(err);
    }
    await o.tell?.(why);
    if (Date.now() + o.intervalMs > o.deadline.getTime()) {
      const mins = o.timeoutMs / 60_000;
      throw new Error(`timed out after ${mins >= 1 ? `${mins} min` : `${o.timeoutMs / 1000} s`} waiting for ${o.what}${why ? `: ${why}` : ""}`);
    }
    await abortableSleep(o.intervalMs, o.signal);
  }
}
