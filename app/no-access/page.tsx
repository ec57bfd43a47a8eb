import Link from "next/link";

// Where a person the identity provider signed in lands when none of their groups gives a Bootdeck
// role. They have no session; the refusal is in the audit log (auth.oidc_no_access).
export default function NoAccessPage() {
  return (
    <div className="flex min-h-screen items-center justify-center">
      <div className="card w-full max-w-md" data-testid="no-access">
        <h1 className="mb-2 text-xl font-bold text-indigo-700">No access to Bootdeck</h1>
        <p className="mb-3 text-sm text-slate-700">
          Your identity provider signed you in, but none of your groups is mapped to a Bootdeck role (admin, lead or support), so you
          have no access here.
        </p>
        <p className="mb-4 text-sm text-slate-700">
          Ask a Bootdeck admin to map one of your groups under Settings → Access, or your identity provider&apos;s admin to add you to a
          group that is mapped. Then sign in again.
        </p>
        <Link className="btn" href="/login">
          Back to sign-in
        </Link>
      </div>
    </div>
  );
}
