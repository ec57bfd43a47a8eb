import "server-only";
// Sign-in and sign-out are the only handlers that run without a session; they still map errors
// through the same funnel.
import { z } from "zod";
import { login } from "../auth/login";
import { csrfTokenMatches, deleteSession, getSessionUser, readSessionToken, secureCookies, sessionSetCookie } from "../auth/sessions";
import { clientAddress } from "../client-address";
import { errorResponse, json, readJson } from "./route";
import { AppError } from "./errors";
import { assertKnownHost, originAllowed } from "./host-check";
import { recordAudit } from "../audit/record";

const loginSchema = z.strictObject({ username: z.string().min(1, "is required").max(64), password: z.string().min(1, "is required").max(256) });

/**
 * Refuses sign-ins posted from another site (login CSRF, DNS rebinding): the Origin must be the
 * dashboard's configured one (lib/http/host-check.ts), never merely the one the Host header names.
 */
function assertOwnOrigin(req: Request): void {
  const origin = req.headers.get("origin");
  if (origin !== null && !originAllowed(origin)) throw new AppError(403, "cross_origin", "Sign-in must come from this dashboard's own page");
}

export async function handleLogin(req: Request): Promise<Response> {
  try {
    assertKnownHost(req);
    assertOwnOrigin(req);
    const body = await readJson(req, loginSchema, 8 * 1024);
    // Any session the browser already had is replaced, never reused (no session fixation).
    const previous = readSessionToken(req.url, req.headers);
    if (previous) await deleteSession(previous);
    const session = await login({ ...body, ip: clientAddress(req.headers), userAgent: req.headers.get("user-agent") ?? undefined });
    return json({ ok: true }, { headers: { "set-cookie": sessionSetCookie({ ...session, secure: secureCookies(req.url, req.headers) }) } });
  } catch (err) {
    return errorResponse(err);
  }
}

export async function handleLogout(req: Request): Promise<Response> {
  try {
    assertKnownHost(req);
    const token = readSessionToken(req.url, req.headers);
    const user = await getSessionUser(token);
    if (user && !csrfTokenMatches(req.headers.get("x-csrf-token"), user.csrfToken)) throw new AppError(403, "csrf", "Missing or stale CSRF token");
    if (token) await deleteSession(token);
    if (user) await recordAudit({ action: "auth.logout", userId: user.id, username: user.username, ip: clientAddress(req.headers) });
    return json({ ok: true }, { headers: { "set-cookie": sessionSetCookie({ token: "", expiresAt: new Date(0), secure: secureCookies(req.url, req.headers) }) } });
  } catch (err) {
    return errorResponse(err);
  }
}
