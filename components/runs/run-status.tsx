// How a run's and a step's status look, in one place: colour, icon and badge.

export const statusStyle: Record<string, string> = {
  pending: "bg-slate-100 text-slate-500",
  running: "bg-blue-100 text-blue-700",
  waiting: "bg-amber-100 text-amber-800",
  done: "bg-green-100 text-green-700",
  succeeded: "bg-green-100 text-green-700",
  skipped: "bg-slate-50 text-slate-400",
  failed: "bg-red-100 text-red-700",
  cancelled: "bg-slate-200 text-slate-600",
  planned: "bg-indigo-100 text-indigo-700",
};

export const statusIcon: Record<string, string> = {
  pending: "○",
  running: "▶",
  waiting: "◷",
  done: "✓",
  succeeded: "✓",
  skipped: "↷",
  failed: "✕",
  cancelled: "⊘",
  planned: "◇",
};

export function StatusBadge({ status, testId }: { status: string; testId?: string }) {
  return (
    <span className={`rounded px-2 py-0.5 text-xs font-medium ${statusStyle[status] ?? ""}`} data-testid={testId}>
      {status}
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
};
