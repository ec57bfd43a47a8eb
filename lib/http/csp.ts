// The Content-Security-Policy for pages: scripts only from this origin or carrying the per-request
// nonce (Next.js puts it on its own inline scripts), no inline event handlers, no framing, no
// plugins. Used by proxy.ts; pure so it can be tested. Edge-safe: no Node imports.

export function buildCsp(input: { nonce: string; dev: boolean; https: boolean }): string {
  const n = `'nonce-${input.nonce}'`;
  return [
    "default-src 'self'",
    // 'strict-dynamic' lets the nonce'd bootstrap load Next's chunks; dev needs eval for React's
    // debugging aids (https://nextjs.org/docs/app/guides/content-security-policy).
    `script-src 'self' ${n} 'strict-dynamic'${input.dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' ${n}`,
    "img-src 'self' blob: data:",
    "font-src 'self'",
    `connect-src 'self'${input.dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    // Only over HTTPS: on a plain-HTTP admin network it would break every asset request.
    ...(input.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/** Headers every page response carries besides the CSP (next.config.js sets them for the rest). */
export const pageSecurityHeaders: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "DENY",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
  "Cross-Origin-Opener-Policy": "same-origin",
};

export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/** Sent over HTTPS only: a year, this host and its subdomains' pages stay on HTTPS. */
export const hstsHeader = "max-age=31536000; includeSubDomains";

/** The headers of next.config.js for API answers, for the answers proxy.ts makes itself. */
export const apiSecurityHeaders: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'",
};

/**
 * A 400 for a path whose %-escapes do not decode ("/api/clusters/%ff"), with the usual security
 * headers, or undefined for a path that decodes.
 */
export function badPathResponse(pathname: string, https: boolean): Response | undefined {
  try {
    for (const segment of pathname.split("/")) decodeURIComponent(segment);
    return undefined;
  } catch {
    const body = JSON.stringify({ error: { code: "bad_path", message: "The path has a malformed %-escape" } });
    return new Response(body, {
      status: 400,
      headers: { "content-type": "application/json", "cache-control": "no-store", ...apiSecurityHeaders, ...(https ? { "Strict-Transport-Security": hstsHeader } : {}) },
    });
  }
}
