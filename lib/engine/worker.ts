import "server-only";
// The engine worker: one per process, kept on globalThis. It runs the runs it is handed and, on
// start and every second, takes over running runs that nobody holds: unheld ones (started through a
// dashboard with BOOTDECK_ENGINE=off, or handed over by a worker that shut down), those whose lease
// went stale, and — at once — those held by a process of this machine that no longer exists (a
// restarted dashboard resumes its runs in about a second instead of waiting for the lease to go stale).
// On shutdown it stops its runs without ending them and gives their leases up.
import { executeRun } from "./runner";
import { listResumableRuns, releaseLease } from "./runs";
import { localWorkerId } from "../worker-id";

/** A lease not renewed for this long lets another worker take the run (unless its holder's process is known gone). */
export const STALE_MS = 15_000;
const SWEEP_MS = 1_000;

export class EngineWorker {
  readonly workerId = localWorkerId();
  private readonly active = new Map<string, Promise<unknown>>();
  private readonly shutdown = new AbortController();
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;

  start(): void {
    if (this.sweeper || this.shutdown.signal.aborted) return;
    void this.sweep();
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** The runs this worker is executing now. */
  get runs(): string[] {
    return [...this.active.keys()];
  }

  /**
   * Stops taking runs; with `handOver`, also stops the runs in flight without ending them (commands on
   * hosts are stopped, steps stay as they are) and releases their leases, so another worker resumes
   * them at once. Resolves when every run has let go.
   */
  async stop({ handOver = false, graceMs = 5_000 }: { handOver?: boolean; graceMs?: number } = {}): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    if (!handOver) return;
    const runs = this.runs;
    this.shutdown.abort();
    // Each run stops its commands and gives its lease up itself; one that takes longer than the grace
    // period has its lease released here (its later writes are refused).
    const drained = this.drain().then(() => true);
    if (!(await Promise.race([drained, new Promise<false>((r) => setTimeout(() => r(false), graceMs).unref())])))
      await Promise.all(runs.map((runId) => releaseLease({ runId, workerId: this.workerId })));
  }

  /** Runs a started run in the background (no-op when this worker already runs it, or is shutting down). */
  schedule(runId: string): void {
    if (this.active.has(runId) || this.shutdown.signal.aborted) return;
    const p = executeRun(runId, { workerId: this.workerId, staleMs: STALE_MS, shutdown: this.shutdown.signal })
      .catch((err: unknown) => console.error(`[bootdeck engine] run ${runId} stopped with an error:`, err))
      .finally(() => this.active.delete(runId));
    this.active.set(runId, p);
  }

  /** Waits for every run this worker is executing (CLI and tests). */
  async drain(): Promise<void> {
    while (this.active.size) await Promise.allSettled([...this.active.values()]);
  }

  private async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const runId of await listResumableRuns({ workerId: this.workerId, staleMs: STALE_MS })) this.schedule(runId);
    } catch (err) {
      console.error("[bootdeck engine] could not look for runs to resume:", err);
    } finally {
      this.sweeping = false;
    }
  }
}

const holder = globalThis as unknown as { bootdeckEngine?: EngineWorker };

export function getEngineWorker(): EngineWorker {
  return (holder.bootdeckEngine ??= new EngineWorker());
}
