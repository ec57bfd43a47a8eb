import "server-only";
import { getEnv } from "@/lib/env";
import { scrapeRoute } from "@/lib/http/route";
import { METRICS_CONTENT_TYPE, renderMetrics } from "@/lib/metrics/metrics";

// GET /metrics — the Prometheus text format (docs/metrics.md): a scraper sends BOOTDECK_METRICS_TOKEN
// as a bearer token; a signed-in user may look too.
export const GET = scrapeRoute({ permission: "metrics:read", token: () => getEnv().BOOTDECK_METRICS_TOKEN }, async () =>
  new Response(await renderMetrics(), { headers: { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" } }),
);

export const dynamic = "force-dynamic";
