import "server-only";
// Renders started from the dashboard run in the server process and report progress through a job
// the Assets tab polls: an RSA render takes seconds, and nothing waits on it without a progress bar.
// Jobs live in memory (one server process); a restart loses only the progress of a render in flight.
import { randomBytes } from "node:crypto";
import { getDb } from "../db/client";
import { AppError, conflict } from "../http/errors";
import type { RenderJobView } from "../assets/schemas";
import { parseSetOptions } from "../assets/set-options";
import { clusterEncryptionAlgorithm } from "../assets/store";
import { RenderOptionsError, RenderValidationError, type ImportedCa } from "../assets/types";
import { renderAndSaveAssetSet } from "./render-assets";
import { getClusterOrThrow } from "./repository";

const KEEP_MS = 10 * 60 * 1000;
type Job = RenderJobView & { finishedAt?: number; settled?: Promise<unknown> };
const holder = globalThis as unknown as { bootdeckRenderJobs?: Map<string, Job> };
const jobs = (holder.bootdeckRenderJobs ??= new Map());

/** The validity a bootstrap renders with when nobody chose otherwise (the key algorithm is the cluster's: lib/assets/store.ts). */
export const DEFAULT_RENDER = { caValidityDays: 3650, leafValidityDays: 365 } as const;

function prune(now: number): void {
  for (const [id, j] of jobs) if (j.finishedAt !== undefined && now - j.finishedAt > KEEP_MS) jobs.delete(id);
}

export function startRenderJob(input: {
  clusterId: string;
  options: { caValidityDays: number; leafValidityDays: number; importedCa?: ImportedCa };
}): RenderJobView {
  prune(Date.now());
  for (const j of jobs.values()) if (j.clusterId === input.clusterId && j.status === "running") throw conflict("A render of this cluster is already running");
  const job: Job = {
    id: `rj_${randomBytes(12).toString("base64url")}`,
    clusterId: input.clusterId,
    status: "running",
    done: 0,
    total: 1,
    label: "starting",
  };
  jobs.set(job.id, job);
  job.settled = renderAndSaveAssetSet({
    clusterId: input.clusterId,
    options: {
      ...input.options,
      onProgress: (done, total, label) => Object.assign(job, { done, total, label }),
    },
  }).then(
    (result) => Object.assign(job, { status: "done", result, label: "saved", finishedAt: Date.now() }),
    (err: unknown) => {
      const error =
        err instanceof RenderValidationError
          ? { message: err.message, problems: err.problems }
          : err instanceof RenderOptionsError || err instanceof AppError
            ? { message: err.message }
            : { message: "The render failed on the server; the error was logged" };
      if (!(err instanceof RenderValidationError || err instanceof RenderOptionsError || err instanceof AppError)) console.error("[bootdeck] render failed:", err);
      Object.assign(job, { status: "failed", error, finishedAt: Date.now() });
    },
  );
  return view(job);
}

const view = ({ finishedAt: _f, settled: _s, ...v }: Job): RenderJobView => ({ ...v });

/** The render of this cluster under way in this process, if any. */
export function runningRenderJob(clusterId: string): RenderJobView | undefined {
  for (const j of jobs.values()) if (j.clusterId === clusterId && j.status === "running") return view(j);
  return undefined;
}

/** Waits for this cluster's render under way (if any), so that a plan uses its set rather than rendering another. */
export async function awaitRunningRender(clusterId: string): Promise<void> {
  for (const j of jobs.values()) if (j.clusterId === clusterId && j.status === "running") await j.settled?.catch(() => undefined);
}

/**
 * Render ahead: the cluster's first asset set, started in the background when it has none (or its
 * latest is of another key algorithm than the definition now asks for) and no render is under way (RSA
 * keys take seconds). Returns "ready" when a set exists, else the job to poll. Called when a cluster is
 * saved, and by the run buttons before they plan.
 */
export async function ensureAssetSet({ clusterId }: { clusterId: string }): Promise<{ ready: true } | { ready: false; job: RenderJobView; started: boolean }> {
  const running = runningRenderJob(clusterId);
  if (running) return { ready: false, job: running, started: false };
  const latest = await getDb().assetSet.findFirst({ where: { clusterId }, orderBy: { version: "desc" }, select: { options: true } });
  if (latest) {
    const { definition } = await getClusterOrThrow({ id: clusterId });
    if (parseSetOptions(latest.options).encryptionAlgorithm === (await clusterEncryptionAlgorithm({ clusterId, definition }))) return { ready: true };
  }
  return { ready: false, job: startRenderJob({ clusterId, options: { ...DEFAULT_RENDER } }), started: true };
}

export function getRenderJob({ clusterId, jobId }: { clusterId: string; jobId: string }): RenderJobView | undefined {
  const j = jobs.get(jobId);
  if (!j || j.clusterId !== clusterId) return undefined;
  return view(j);
}
