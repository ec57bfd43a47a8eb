// What an action receives and returns. Actions are plain functions of this context, so the runner
// owns persistence, events, timeouts and cancellation in one place. An action sends only what its
// planned step carries: `planned.exec` (looked up with `plannedExec`) and `planned.files`.
import type { PlannedExec, PlannedStep } from "../plan";
import type { RunResources } from "../run-resources";
import type { EngineHost } from "../targets";
import type { Tx } from "../../db/client";

export type { EngineExecutor } from "../engine-executor";
import type { EngineExecutor } from "../engine-executor";

export type WaitCheck<T> = { ok: true; value: T } | { ok: false; why: string };

export type ActionContext = {
  runId: string;
  /** check, bootstrap, join or reset. */
  runType: string;
  planned: PlannedStep;
  host: EngineHost | undefined;
  hosts: EngineHost[];
  executor: EngineExecutor;
  signal: AbortSignal;
  resources: RunResources;
  /** When this attempt of the step began (joins and the verification prove nodes alive after it). */
  startedAt: Date;
  emit: (type: string, data: Record<string, unknown>) => Promise<void>;
  /** Writes to the database as the run's lease holder (nothing is written once the lease is lost). */
  store: (write: (tx: Tx) => Promise<unknown>) => Promise<void>;
  /**
   * Polls check until it succeeds, saying what it waits for, on which host, since when and until which
   * deadline (a `step.waiting` event); times out with the last reason it was not done.
   */
  wait: <T>(what: string, opts: { timeoutMs: number; intervalMs: number }, check: () => Promise<WaitCheck<T>>) => Promise<T>;
};

export type ActionOutcome = { ok: true; summary: string; data?: Record<string, unknown> } | { ok: false; error: string; hint?: string; data?: Record<string, unknown> };

export type Action = (ctx: ActionContext) => Promise<ActionOutcome>;

export function needHost(ctx: ActionContext): EngineHost {
  if (!ctx.host) throw new Error(`step ${ctx.planned.key} needs a host`);
  return ctx.host;
}

/** The planned command `id` of this step (and, for `host`, the one that runs there). */
export function plannedExec(ctx: Pick<ActionContext, "planned">, id: string, host?: string): PlannedExec {
  const e = (ctx.planned.exec ?? []).find((x) => x.id === id && (host === undefined || (x.host ?? ctx.planned.host) === host));
  if (!e) throw new Error(`the plan of ${ctx.planned.key} has no "${id}" command${host ? ` for ${host}` : ""}: it was made by another version of Bootdeck; plan the run again`);
  return e;
}

/** Every planned command `id` of this step, in plan order (one per host where it runs on several). */
export const plannedExecs = (ctx: Pick<ActionContext, "planned">, id: string): PlannedExec[] => (ctx.planned.exec ?? []).filter((x) => x.id === id);

/** The host a planned command runs on: its own `host`, or the step's. */
export function execHost(ctx: Pick<ActionContext, "planned" | "hosts">, e: PlannedExec): EngineHost {
  const name = e.host ?? ctx.planned.host;
  const h = ctx.hosts.find((x) => x.name === name);
  if (!h) throw new Error(`${ctx.planned.key}: command "${e.id}" names host ${name ?? "(none)"}, which is not in the run`);
  return h;
}

/** Thrown by a wait's check when waiting longer cannot help (the host is gone): the wait ends at once. */
export class WaitAbandoned extends Error {}
