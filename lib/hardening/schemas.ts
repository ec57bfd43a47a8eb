// A cluster's hardening at a glance, as the cluster page shows it; browser-safe. Derived from the
// newest asset set (what was rendered and pushed), never with a key or any other secret in it.
import { z } from "zod";
import type { PodSecurityLevel } from "../cluster/definition";

export type Hardening = {
  assetSetVersion: number | null;
  /** How Secrets reach etcd: `encrypted` with the named key, `plain` (a key only to read, as a set that predates encryption gets), or `none` (no configuration). */
  encryption: { state: "encrypted" | "plain" | "none"; provider?: string; keyName?: string; keyCreated?: string; keyAgeDays?: number };
  audit: { on: boolean; log?: string; maxSizeMb?: number; maxBackups?: number; maxAgeDays?: number };
  podSecurity: { enforce: PodSecurityLevel; warn: PodSecurityLevel; audit: PodSecurityLevel; exemptNamespaces: string[] } | null;
  /** The API server's, controller-manager's and scheduler's flags say --profiling=false. */
  profilingOff: boolean;
};

export const hardeningQueryKey = (clusterId: string) => ["clusters", clusterId, "hardening"] as const;

export const reportKind = z.enum(["conformance", "cis"]);
export const reportTool = z.enum(["junit", "kube-bench", "trivy"]);

/**
 * The summary of a conformance or CIS benchmark report someone ran against the cluster and uploaded.
 * Counts as the tool gives them: `warned` is kube-bench's WARN or Trivy's manual controls, `skipped`
 * the specs a conformance run left out or kube-bench's INFO.
 */
export type ReportSummary = {
  id: string;
  kind: z.infer<typeof reportKind>;
  tool: z.infer<typeof reportTool>;
  title: string;
  passed: number;
  failed: number;
  warned: number;
  skipped: number;
  failures: { id: string; message: string }[];
  /** When it ran, if the report says with its time zone (ISO); otherwise only the upload's time is known. */
  ranAt: string | null;
  uploadedBy: string;
  uploadedAt: string;
};

/** The newest report of each kind. */
export type ClusterReports = { conformance: ReportSummary | null; cis: ReportSummary | null };

export const reportsQueryKey = (clusterId: string) => ["clusters", clusterId, "reports"] as const;
