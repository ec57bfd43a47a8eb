// Next.js Proxy (the file convention that replaced middleware in Next 16), on every request but static
// chunks: a path with a malformed %-escape is answered 400 here (Next.js would answer a plain-text 500
// without security headers when it decodes it); pages get a fresh nonce and a nonce-based
// Content-Security-Policy (Next reads the CSP from the request headers and puts the nonce on the scripts
// it inlines, so no inline script runs without it); over HTTPS every answer carries HSTS.
// Authorization is not done here: every page and route checks the session itself.
import { NextResponse, type NextRequest } from "next/server";
import { badPathResponse, buildCsp, hstsHeader, newNonce, pageSecurityHeaders } from "./lib/http/csp";
import { PAGE_PATH_HEADER, pagePath } from "./lib/nav/page-path";

export function proxy(request: NextRequest) {
  const https = request.nextUrl.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  const bad = badPathResponse(new URL(request.url).pathname, https);
  if (bad) return bad;
  let response: NextResponse;
  if (request.nextUrl.pathname.startsWith("/api/")) {
    // API routes answer JSON with the static headers of next.config.js.
    response = NextResponse.next();
  } else {
    const nonce = newNonce();
    const csp = buildCsp({ nonce, dev: process.env.NODE_ENV === "development", https });
    const headers = new Headers(request.headers);
    headers.set("x-nonce", nonce);
    headers.set("Content-Security-Policy", csp);
    // The page asked for, so that a signed-out visitor is sent to /login?next=<this whole path> and back.
    headers.set(PAGE_PATH_HEADER, pagePath(request.nextUrl));
    response = NextResponse.next({ request: { headers } });
    response.headers.set("Content-Security-Policy", csp);
    for (const [k, v] of Object.entries(pageSecurityHeaders)) response.headers.set(k, v);
  }
  if (https) response.headers.set("Strict-Transport-Security", hstsHeader);
  return response;
}

export const config = {
  matcher: [
    {
      // Static chunks need no policy. Prefetches are skipped as the Next.js guide recommends.
      source: "/((?!_next/static|_next/image|favicon.ico).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
