// Request shapes of the runs API; browser-safe.
import { z } from "zod";

export const createRunBody = z.strictObject({ type: z.enum(["check"], { error: "this version can plan check runs (facts and preflight)" }) });
export const runIdParams = z.strictObject({ id: z.string().regex(/^run_[A-Za-z0-9_-]{16}$/) });

export const runQueryKeys = {
  run: (id: string) => ["runs", id] as const,
  clusterRuns: (clusterId: string) => ["clusters", clusterId, "runs"] as const,
};
