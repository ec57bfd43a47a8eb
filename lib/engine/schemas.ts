// Request shapes of the runs API; browser-safe.
import { z } from "zod";
import { batchSize } from "./day2/batches";
import { drRunBodies, drRunTypes } from "./dr-schemas";

const hostName = z.string().min(1).max(253);

export const createRunBody = z.discriminatedUnion(
  "type",
  [
    /** Phases 1–2 only (facts and preflight): nothing on the hosts changes. */
    z.strictObject({ type: z.literal("check") }),
    /** The whole self-hosted bootstrap, phases 1–10. */
    z.strictObject({ type: z.literal("bootstrap"), acceptWarnings: z.boolean().optional() }),
    /** Add hosts of the definition to a running cluster: workers join with the bootstrap token, masters join etcd one at a time. */
    z.strictObject({ type: z.literal("join"), hosts: z.array(hostName).min(1), acceptWarnings: z.boolean().optional() }),
    /** Stop the kubelet and remove what Bootdeck installed, on the named hosts. */
    z.strictObject({ type: z.literal("reset"), hosts: z.array(hostName).min(1), confirm: z.literal(true, { error: "resetting hosts needs confirm: true" }) }),
    /**
     * Take hosts out of a running cluster (etcd member first, drain, Node, reset) and out of its
     * definition. `reset: false` when a host is gone for good and cannot be reset.
     */
    z.strictObject({
      type: z.literal("remove"),
      hosts: z.array(hostName).min(1),
      confirm: z.literal(true, { error: "removing hosts needs confirm: true" }),
      reset: z.boolean().optional(),
      drainTimeoutSeconds: z.number().int().min(10).max(3600).optional(),
    }),
    /** Roll the cluster to another Kubernetes version: control plane first, then the kubelets in batches. */
    z.strictObject({
      type: z.literal("upgrade"),
      version: z.string().max(32).regex(/^v\d+\.\d+\.\d+$/, "must look like v1.37.2"),
      batches: z.strictObject({ masters: batchSize.optional(), workers: batchSize.optional() }).optional(),
      drainTimeoutSeconds: z.number().int().min(10).max(3600).optional(),
    }),
    ...drRunBodies,
  ],
  { error: `type must be one of check, bootstrap, join, reset, remove, upgrade, ${drRunTypes.join(", ")}` },
);
export type CreateRunBody = z.output<typeof createRunBody>;

/** Retry a finished run: one failed step, every failed step of one host, or (neither given) all failures. */
export const retryRunBody = z.strictObject({
  step: z.string().min(1).max(600).optional(),
  host: hostName.optional(),
  /** Preflight warnings stop a bootstrap or join until an admin or lead accepts them. */
  acceptWarnings: z.boolean().optional(),
});

/** An admin ends a stuck run: confirm it, and say why (kept in the run and the audit trail). */
export const releaseRunBody = z.strictObject({
  confirm: z.literal(true, { error: "releasing a run needs confirm: true" }),
  reason: z.string().trim().max(500).optional(),
});

/** A host's pinned SSH key next to the one it offers now (POST /api/clusters/:id/hosts/:host/host-key/probe). */
export type HostKeyProbe = { host: string; address: string; port: number; pinned: string | null; offered: string; matches: boolean };

export const runIdParams = z.strictObject({ id: z.string().regex(/^run_[A-Za-z0-9_-]{16}$/) });

/**
 * GET /api/runs/:id/steps/:key/output: the step key is one path segment (its "/" encoded as %2F). Keys
 * are a phase and a host name: printable ASCII only (a lone surrogate or NUL never reaches the database).
 */
export const stepOutputParams = z.strictObject({ id: runIdParams.shape.id, key: z.string().min(1).max(600).regex(/^[\x21-\x7e]+$/) });

export const runQueryKeys = {
  run: (id: string) => ["runs", id] as const,
  /** Every step output of a run (the prefix of `stepOutput`), to refetch them together. */
  stepOutputs: (runId: string) => ["runs", runId, "step-output"] as const,
  stepOutput: (runId: string, stepKey: string) => ["runs", runId, "step-output", stepKey] as const,
  clusterRuns: (clusterId: string) => ["clusters", clusterId, "runs"] as const,
};

/**
 * Events a run emits (data shapes). The run page applies them to its snapshot; `step.waiting` says what a
 * step waits for, where, since when and until which deadline ("waiting for kube-apiserver on master-1").
 */
export type StepWaitingEvent = { key: string; what: string; host: string | null; since: string; deadline: string; /** What it is still waiting on; the wait says it again when that changes. */ why?: string };

/** Between a failed step's stored output tail and the kubelet journal the engine appended to it. */
export const JOURNAL_MARKER = "--- kubelet journal (last lines) ---";

/** One line of a step's output: `note` lines are Bootdeck's own (a later attempt starts). */
export type StepOutputLine = { seq: number; stream: "stdout" | "stderr" | "note"; line: string };

/** A step's whole output (GET /api/runs/:id/steps/:key/output; lib/engine/step-output.ts). */
export type StepOutput = {
  key: string;
  status: string;
  /** The run's last event when this was read: live `step.output` events after it continue the lines. */
  lastSeq: number;
  /** Oldest first; at most 20 000 (the last ones). */
  lines: StepOutputLine[];
  /** Earlier lines were left out. */
  truncated: boolean;
  /** The kubelet journal the engine fetched for a failed step (after the live lines). */
  journal: string[];
  /** "tail": the event log had no line for this step, so the stored last 200 lines stand in. */
  source: "events" | "tail";
};

/**
 * The note a step's own event adds to its output, or null: where a later attempt starts (a retry run,
 * a resumed step, the step's retry policy). Shared by the server's full output and the page's live lines.
 */
export function stepOutputNote(type: string, data: Record<string, unknown>): string | null {
  if (type === "step.started") {
    const attempt = Number(data.attempt ?? 1);
    if (attempt > 1) return `── attempt ${attempt}${data.resumed ? " (resumed after a worker stopped)" : ""} ──`;
    return data.resumed ? "── resumed after a worker stopped ──" : null;
  }
  if (type === "step.retrying") {
    const inS = Math.round(Number(data.inMs ?? 0) / 1000);
    return `── ${String(data.error ?? "failed")}; attempt ${String(data.attempt ?? "?")} of ${String(data.of ?? "?")} in ${inS} s ──`;
  }
  return null;
}
