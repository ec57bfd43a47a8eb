"use client";
import Link from "next/link";
import { type ReactNode, useEffect } from "react";
import { can, type Permission } from "@/lib/auth/roles";
import { api, setCsrfToken } from "./api-client";
import { CurrentUserProvider, type ShellUser } from "./current-user";
import { TimeZoneToggle } from "./time";

export type { ShellUser };

// Links a role cannot use are not shown; the server refuses them anyway.
const nav: { href: string; label: string; permission: Permission; testId: string }[] = [
  { href: "/clusters", label: "Clusters", permission: "cluster:read", testId: "nav-clusters" },
  { href: "/users", label: "Users", permission: "user:manage", testId: "nav-users" },
  { href: "/webhooks", label: "Webhooks", permission: "webhook:manage", testId: "nav-webhooks" },
  { href: "/audit", label: "Audit", permission: "audit:read", testId: "nav-audit" },
  { href: "/settings/access", label: "Settings", permission: "access:manage", testId: "nav-settings" },
];

export function AppShell({ user, children }: { user: ShellUser; children: ReactNode }) {
  setCsrfToken(user.csrfToken);
  // Marks the page as interactive: a link clicked before hydration may do nothing (Next.js 16 drops
  // some such clicks), so the browser tests wait for this before their first click.
  useEffect(() => {
    document.body.dataset.hydrated = "true";
  }, []);
  return (
    <CurrentUserProvider user={user}>
      <div className="min-h-screen">
        <header className="border-b border-slate-200 bg-white">
          <div className="mx-auto flex max-w-7xl items-center justify-between px-6 py-3">
            <nav className="flex items-center gap-6">
              <Link href="/clusters" className="text-lg font-bold text-indigo-700">
                Bootdeck
              </Link>
              {nav
                .filter((n) => can(user.role, n.permission))
                .map((n) => (
                  <Link key={n.href} href={n.href} className="text-sm text-slate-600 hover:text-slate-900" data-testid={n.testId}>
                    {n.label}
                  </Link>
                ))}
            </nav>
            <div className="flex items-center gap-3 text-sm text-slate-600">
              <TimeZoneToggle />
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
    </CurrentUserProvider>
  );
}
