// Request shapes of the runs API; browser-safe.
import { z } from "zod";

const hostName = z.string().min(1).max(253);

export const createRunBody = z.discriminatedUnion(
  "type",
  [
    /** Phases 1–2 only (facts and preflight): nothing on the hosts changes. */
    z.strictObject({ type: z.literal("check") }),
    /** The whole self-hosted bootstrap, phases 1–10. */
    z.strictObject({ type: z.literal("bootstrap"), acceptWarnings: z.boolean().optional() }),
    /** Add hosts of the definition to a running cluster (their kubelets join with the bootstrap token). */
    z.strictObject({ type: z.literal("join"), hosts: z.array(hostName).min(1), acceptWarnings: z.boolean().optional() }),
    /** Stop the kubelet and remove what Bootdeck installed, on the named hosts. */
    z.strictObject({ type: z.literal("reset"), hosts: z.array(hostName).min(1), confirm: z.literal(true, { error: "resetting hosts needs confirm: true" }) }),
  ],
  { error: "type must be one of check, bootstrap, join, reset" },
);
export type CreateRunBody = z.output<typeof createRunBody>;

/** Retry a finished run: one failed step, every failed step of one host, or (neither given) all failures. */
export const retryRunBody = z.strictObject({
  step: z.string().min(1).max(600).optional(),
  host: hostName.optional(),
  /** Preflight warnings stop a bootstrap or join until an admin or lead accepts them. */
  acceptWarnings: z.boolean().optional(),
});

export const runIdParams = z.strictObject({ id: z.string().regex(/^run_[A-Za-z0-9_-]{16}$/) });

export const runQueryKeys = {
  run: (id: string) => ["runs", id] as const,
  clusterRuns: (clusterId: string) => ["clusters", clusterId, "runs"] as const,
};

/**
 * Events a run emits (data shapes). The run page applies them to its snapshot; `step.waiting` says what a
 * step waits for, where, since when and until which deadline ("waiting for kube-apiserver on master-1").
 */
export type StepWaitingEvent = { key: string; what: string; host: string | null; since: string; deadline: string };

/** In a preflight step's error when its warnings stop a bootstrap or join until an admin accepts them. */
export const WARNINGS_NEED_DECISION = "need an admin's decision";
