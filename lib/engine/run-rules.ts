// Who may do what to a run, beyond the plain permission of the route: the rules that depend on the
// run's type and status, or on the request body. Browser-safe: the run page hides what these refuse,
// and the routes enforce them (lib/engine/run-access.ts).
import { can, type Permission } from "../auth/roles";
import { drRunNoun, drRunPermission, drRunRefusal, isDrRunType } from "./dr-schemas";
import { WARNINGS_NEED_DECISION } from "../clusters/host-state";

/** Run types that take hosts apart: a reset deletes etcd's data, a removal takes masters out of etcd. Admins only. */
export const DESTRUCTIVE_RUNS: readonly string[] = ["reset", "remove"];

/**
 * What planning or starting a run of `type` needs: a reset or a removal needs host:reset (admins); a
 * backup, restore, recovery or certificate rotation its own permission (dr-schemas.ts).
 */
export function permissionsToRun(type: string): Permission[] {
  if (isDrRunType(type)) return ["run:start", drRunPermission[type]];
  return DESTRUCTIVE_RUNS.includes(type) ? ["run:start", "host:reset"] : ["run:start"];
}

/** What a role that may not plan or start a run of `type` may not do, for "Your role may not …". */
export function runRefusal(type: string): string {
  if (type === "reset") return "reset hosts";
  if (type === "remove") return "remove hosts";
  return isDrRunType(type) ? drRunRefusal[type] : "start runs";
}

/**
 * Why `role` may not retry a run of `type` in `status`, or undefined when it may. Admins and leads
 * retry any failed, stopped or cancelled run they could start. Support (`run:retry` only) retries failed
 * runs: not a cancelled one (someone stopped it on purpose), not one that needs a decision on warnings
 * (an admin or lead accepts them), and never a reset.
 */
export function retryRefusal(role: string, run: { type: string; status: string }): string | undefined {
  if (DESTRUCTIVE_RUNS.includes(run.type) && !can(role, "host:reset")) return run.type === "reset" ? "retry a host reset" : "retry a host removal";
  // Support only reads backups and recoveries: retrying one needs what starting it needs.
  if (isDrRunType(run.type) && !permissionsToRun(run.type).every((p) => can(role, p))) return `retry ${drRunNoun[run.type]}`;
  if (!can(role, "run:retry")) return "retry runs";
  if (can(role, "run:start")) return undefined;
  if (run.status === "cancelled") return "retry a cancelled run";
  // Stopped only by warnings: retried as it is, it stops again; an admin or lead accepts them instead.
  if (run.status === "needs-decision") return "retry a run that waits for an admin's or lead's decision";
  return undefined;
}

/**
 * How a run that stopped ends: cancelled; stopped only by preflight warnings that wait for an admin's or
 * lead's decision (not a failure: accepting them goes on); failed; or succeeded.
 */
export type FinishedStatus = "succeeded" | "failed" | "needs-decision" | "cancelled";

export function finishedStatus({ cancelled, stopped, failedErrors }: { cancelled: boolean; stopped: boolean; failedErrors: readonly (string | null)[] }): FinishedStatus {
  if (cancelled) return "cancelled";
  if (failedErrors.length > 0 && failedErrors.every((e) => e?.includes(WARNINGS_NEED_DECISION))) return "needs-decision";
  return failedErrors.length > 0 || stopped ? "failed" : "succeeded";
}
