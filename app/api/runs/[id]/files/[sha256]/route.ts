import { z } from "zod";
import { getRunFile } from "@/lib/assets/store";
import { runIdParams } from "@/lib/engine/schemas";
import { json, route } from "@/lib/http/route";

const params = z.strictObject({ id: runIdParams.shape.id, sha256: z.string().regex(/^[0-9a-f]{64}$/) });

// GET /api/runs/:id/files/:sha256 — a file the run's plan sends (by its checksum): content, or hidden when it is a secret.
export const GET = route({ permission: "cluster:read", params }, async ({ params }) => json(await getRunFile({ runId: params.id, sha256: params.sha256 })));
