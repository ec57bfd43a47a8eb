import { clusterAlerts } from "@/lib/certs/expiry";
import { json, route } from "@/lib/http/route";

// GET /api/clusters/alerts — per cluster: a failing backup schedule, certificates ending within 30 days.
export const GET = route({ permission: "cluster:read" }, async () => json(await clusterAlerts()));
