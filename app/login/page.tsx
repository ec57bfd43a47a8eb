import { LoginForm } from "@/components/login-form";
import { safeNextPath } from "@/lib/nav/next-path";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  const { next } = await searchParams;
  // Only a path on this dashboard, kept whole (query and fragment): an open redirect would let a link
  // send a freshly signed-in admin elsewhere (lib/nav/next-path.ts).
  const target = safeNextPath(Array.isArray(next) ? next[0] : next);
  return (
    <div className="flex min-h-screen items-center justify-center">
      <div className="card w-full max-w-sm">
        <h1 className="mb-1 text-xl font-bold text-indigo-700">Bootdeck</h1>
        <p className="mb-4 text-sm text-slate-600">Sign in to manage your clusters.</p>
        <LoginForm next={target} />
      </div>
    </div>
  );
}
