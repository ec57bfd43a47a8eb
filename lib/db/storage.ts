import "server-only";
// A full disk under the database. SQLite answers SQLITE_FULL ("database or disk is full") to a write
// that needs space it cannot get; reads go on working. This process remembers that it saw one (and
// since when) until a write succeeds again: requests that hit it fail at once with a 503 that says so,
// the run page shows it, and the engine waits for space instead of failing runs (lib/engine/runner.ts).
import { AppError } from "../errors";

const holder = globalThis as unknown as { bootdeckStorage?: { fullSince: Date | null } };
const state = (holder.bootdeckStorage ??= { fullSince: null });

export const DISK_FULL_MESSAGE = "The database disk is full: free space on the disk of Bootdeck's data directory; Bootdeck goes on by itself once there is room";

/** Whether an error (or its cause) is SQLite's "database or disk is full". */
export function isDiskFull(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== "object" || depth > 5) return false;
  const e = err as { message?: unknown; code?: unknown; cause?: unknown; meta?: unknown };
  if (e.code === "SQLITE_FULL") return true;
  if (typeof e.message === "string" && /database or disk is full|SQLITE_FULL/.test(e.message)) return true;
  if (e.meta && JSON.stringify(e.meta).includes("SQLITE_FULL")) return true;
  return isDiskFull(e.cause, depth + 1);
}

export class DatabaseFullError extends AppError {
  constructor() {
    super(503, "database_full", DISK_FULL_MESSAGE);
    this.name = "DatabaseFullError";
  }
}

export function noteDiskFull(): void {
  state.fullSince ??= new Date();
}

/** A write succeeded: the disk has room again. Returns since when it had been full, if it was. */
export function noteWriteOk(): Date | null {
  const since = state.fullSince;
  state.fullSince = null;
  return since;
}

export type StorageStatus = { full: boolean; since: string | null; message: string | null };

export function storageStatus(): StorageStatus {
  return state.fullSince ? { full: true, since: state.fullSince.toISOString(), message: DISK_FULL_MESSAGE } : { full: false, since: null, message: null };
}
