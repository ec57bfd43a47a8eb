import "server-only";
// The two steps of sign-in through the identity provider, as browser navigations (no session yet, so
// outside the route funnel like sign-in itself). Whatever goes wrong ends on the sign-in page with a
// message and an audit entry: never a 500, never a session.
import { recordAudit } from "../audit/record";
import { clientAddress } from "../client-address";
import { browserUrl } from "./host-check";
import { getAccessSettings } from "../auth/access-settings";
import { SsoFailure, describe } from "../auth/oidc-client";
import { SIGN_IN_MINUTES, finishOidcSignIn, startOidcSignIn } from "../auth/oidc-signin";
import { deleteSession, readCookieValue, readSessionToken, secureCookies, sessionSetCookie } from "../auth/sessions";

const stateCookieName = (secure: boolean) => (secure ? "__Host-bootdeck_oidc" : "bootdeck_oidc");

function stateCookie(value: string, secure: boolean, maxAge: number): string {
  // Lax: the provider's redirect back is a top-level GET navigation, which carries Lax cookies.
  return [`${stateCookieName(secure)}=${value}`, "Path=/", `Max-Age=${maxAge}`, "HttpOnly", "SameSite=Lax", ...(secure ? ["Secure"] : [])].join("; ");
}

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}

async function failed(req: Request, stage: "start" | "callback", err: unknown, secure: boolean): Promise<Response> {
  const f = err instanceof SsoFailure ? err : new SsoFailure("internal", describe(err));
  if (!(err instanceof SsoFailure)) console.error("[bootdeck] sign-in with the identity provider failed unexpectedly:", err);
  try {
    const issuer = (await getAccessSettings()).oidc?.issuer;
    await recordAudit({ action: "auth.oidc_failed", provider: issuer, ip: clientAddress(req.headers), details: { stage, reason: f.reason, detail: f.detail } });
  } catch (auditErr) {
    console.error("[bootdeck] could not record a failed sign-in:", auditErr);
  }
  return redirect(`/login?sso_error=${f.reason}`, [stateCookie("", secure, 0)]);
}

/** GET /api/auth/oidc/start?next=/page — off to the provider's sign-in page. */
export async function handleOidcStart(req: Request): Promise<Response> {
  const secure = secureCookies(req.url, req.headers);
  try {
    const next = new URL(req.url).searchParams.get("next") ?? undefined;
    const { location, state } = await startOidcSignIn({ next, requestUrl: browserUrl(req) });
    return redirect(location, [stateCookie(state, secure, SIGN_IN_MINUTES * 60)]);
  } catch (err) {
    return failed(req, "start", err, secure);
  }
}

/** GET /api/auth/oidc/callback?code=…&state=… — the provider sends the browser back here. */
export async function handleOidcCallback(req: Request): Promise<Response> {
  const secure = secureCookies(req.url, req.headers);
  try {
    const result = await finishOidcSignIn({
      callbackUrl: browserUrl(req),
      cookieState: readCookieValue(req.headers.get("cookie"), stateCookieName(secure)),
      ip: clientAddress(req.headers),
      userAgent: req.headers.get("user-agent") ?? undefined,
    });
    const clear = stateCookie("", secure, 0);
    if (!result.ok) return redirect("/no-access", [clear]);
    // Any session the browser already had is replaced, never reused.
    const previous = readSessionToken(req.url, req.headers);
    if (previous) await deleteSession(previous);
    return redirect(result.next, [clear, sessionSetCookie({ token: result.token, expiresAt: result.expiresAt, secure })]);
  } catch (err) {
    return failed(req, "callback", err, secure);
  }
}
