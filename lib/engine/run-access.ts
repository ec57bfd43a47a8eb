import "server-only";
// The run rules of run-rules.ts against the stored run: each throws 403 with what the role may not do.
import { can } from "../auth/roles";
import { getDb } from "../db/client";
import { forbidden, notFound } from "../http/errors";
import { permissionsToRun, retryRefusal, runRefusal } from "./run-rules";

async function runTypeAndStatus(runId: string): Promise<{ type: string; status: string }> {
  const run = await getDb().run.findUnique({ where: { id: runId }, select: { type: true, status: true } });
  if (!run) throw notFound("Run");
  return run;
}

/** Planning (or starting) a run of this type. */
export function assertMayRun(role: string, type: string): void {
  if (!permissionsToRun(type).every((p) => can(role, p))) throw forbidden(runRefusal(type));
}

export async function assertMayStart({ runId, role }: { runId: string; role: string }): Promise<void> {
  assertMayRun(role, (await runTypeAndStatus(runId)).type);
}

/** Retrying a run; accepting preflight warnings overrides a safety check, so it needs `run:start` too. */
export async function assertMayRetry({ runId, role, acceptWarnings }: { runId: string; role: string; acceptWarnings?: boolean }): Promise<void> {
  const refusal = retryRefusal(role, await runTypeAndStatus(runId));
  if (refusal) throw forbidden(refusal);
  if (acceptWarnings && !can(role, "run:start")) throw forbidden("accept preflight warnings");
}
