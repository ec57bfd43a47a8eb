import "server-only";
// The engine worker: one per process, kept on globalThis. It runs the runs it is handed and, on
// start and every few seconds, takes over running runs whose worker's lease went stale — so a
// dashboard restarted mid-bootstrap resumes, and several workers can share one database.
import { hostname } from "node:os";
import { executeRun } from "./runner";
import { listResumableRuns } from "./runs";

const STALE_MS = 15_000;
const SWEEP_MS = 5_000;

export class EngineWorker {
  readonly workerId = `w_${hostname()}_${process.pid}`;
  private readonly active = new Map<string, Promise<unknown>>();
  private sweeper: NodeJS.Timeout | undefined;

  start(): void {
    if (this.sweeper) return;
    void this.sweep();
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  /** Runs a started run in the background (no-op when this worker already runs it). */
  schedule(runId: string): void {
    if (this.active.has(runId)) return;
    const p = executeRun(runId, { workerId: this.workerId, staleMs: STALE_MS })
      .catch((err: unknown) => console.error(`[bootdeck engine] run ${runId} stopped with an error:`, err))
      .finally(() => this.active.delete(runId));
    this.active.set(runId, p);
  }

  /** Waits for every run this worker is executing (CLI and tests). */
  async drain(): Promise<void> {
    while (this.active.size) await Promise.allSettled([...this.active.values()]);
  }

  private async sweep(): Promise<void> {
    try {
      for (const runId of await listResumableRuns({ workerId: this.workerId, staleMs: STALE_MS })) this.schedule(runId);
    } catch (err) {
      console.error("[bootdeck engine] could not look for runs to resume:", err);
    }
  }
}

const holder = globalThis as unknown as { bootdeckEngine?: EngineWorker };

export function getEngineWorker(): EngineWorker {
  return (holder.bootdeckEngine ??= new EngineWorker());
}
