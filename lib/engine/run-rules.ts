// Who may do what to a run, beyond the plain permission of the route: the rules that depend on the
// run's type and status, or on the request body. Browser-safe: the run page hides what these refuse,
// and the routes enforce them (lib/engine/run-access.ts).
import { can, type Permission } from "../auth/roles";
import { drRunPermission, drRunRefusal, isDrRunType } from "./dr-schemas";

/** What planning or starting a run of `type` needs: a reset deletes etcd's data, so admins only. */
export function permissionsToRun(type: string): Permission[] {
  if (isDrRunType(type)) return ["run:start", drRunPermission[type]];
  return type === "reset" ? ["run:start", "host:reset"] : ["run:start"];
}

/**
 * Why `role` may not retry a run of `type` in `status`, or undefined when it may. Admins and leads
 * retry any failed or cancelled run they could start. Support (`run:retry` only) retries failed runs:
 * not a cancelled one (someone stopped it on purpose), and never a reset.
 */
export function retryRefusal(role: string, run: { type: string; status: string }): string | undefined {
  if (run.type === "reset" && !can(role, "host:reset")) return "retry a host reset";
  // Support only reads backups and recoveries: retrying one needs what starting it needs.
  if (isDrRunType(run.type) && !permissionsToRun(run.type).every((p) => can(role, p))) return `retry ${drRunRefusal[run.type]}`;
  if (!can(role, "run:retry")) return "retry runs";
  if (can(role, "run:start")) return undefined;
  if (run.status === "cancelled") return "retry a cancelled run";
  return undefined;
}
