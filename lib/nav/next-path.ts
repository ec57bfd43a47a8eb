// Where to go after signing in: `/login?next=…` carries the page the user asked for (path, query and
// fragment), and only a path on this dashboard is ever followed. Anything that could leave the site
// (`//evil.example`, `/\evil.example`, `https://…`, `javascript:`), control characters, or a way back
// to the sign-in page falls back to the cluster list. Browser-safe: the login page and the API client
// both use it.

export const DEFAULT_NEXT = "/clusters";
const BASE = "http://bootdeck.invalid";

export function safeNextPath(raw: string | null | undefined): string {
  if (!raw || raw.length > 2048) return DEFAULT_NEXT;
  // Only a single leading slash: "//host" and "/\host" are protocol-relative URLs to browsers.
  if (!raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\")) return DEFAULT_NEXT;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(raw)) return DEFAULT_NEXT;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return DEFAULT_NEXT;
  }
  if (url.origin !== BASE) return DEFAULT_NEXT;
  // Dot segments can turn "/..//host" into "//host": the result is checked, not only the input.
  if (url.pathname.startsWith("//") || url.pathname === "/login" || url.pathname.startsWith("/api/")) return DEFAULT_NEXT;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The sign-in page's URL that returns to `path` (path, query and fragment) afterwards. */
export function loginUrlFor(path: string): string {
  return `/login?next=${encodeURIComponent(safeNextPath(path))}`;
}
