export function Forbidden({ role, what }: { role: string; what: string }) {
  return (
    <p className="card text-sm text-red-600" data-testid="forbidden">
      Your role ({role}) may not {what}.
    </p>
  );
}
