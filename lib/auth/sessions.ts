import "server-only";
// Server-side sessions. The browser holds a random token in an httpOnly cookie; the database holds
// only its SHA-256, so a copy of the database does not let anyone sign in.
import { createHash, randomBytes } from "node:crypto";
import { getDb } from "../db/client";
import { getEnv } from "../env";
import type { Role } from "./roles";

export const sessionCookie = "bootdeck_session";

export type SessionUser = { id: string; username: string; displayName: string; role: Role; csrfToken: string; sessionId: string };

const digest = (token: string) => createHash("sha256").update(token).digest("hex");

export async function createSession(input: { userId: string; ip?: string; userAgent?: string }): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + getEnv().BOOTDECK_SESSION_HOURS * 3600_000);
  // Expired sessions are useless; sweep them whenever someone signs in.
  await getDb().session.deleteMany({ where: { expiresAt: { lt: new Date() } } });
  await getDb().session.create({
    data: {
      id: digest(token),
      userId: input.userId,
      csrfToken: randomBytes(24).toString("base64url"),
      expiresAt,
      ip: input.ip?.slice(0, 64),
      userAgent: input.userAgent?.slice(0, 256),
    },
  });
  return { token, expiresAt };
}

export async function getSessionUser(token: string | undefined): Promise<SessionUser | undefined> {
  if (!token || token.length > 100) return undefined;
  const session = await getDb().session.findUnique({ where: { id: digest(token) }, include: { user: true } });
  if (!session || session.expiresAt < new Date() || session.user.disabled) return undefined;
  return {
    id: session.user.id,
    username: session.user.username,
    displayName: session.user.displayName,
    role: session.user.role as Role,
    csrfToken: session.csrfToken,
    sessionId: session.id,
  };
}

export async function deleteSession(token: string): Promise<void> {
  await getDb().session.deleteMany({ where: { id: digest(token) } });
}

export function cookieOptions(secureRequest: boolean, expiresAt: Date) {
  const mode = getEnv().BOOTDECK_SECURE_COOKIES;
  return {
    httpOnly: true,
    sameSite: "lax" as const,
    secure: mode === "always" || (mode === "auto" && secureRequest),
    path: "/",
    expires: expiresAt,
  };
}
