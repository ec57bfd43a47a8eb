// Who may do what to a run, beyond the plain permission of the route: the rules that depend on the
// run's type and status, or on the request body. Browser-safe: the run page hides what these refuse,
// and the routes enforce them (lib/engine/run-access.ts).
import { can, type Permission } from "../auth/roles";

/** Run types that take hosts apart: a reset deletes etcd's data, a removal takes masters out of etcd. Admins only. */
export const DESTRUCTIVE_RUNS: readonly string[] = ["reset", "remove"];

/** What planning or starting a run of `type` needs: a reset or a removal needs host:reset (admins). */
export function permissionsToRun(type: string): Permission[] {
  return DESTRUCTIVE_RUNS.includes(type) ? ["run:start", "host:reset"] : ["run:start"];
}

/**
 * Why `role` may not retry a run of `type` in `status`, or undefined when it may. Admins and leads
 * retry any failed or cancelled run they could start. Support (`run:retry` only) retries failed runs:
 * not a cancelled one (someone stopped it on purpose), and never a reset.
 */
export function retryRefusal(role: string, run: { type: string; status: string }): string | undefined {
  if (DESTRUCTIVE_RUNS.includes(run.type) && !can(role, "host:reset")) return run.type === "reset" ? "retry a host reset" : "retry a host removal";
  if (!can(role, "run:retry")) return "retry runs";
  if (can(role, "run:start")) return undefined;
  if (run.status === "cancelled") return "retry a cancelled run";
  return undefined;
}
