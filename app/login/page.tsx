import { LoginForm } from "@/components/login-form";
import { ssoErrorText } from "@/lib/auth/access-schemas";
import { getAccessSettings } from "@/lib/auth/access-settings";
import { safeNextPath } from "@/lib/nav/next-path";

export const dynamic = "force-dynamic";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[]; sso_error?: string | string[] }> }) {
  const { next, sso_error } = await searchParams;
  // Only a path on this dashboard, kept whole (query and fragment): an open redirect would let a link
  // send a freshly signed-in admin elsewhere (lib/nav/next-path.ts).
  const target = safeNextPath(Array.isArray(next) ? next[0] : next);
  const access = await getAccessSettings();
  const code = Array.isArray(sso_error) ? sso_error[0] : sso_error;
  const ssoError = code ? (ssoErrorText[code] ?? ssoErrorText.internal) : undefined;
  const local = access.localSignIn === "everyone" || !access.oidc;
  return (
    <div className="flex min-h-screen items-center justify-center">
      <div className="card w-full max-w-sm">
        <h1 className="mb-1 text-xl font-bold text-indigo-700">Bootdeck</h1>
        <p className="mb-4 text-sm text-slate-600">Sign in to manage your clusters.</p>
        {ssoError && (
          <p className="mb-4 rounded border border-red-200 bg-red-50 p-2 text-sm text-red-700" role="alert" data-testid="sso-error">
            {ssoError}
          </p>
        )}
        {access.oidc && (
          <a className="btn-primary mb-4 w-full justify-center" href={`/api/auth/oidc/start?next=${encodeURIComponent(target)}`} data-testid="sso-sign-in">
            Sign in with your identity provider
          </a>
        )}
        {access.oidc && (
          <p className="mb-2 text-xs text-slate-600">
            {local ? "Or with a local account:" : "Local sign-in is limited to break-glass accounts:"}
          </p>
        )}
        <LoginForm next={target} />
      </div>
    </div>
  );
}
