// How a run's and a step's status look, in one place: colour, icon, words and badge.

export const statusStyle: Record<string, string> = {
  pending: "bg-slate-100 text-slate-600",
  running: "bg-blue-100 text-blue-800",
  waiting: "bg-amber-100 text-amber-800",
  done: "bg-green-100 text-green-800",
  succeeded: "bg-green-100 text-green-800",
  skipped: "bg-slate-50 text-slate-600",
  failed: "bg-red-100 text-red-800",
  // Stopped by preflight warnings until an admin or lead accepts them: not a failure.
  decision: "bg-amber-200 text-amber-900",
  "needs-decision": "bg-amber-200 text-amber-900",
  cancelled: "bg-slate-200 text-slate-700",
  planned: "bg-indigo-100 text-indigo-800",
};

export const statusIcon: Record<string, string> = {
  pending: "○",
  running: "▶",
  waiting: "◷",
  done: "✓",
  succeeded: "✓",
  skipped: "↷",
  failed: "✕",
  decision: "?",
  "needs-decision": "?",
  cancelled: "⊘",
  planned: "◇",
};

/** The words for a status where its id is not plain English. */
export const statusText: Record<string, string> = {
  decision: "needs a decision",
  "needs-decision": "needs a decision",
};

export const statusLabel = (status: string) => statusText[status] ?? status;

export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span className={`rounded px-2 py-0.5 text-xs font-medium ${statusStyle[status] ?? ""}`} data-testid={testId} data-status={status}>
      {statusLabel(status)}
    </span>
  );
}

export const runTypeTitle: Record<string, string> = {
  check: "Check hosts",
  bootstrap: "Bootstrap cluster",
  join: "Join hosts",
  reset: "Reset hosts",
  retry: "Retry",
  backup: "Back up etcd",
  restore: "Restore from a backup",
  recover: "Recover the control plane",
  "rotate-certs": "Rotate certificates",
  "rotate-encryption-key": "Rotate the encryption key",
};

/** Run states that are over for now; all but a success can go on (a retry, accepted warnings). */
export const FINISHED_RUN_STATES = new Set(["succeeded", "failed", "needs-decision", "cancelled"]);
