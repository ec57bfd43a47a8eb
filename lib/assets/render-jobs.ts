import "server-only";
// Renders started from the dashboard run in the server process and report progress through a job
// the Assets tab polls: an RSA render takes seconds, and nothing waits on it without a progress bar.
// Jobs live in memory (one server process); a restart loses only the progress of a render in flight.
import { randomBytes } from "node:crypto";
import { AppError, conflict } from "../http/errors";
import type { RenderJobView } from "./schemas";
import { renderAndSaveAssetSet } from "./store";
import { RenderOptionsError, RenderValidationError, type ImportedCa, type KeyType } from "./types";

const KEEP_MS = 10 * 60 * 1000;
const holder = globalThis as unknown as { bootdeckRenderJobs?: Map<string, RenderJobView & { finishedAt?: number }> };
const jobs = (holder.bootdeckRenderJobs ??= new Map());

function prune(now: number): void {
  for (const [id, j] of jobs) if (j.finishedAt !== undefined && now - j.finishedAt > KEEP_MS) jobs.delete(id);
}

export function startRenderJob(input: {
  clusterId: string;
  options: { keyType: KeyType; caValidityDays: number; leafValidityDays: number; importedCa?: ImportedCa };
}): RenderJobView {
  prune(Date.now());
  for (const j of jobs.values()) if (j.clusterId === input.clusterId && j.status === "running") throw conflict("A render of this cluster is already running");
  const job: RenderJobView & { finishedAt?: number } = {
    id: `rj_${randomBytes(12).toString("base64url")}`,
    clusterId: input.clusterId,
    status: "running",
    done: 0,
    total: 1,
    label: "starting",
  };
  jobs.set(job.id, job);
  renderAndSaveAssetSet({
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
  return { ...job };
}

export function getRenderJob({ clusterId, jobId }: { clusterId: string; jobId: string }): RenderJobView | undefined {
  const j = jobs.get(jobId);
  if (!j || j.clusterId !== clusterId) return undefined;
  const { finishedAt: _f, ...view } = j;
  return view;
}
