// A finished run's outcome in one line, from its steps: which hosts failed, and which cluster-wide
// steps failed with their error — never "failed on 0 of 6 hosts" without saying what failed.
import type { FinishedStatus } from "./run-rules";

export type StepOutcome = { key: string; status: string; title: string; error: string | null; host: string | null };

export type RunSummary = {
  steps: number;
  done: number;
  failed: number;
  failedHosts: string[];
  /** Cluster-wide steps that failed, with their error. */
  failedSteps: { key: string; title: string; error: string | null }[];
  message: string;
};

const firstLine = (s: string | null) => {
  const line = (s ?? "").split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
};

export function summarizeRun({ status, runHosts, steps }: { status: FinishedStatus; runHosts: number; steps: StepOutcome[] }): RunSummary {
  const failed = steps.filter((s) => s.status === "failed");
  const failedHosts = [...new Set(failed.map((s) => s.host).filter((h): h is string => h !== null))];
  const clusterWide = failed.filter((s) => s.host === null);
  const parts: string[] = [];
  if (failedHosts.length) parts.push(`failed on ${failedHosts.length} of ${runHosts} hosts: ${failedHosts.join(", ")}`);
  for (const s of clusterWide) parts.push(`${parts.length ? "" : "failed: "}${s.title} (${s.key}): ${firstLine(s.error) || "no error recorded"}`);
  // A run of cluster-wide steps only (a backup) has no hosts to count: its steps are counted.
  const [count, unit] = runHosts > 0 ? [runHosts, "host"] : [steps.length, "step"];
  const message =
    status === "succeeded"
      ? count === 1
        ? `1 ${unit} done`
        : `all ${count} ${unit}s done`
      : status === "cancelled"
        ? "cancelled by a user"
        : status === "needs-decision"
          ? `needs a decision: preflight warnings on ${failedHosts.length ? `${failedHosts.length} of ${runHosts} hosts (${failedHosts.join(", ")})` : "the cluster"} wait for an admin or lead to accept them`
          : parts.join("; ") || "failed: a step was stopped before it could finish";
  return {
    steps: steps.length,
    done: steps.filter((s) => s.status === "done").length,
    failed: failed.length,
    failedHosts,
    failedSteps: clusterWide.map((s) => ({ key: s.key, title: s.title, error: s.error })),
    message,
  };
}
