// A run's plan is data: ordered phases, each with steps per host (or for the cluster), each step naming
// the action that carries it out and exactly what it will send. It is shown before it runs and
// stored with the run. Browser-safe (types and the zod schema only).
import { z } from "zod";

export const plannedFile = z.object({ path: z.string(), mode: z.number().int(), sha256: z.string(), size: z.number().int() });

export const plannedStep = z.object({
  /** Unique in the run: "phase/host/action". */
  key: z.string(),
  phase: z.string(),
  action: z.string(),
  title: z.string(),
  /** Host name, or null for a cluster-wide step. */
  host: z.string().nullable(),
  files: z.array(plannedFile).default([]),
  /** The command lines the step sends, as the host will see them. */
  commands: z.array(z.string()).default([]),
  /** Steps whose failure makes this one pointless (keys); failed dependencies mark it skipped. */
  dependsOn: z.array(z.string()).default([]),
  /** Per attempt. */
  timeoutMs: z.number().int().positive(),
  /** Attempts after a failure, with back-off (downloads and package installs: a mirror or repository blip). */
  retries: z.number().int().min(0).max(5).optional(),
});

export const plannedPhase = z.object({ id: z.string(), title: z.string(), steps: z.array(plannedStep) });
export const runPlan = z.object({ runType: z.string(), phases: z.array(plannedPhase) });

export type PlannedStep = z.output<typeof plannedStep>;
export type PlannedPhase = z.output<typeof plannedPhase>;
export type RunPlan = z.output<typeof runPlan>;

// "check" runs phases 1–2 only (facts and preflight): nothing on the hosts changes.
export const runTypes = ["check", "bootstrap", "join", "retry", "reset"] as const;
// "needs-decision": the run stopped only because preflight warnings wait for an admin or lead to accept
// them (nothing failed otherwise); it is over like a failed run, and "Accept warnings and retry" goes on.
export const runStatuses = ["planned", "running", "succeeded", "failed", "needs-decision", "cancelled"] as const;
export const stepStatuses = ["pending", "running", "waiting", "done", "skipped", "failed", "cancelled"] as const;
export type RunStatus = (typeof runStatuses)[number];
export type StepStatus = (typeof stepStatuses)[number];
