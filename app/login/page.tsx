import { LoginForm } from "@/components/login-form";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  // Only same-site paths: an open redirect would let a link send a freshly signed-in admin elsewhere.
  const target = next && /^\/(?!\/)[\w\-/%.?=&]*$/.test(next) ? next : "/clusters";
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
