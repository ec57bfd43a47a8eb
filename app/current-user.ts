import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { can, type Permission } from "@/lib/auth/roles";
import { getSessionUser, readSessionToken, type SessionUser } from "@/lib/auth/sessions";
import { loginUrlFor } from "@/lib/nav/next-path";
import { PAGE_PATH_HEADER } from "@/lib/nav/page-path";

/**
 * For server components: the signed-in user, or a redirect to the sign-in page that comes back to the
 * page asked for — its whole path and query, as proxy.ts recorded it (`next` overrides it).
 */
export async function requirePageUser(next?: string): Promise<SessionUser> {
  // The page's own URL is not at hand here: its scheme comes from x-forwarded-proto, which Next.js's
  // server sets from the connection when no proxy did.
  const h = await headers();
  const user = await getSessionUser(readSessionToken("http://page.invalid/", h));
  if (!user) redirect(loginUrlFor(next ?? h.get(PAGE_PATH_HEADER) ?? "/clusters"));
  return user;
}

/**
 * For pages restricted to a permission: the signed-in user and whether their role has it. The page
 * renders <Forbidden> when it does not (and fetches nothing).
 */
export async function requirePagePermission(permission: Permission, next?: string): Promise<{ user: SessionUser; allowed: boolean }> {
  const user = await requirePageUser(next);
  return { user, allowed: can(user.role, permission) };
}

/** The shell's view of the user: no session id, nothing secret beyond the page's own CSRF token. */
export function shellUser(user: SessionUser) {
  return { username: user.username, displayName: user.displayName, role: user.role, csrfToken: user.csrfToken };
}
