"use client";
// The signed-in user as the page shell knows it, for hiding what the role may not do. Only a
// convenience: every route and page checks the role on the server again.
import { createContext, useContext, type ReactNode } from "react";
import { can, type Permission } from "@/lib/auth/roles";

export type ShellUser = { username: string; displayName: string; role: string; csrfToken: string };

const CurrentUser = createContext<ShellUser | undefined>(undefined);

export function CurrentUserProvider({ user, children }: { user: ShellUser; children: ReactNode }) {
  return <CurrentUser.Provider value={user}>{children}</CurrentUser.Provider>;
}

export function useCurrentUser(): ShellUser | undefined {
  return useContext(CurrentUser);
}

/** True when the signed-in user's role has `permission` (false outside the shell). */
export function useCan(permission: Permission): boolean {
  const user = useContext(CurrentUser);
  return !!user && can(user.role, permission);
}
