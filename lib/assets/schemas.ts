// Request shapes and query keys of the assets API; browser-safe so the Assets tab sends exactly what the server parses.
import { z } from "zod";

const days = z.number({ error: "must be a number" }).int("must be a whole number of days").min(1, "must be at least 1 day").max(36500, "must be at most 36500 days");

// The key algorithm is the cluster's (spec.pki.encryptionAlgorithm), not a render option.
export const renderAssetsBody = z.strictObject({
  caValidityDays: days.default(3650),
  leafValidityDays: days.default(365),
  importedCa: z
    .strictObject({
      certPem: z.string().min(1, "is required").max(64 * 1024, "must be at most 64 KiB"),
      keyPem: z.string().min(1, "is required").max(64 * 1024, "must be at most 64 KiB"),
    })
    .optional(),
});
export type RenderAssetsBody = z.input<typeof renderAssetsBody>;

const clusterId = z.string().regex(/^cl_[A-Za-z0-9_-]{16}$/);
export const assetSetId = z.string().regex(/^as_[A-Za-z0-9_-]{16}$/);
export const assetSetParams = z.strictObject({ id: clusterId, setId: assetSetId });
export const renderJobParams = z.strictObject({ id: clusterId, jobId: z.string().regex(/^rj_[A-Za-z0-9_-]{16}$/) });

export const assetQueryKeys = {
  sets: (clusterId: string) => ["clusters", clusterId, "asset-sets"] as const,
  set: (clusterId: string, setId: string) => ["clusters", clusterId, "asset-sets", setId] as const,
  diff: (clusterId: string, from: string, to: string) => ["clusters", clusterId, "asset-sets", from, "diff", to] as const,
  job: (clusterId: string, jobId: string) => ["clusters", clusterId, "render-jobs", jobId] as const,
};

export type RenderJobView = {
  id: string;
  clusterId: string;
  status: "running" | "done" | "failed";
  done: number;
  total: number;
  label: string;
  result?: { id: string; version: number; fileCount: number };
  error?: { message: string; problems?: { path: string; message: string }[] };
};
