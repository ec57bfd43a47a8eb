"use client";
import Link from "next/link";
import type { ReactNode } from "react";
import { api, setCsrfToken } from "./api-client";

export type ShellUser = { username: string; displayName: string; role: string; csrfToken: string };

export function AppShell({ user, children }: { user: ShellUser; children: ReactNode }) {
  setCsrfToken(user.csrfToken);
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-7xl items-center justify-between px-6 py-3">
          <nav className="flex items-center gap-6">
            <Link href="/clusters" className="text-lg font-bold text-indigo-700">
              Bootdeck
            </Link>
            <Link href="/clusters" className="text-sm text-slate-600 hover:text-slate-900">
              Clusters
            </Link>
          </nav>
          <div className="flex items-center gap-3 text-sm text-slate-600">
            <span data-testid="current-user">
              {user.displayName} · {user.role}
            </span>
            <button
              className="btn"
              data-testid="logout"
              onClick={async () => {
                await api("/api/auth/logout", { method: "POST" }).catch(() => undefined);
                window.location.href = "/login";
              }}
            >
              Sign out
            </button>
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-7xl px-6 py-6">{children}</main>
    </div>
  );
}
