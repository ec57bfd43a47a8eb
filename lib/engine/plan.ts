// A run's plan is data: ordered phases, each with steps per host (or for the cluster), each step naming
// the action that carries it out and exactly what it will send. It is shown before it runs and
// stored with the run. Browser-safe (types and the zod schema only).
import { z } from "zod";

/**
 * A file the step writes: where, its mode, and where its content comes from — an asset of the run's
 * asset set (checksum and size shown), or a stored credential read at run time (a secret: no checksum
 * shown). `host` names where it is written when that is not the step's own host.
 */
export const plannedFile = z.object({
  path: z.string(),
  mode: z.number().int(),
  sha256: z.string(),
  size: z.number().int(),
  asset: z.string().optional(),
  credential: z.string().optional(),
  host: z.string().optional(),
  /** The file holds a credential in the system:masters group (cluster-admin, beyond RBAC): the review marks it. */
  systemMasters: z.literal(true).optional(),
});

/**
 * A command the step sends over SSH, as an argument vector: the runner's actions execute exactly these
 * (looked up by `id`), and `commands` shows each one quoted as the host receives it. `host` names where
 * it runs when that is not the step's own host (a cluster-wide step's command on the first master).
 * `when: "needed"` marks read-only commands sent only when the step needs them (a liveness probe,
 * a failure's kubelet journal).
 */
export const plannedExec = z.object({
  id: z.string(),
  argv: z.array(z.string()),
  host: z.string().optional(),
  when: z.enum(["always", "needed"]).default("always"),
});

/** An object of the cluster's API, by identity. */
export const objectRef = z.object({ apiVersion: z.string(), kind: z.string(), name: z.string(), namespace: z.string().optional() });

/**
 * What a step does through the cluster's API, as data:
 * - `create`: the object, created when it is missing (one that is there is left as it is);
 * - `apply`: the object, created when missing, replaced when it was applied from other content;
 * - `patch`: a JSON merge patch of the object (`object.name` "*": of every object of the kind in the
 *   namespace that `options.labelSelector` picks when the step runs);
 * - `delete`: the object deleted (gone already is fine);
 * - `cordon` / `uncordon`: a Node marked (un)schedulable;
 * - `drain`: a Node's pods evicted through the Eviction API (`options` say which and for how long);
 * - `taint`: `body` (a taint) added to a Node's taints when it lacks it;
 * - `rewrite`: every object of the kind (`object.name` "*", every namespace) read and written back
 *   unchanged, so that the API server stores each again as it now writes them (with a new key).
 * `body` is what is sent (for an object from the asset set, `asset` names it and `sha256` is the
 * checksum of its JSON, checked before it is sent; a Secret's values are shown as "(secret)", never
 * sent to a browser). `rule` says what only the run can decide (an expiration a day after it is
 * applied, which pods a drain evicts); `when: "needed"` marks calls sent only when a read shows they
 * are (a missing label, a marker whose control plane is still there).
 */
export const apiVerbs = ["create", "apply", "patch", "delete", "cordon", "uncordon", "drain", "taint", "rewrite"] as const;
export const plannedApiCall = z.object({
  id: z.string(),
  verb: z.enum(apiVerbs),
  object: objectRef,
  body: z.record(z.string(), z.unknown()).optional(),
  asset: z.string().optional(),
  sha256: z.string().optional(),
  secret: z.boolean().optional(),
  options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  rule: z.string().optional(),
  when: z.enum(["always", "needed"]).default("always"),
});

export const plannedStep = z.object({
  /** Unique in the run: "phase/host/action". */
  key: z.string(),
  phase: z.string(),
  action: z.string(),
  title: z.string(),
  /** Host name, or null for a cluster-wide step. */
  host: z.string().nullable(),
  files: z.array(plannedFile).default([]),
  /** The command lines the step sends (its `exec`), each quoted as the host will see it. */
  commands: z.array(z.string()).default([]),
  /** What the step sends to hosts: the data the runner executes (see plannedExec). */
  exec: z.array(plannedExec).optional(),
  /** What the step writes through the cluster's API (see plannedApiCall). */
  api: z.array(plannedApiCall).optional(),
  /** What the step reads and waits for (prose: nothing is sent by these lines). */
  checks: z.array(z.string()).optional(),
  /** What the step writes to the cluster's off-machine backup store (an S3 bucket), from the dashboard. */
  offsite: z.array(z.string()).optional(),
  /** Steps whose failure makes this one pointless (keys); failed dependencies mark it skipped. */
  dependsOn: z.array(z.string()).default([]),
  /** Per attempt. */
  timeoutMs: z.number().int().positive(),
  /** Attempts after a failure, with back-off (downloads and package installs: a mirror or repository blip). */
  retries: z.number().int().min(0).max(5).optional(),
  /** Values the step acts with, decided when it was planned (a target version, a member's name). */
  params: z.record(z.string(), z.string()).optional(),
});

export const plannedPhase = z.object({ id: z.string(), title: z.string(), steps: z.array(plannedStep) });
/**
 * The host-side run lock of a changing run: `release` is sent to every host the run locked when it
 * ends (and, with another finished run's id in its place, to take over a lock that run left behind).
 */
export const plannedLock = z.object({ file: z.string(), release: z.array(z.string()), hosts: z.array(z.string()) });
export const runPlan = z.object({ runType: z.string(), phases: z.array(plannedPhase), lock: plannedLock.optional() });

export type PlannedStep = z.output<typeof plannedStep>;
export type PlannedExec = z.output<typeof plannedExec>;
export type PlannedApiCall = z.output<typeof plannedApiCall>;
export type ObjectRef = z.output<typeof objectRef>;
export type PlannedPhase = z.output<typeof plannedPhase>;
export type RunPlan = z.output<typeof runPlan>;

// "check" runs phases 1–2 only (facts and preflight): nothing on the hosts changes.
// "join" adds workers and masters, "remove" takes hosts out of a running cluster, "upgrade" rolls it to
// another Kubernetes version (lib/engine/plans-day2.ts). "backup", "restore", "recover" and
// "rotate-certs" are the disaster-recovery runs (lib/engine/plans-dr.ts, plans-certs.ts);
// "rotate-encryption-key" gives Secrets at rest a new key (plans-encryption.ts).
export const runTypes = ["check", "bootstrap", "join", "retry", "reset", "remove", "upgrade", "backup", "restore", "recover", "rotate-certs", "rotate-encryption-key"] as const;
// "needs-decision": the run stopped only because preflight warnings wait for an admin or lead to accept
// them (nothing failed otherwise); it is over like a failed run, and "Accept warnings and retry" goes on.
export const runStatuses = ["planned", "running", "succeeded", "failed", "needs-decision", "cancelled"] as const;
export const stepStatuses = ["pending", "running", "waiting", "done", "skipped", "failed", "cancelled"] as const;
export type RunStatus = (typeof runStatuses)[number];
export type StepStatus = (typeof stepStatuses)[number];
