/** Why a panel's actions are disabled before the cluster runs (lifecycle.ts dayTwoRefusal); nothing once they apply. */
export function NotYet({ reason, testId }: { reason?: string; testId: string }) {
  if (!reason) return null;
  return (
    <p className="mb-2 text-sm text-slate-600" data-testid={testId}>
      {reason}
    </p>
  );
}
