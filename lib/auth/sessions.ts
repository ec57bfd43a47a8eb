import "server-only";
// Server-side sessions. The browser holds a random token in an httpOnly cookie; the database holds
// only its SHA-256, so a copy of the database does not let anyone sign in.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { getDb } from "../db/client";
import { getEnv } from "../env";
import { isHttpsRequest } from "../client-address";
import { encryptSecret, secretContexts } from "../secrets/cipher";
import { refreshOidcSession } from "./oidc-refresh";
import type { Role } from "./roles";

/**
 * The session cookie's name: over HTTPS with the `__Host-` prefix, which the browser accepts only with
 * Secure, Path=/ and no Domain, so no sibling host or plain-HTTP page can plant or overwrite it.
 */
export const sessionCookieName = (secure: boolean) => (secure ? "__Host-bootdeck_session" : "bootdeck_session");

/** The CSRF token a request sent against the session's, compared in constant time. */
export function csrfTokenMatches(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Whether cookies are Secure (and prefixed) for this request: BOOTDECK_SECURE_COOKIES, or the request's scheme. */
export function secureCookies(url: string, headers: Headers): boolean {
  const mode = getEnv().BOOTDECK_SECURE_COOKIES;
  return mode === "always" || (mode === "auto" && isHttpsRequest(headers));
}

/** The session token the request carries under this scheme's cookie name (a malformed cookie is none). */
export function readSessionToken(url: string, headers: Headers): string | undefined {
  return readCookieValue(headers.get("cookie"), sessionCookieName(secureCookies(url, headers)));
}

/** One cookie's value from a Cookie header; a malformed %-escape counts as no cookie, never an error. */
export function readCookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join("="));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The Set-Cookie header for a session token (an empty token and a past date clear it). */
export function sessionSetCookie(input: { token: string; expiresAt: Date; secure: boolean }): string {
  return [
    `${sessionCookieName(input.secure)}=${encodeURIComponent(input.token)}`,
    "Path=/",
    `Expires=${input.expiresAt.toUTCString()}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(input.secure ? ["Secure"] : []),
  ].join("; ");
}

export type SessionUser = {
  id: string;
  username: string;
  displayName: string;
  /** The installation-wide role (for an identity provider's account: from its groups at the last check). */
  role: Role;
  csrfToken: string;
  sessionId: string;
  provider: "local" | "oidc";
  /** The provider's groups at the last sign-in or refresh (per-cluster roles follow them); [] for local accounts. */
  groups: string[];
};

const digest = (token: string) => createHash("sha256").update(token).digest("hex");

export async function createSession(input: {
  userId: string;
  ip?: string;
  userAgent?: string;
  /** A sign-in through the identity provider: checked with it again every BOOTDECK_OIDC_REFRESH_MINUTES. */
  oidc?: { refreshToken: string | undefined; groups: string[] };
}): Promise<{ token: string; expiresAt: Date }> {
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
      ...(input.oidc
        ? {
            provider: "oidc",
            refreshCipher: input.oidc.refreshToken ? encryptSecret(input.oidc.refreshToken, secretContexts.oidcRefreshToken(digest(token))) : null,
            refreshDueAt: new Date(Date.now() + getEnv().BOOTDECK_OIDC_REFRESH_MINUTES * 60_000),
            groups: JSON.stringify(input.oidc.groups),
          }
        : {}),
    },
  });
  return { token, expiresAt };
}

function parseGroups(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((g): g is string => typeof g === "string") : [];
  } catch {
    return [];
  }
}

export async function getSessionUser(token: string | undefined): Promise<SessionUser | undefined> {
  if (!token || token.length > 100) return undefined;
  const id = digest(token);
  let session = await getDb().session.findUnique({ where: { id }, include: { user: true } });
  if (!session || session.expiresAt < new Date() || session.user.disabled) return undefined;
  // An identity provider's session is asked about again when due: it ends there if the refresh fails
  // or the person is in no mapped group any more (lib/auth/oidc-refresh.ts).
  if (session.provider === "oidc" && (!session.refreshDueAt || session.refreshDueAt <= new Date())) {
    if (!(await refreshOidcSession({ sessionId: id }))) return undefined;
    session = await getDb().session.findUnique({ where: { id }, include: { user: true } });
    if (!session || session.user.disabled) return undefined;
  }
  return {
    id: session.user.id,
    username: session.user.username,
    displayName: session.user.displayName,
    role: session.user.role as Role,
    csrfToken: session.csrfToken,
    sessionId: session.id,
    provider: session.provider === "oidc" ? "oidc" : "local",
    groups: parseGroups(session.groups),
  };
}

export async function deleteSession(token: string): Promise<void> {
  await getDb().session.deleteMany({ where: { id: digest(token) } });
}
