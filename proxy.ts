// Next.js Proxy (the file convention that replaced middleware in Next 16): a fresh nonce and a
// nonce-based Content-Security-Policy on every page request. Next reads the CSP from the request
// headers and puts the nonce on the scripts it inlines, so no inline script runs without it.
// Authorization is not done here: every page and route checks the session itself.
import { NextResponse, type NextRequest } from "next/server";
import { buildCsp, newNonce, pageSecurityHeaders } from "./lib/http/csp";

export function proxy(request: NextRequest) {
  const nonce = newNonce();
  const https = request.nextUrl.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  const csp = buildCsp({ nonce, dev: process.env.NODE_ENV === "development", https });
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("Content-Security-Policy", csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", csp);
  for (const [k, v] of Object.entries(pageSecurityHeaders)) response.headers.set(k, v);
  return response;
}

export const config = {
  matcher: [
    {
      // Pages only: API routes answer JSON (next.config.js gives them nosniff, frame-ancestors 'none'),
      // and static chunks need no policy. Prefetches are skipped as the Next.js guide recommends.
      source: "/((?!api|_next/static|_next/image|favicon.ico).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
