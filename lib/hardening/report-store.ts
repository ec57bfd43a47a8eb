import "server-only";
// Uploaded conformance and CIS benchmark reports: parsed (lib/hardening/reports.ts), kept as their
// summary with the cluster, audited; the newest of each kind is what the cluster page shows.
import { z } from "zod";
import { recordAudit } from "../audit/record";
import { getDb } from "../db/client";
import { newId } from "../ids";
import { parseReport } from "./reports";
import { reportKind, reportTool, type ClusterReports, type ReportSummary } from "./schemas";
import { clusterMustExist } from "../clusters/exists";

/** The largest report read: a whole conformance run's JUnit (every spec, skipped ones included) is 1–2 MB. */
export const REPORT_LIMIT = 16 * 1024 * 1024;

const failuresJson = z.array(z.object({ id: z.string(), message: z.string() }));
type Row = { id: string; kind: string; tool: string; title: string; passed: number; failed: number; warned: number; skipped: number; failures: string; ranAt: Date | null; uploadedBy: string; createdAt: Date };

function summaryOf(r: Row): ReportSummary {
  const failures = failuresJson.safeParse(JSON.parse(r.failures));
  return {
    id: r.id,
    kind: reportKind.parse(r.kind),
    tool: reportTool.parse(r.tool),
    title: r.title,
    passed: r.passed,
    failed: r.failed,
    warned: r.warned,
    skipped: r.skipped,
    failures: failures.success ? failures.data : [],
    ranAt: r.ranAt?.toISOString() ?? null,
    uploadedBy: r.uploadedBy,
    uploadedAt: r.createdAt.toISOString(),
  };
}

/** Reads the report, keeps its summary with the cluster and audits it; what was kept. */
export async function recordReport(input: { clusterId: string; text: string; user: { id?: string; username: string }; ip?: string; via?: "cli" }): Promise<ReportSummary> {
  const db = getDb();
  await clusterMustExist(input.clusterId);
  const r = parseReport(input.text);
  const row = await db.clusterReport.create({
    data: {
      id: newId("rep"),
      clusterId: input.clusterId,
      kind: r.kind,
      tool: r.tool,
      title: r.title,
      passed: r.passed,
      failed: r.failed,
      warned: r.warned,
      skipped: r.skipped,
      failures: JSON.stringify(r.failures),
      ranAt: r.ranAt ? new Date(r.ranAt) : null,
      uploadedBy: input.user.username,
    },
  });
  await recordAudit({
    action: "cluster.report",
    userId: input.user.id,
    username: input.user.username,
    ip: input.ip,
    target: input.clusterId,
    details: { report: row.id, kind: r.kind, tool: r.tool, passed: r.passed, failed: r.failed, ...(input.via ? { via: input.via } : {}) },
  });
  return summaryOf(row);
}

/** GET /api/clusters/:id/reports: the newest report of each kind. */
export async function clusterReports({ clusterId }: { clusterId: string }): Promise<ClusterReports> {
  const db = getDb();
  await clusterMustExist(clusterId);
  const newest = async (kind: ReportSummary["kind"]) => {
    const row = await db.clusterReport.findFirst({ where: { clusterId, kind }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
    return row ? summaryOf(row) : null;
  };
  return { conformance: await newest("conformance"), cis: await newest("cis") };
}
