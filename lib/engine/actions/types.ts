// What an action receives and returns. Actions are plain functions of this context, so the runner
// owns persistence, events, timeouts and cancellation in one place.
import type { Executor } from "../../ssh";
import type { PlannedStep } from "../plan";
import type { RunResources } from "../run-resources";
import type { EngineHost } from "../targets";

export type WaitCheck<T> = { ok: true; value: T } | { ok: false; why: string };

export type ActionContext = {
  runId: string;
  /** check, bootstrap, join or reset. */
  runType: string;
  planned: PlannedStep;
  host: EngineHost | undefined;
  hosts: EngineHost[];
  executor: Executor;
  signal: AbortSignal;
  resources: RunResources;
  emit: (type: string, data: Record<string, unknown>) => Promise<void>;
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

/** Thrown by a wait's check when waiting longer cannot help (the host is gone): the wait ends at once. */
export class WaitAbandoned extends Error {}
