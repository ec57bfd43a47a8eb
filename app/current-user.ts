import "server-only";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { getSessionUser, sessionCookie, type SessionUser } from "@/lib/auth/sessions";

/** For server components: the signed-in user, or a redirect to the sign-in page. */
export async function requirePageUser(next = "/clusters"): Promise<SessionUser> {
  const user = await getSessionUser((await cookies()).get(sessionCookie)?.value);
  if (!user) redirect(`/login?next=${encodeURIComponent(next)}`);
  return user;
}
