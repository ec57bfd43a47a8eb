import "server-only";
// Every write the engine makes for a running run goes through here: one transaction that first renews
// the run's lease *as its holder* (a guarded update naming the worker) and then writes step rows,
// events and host state together. A worker whose lease was taken over, or whose run was released or
// finished meanwhile, gets LeaseLost and writes nothing more; a step row and the event that tells of
// it commit together or not at all.
import { getDb, type Tx } from "../db/client";
import { appendRunEventIn, publishRunEvent, type RunEventInput, type StoredRunEvent } from "./events";

export type Append = (e: Omit<RunEventInput, "runId">) => Promise<StoredRunEvent>;

export class LeaseLost extends Error {
  constructor(
    readonly runId: string,
    readonly workerId: string,
  ) {
    super(`worker ${workerId} no longer holds run ${runId} (another worker took it over, or it was released or finished)`);
    this.name = "LeaseLost";
  }
}

export type Lease = { runId: string; workerId: string };

/** Runs `write` in one transaction if, and only if, `workerId` still holds the running run's lease (renewing it). */
export async function writeAsHolder<T>(lease: Lease, write: (tx: Tx, append: Append) => Promise<T>): Promise<T> {
  const events: StoredRunEvent[] = [];
  const result = await getDb().$transaction(async (tx) => {
    const held = await tx.run.updateMany({ where: { id: lease.runId, workerId: lease.workerId, status: "running" }, data: { heartbeatAt: new Date() } });
    if (held.count !== 1) throw new LeaseLost(lease.runId, lease.workerId);
    return write(tx, async (e) => {
      const stored = await appendRunEventIn(tx, { ...e, runId: lease.runId });
      events.push(stored);
      return stored;
    });
  });
  for (const e of events) publishRunEvent(e);
  return result;
}

/** One event, as the lease holder. */
export async function appendAsHolder(lease: Lease, e: Omit<RunEventInput, "runId">): Promise<StoredRunEvent> {
  return writeAsHolder(lease, (_tx, append) => append(e));
}
