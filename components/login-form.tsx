"use client";
import { useState } from "react";
import { api, ApiError } from "./api-client";

export function LoginForm({ next }: { next: string }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="space-y-3"
      onSubmit={async (e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        setBusy(true);
        setError(undefined);
        try {
          await api("/api/auth/login", { method: "POST", body: { username: String(form.get("username")), password: String(form.get("password")) } });
          // A redirect keeps the page's fragment on /login (browsers carry it over): take it along.
          window.location.href = next.includes("#") ? next : `${next}${window.location.hash}`;
        } catch (err) {
          setError(err instanceof ApiError ? err.message : "Could not reach the server");
          setBusy(false);
        }
      }}
    >
      <div>
        <label className="label" htmlFor="username">User name</label>
        <input id="username" name="username" className="input" autoComplete="username" required data-testid="login-username" />
      </div>
      <div>
        <label className="label" htmlFor="password">Password</label>
        <input id="password" name="password" type="password" className="input" autoComplete="current-password" required data-testid="login-password" />
      </div>
      {error && <p className="text-sm text-red-600" role="alert" data-testid="login-error">{error}</p>}
      <button className="btn-primary w-full justify-center" disabled={busy} data-testid="login-submit">
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
