import { recordAudit } from "@/lib/audit/record";
import { runSupportBundle } from "@/lib/engine/bundle";
import { runIdParams } from "@/lib/engine/schemas";
import { route } from "@/lib/http/route";

// GET /api/runs/:id/bundle — the run's support bundle (.tar.gz), from the database only, secrets redacted.
export const GET = route({ permission: "cluster:read", params: runIdParams }, async ({ params, user, ip }) => {
  const { filename, buffer } = await runSupportBundle({ runId: params.id });
  await recordAudit({ action: "run.bundle", userId: user.id, username: user.username, ip, target: params.id, details: { bytes: buffer.length } });
  return new Response(new Uint8Array(buffer), {
    headers: {
      "content-type": "application/gzip",
      "content-disposition": `attachment; filename="${filename}"`,
      "content-length": String(buffer.length),
      "cache-control": "no-store",
    },
  });
});
