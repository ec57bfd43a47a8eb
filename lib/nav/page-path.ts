// The request header in which proxy.ts passes a page's own path and query to the server components, so
// that a sign-in redirect keeps it. Edge-safe (proxy.ts runs it).

export const PAGE_PATH_HEADER = "x-bootdeck-page";

/** Path and query of a page request, without Next's internal `_rsc` parameter (client navigations). */
export function pagePath(url: URL): string {
  const params = new URLSearchParams(url.search);
  params.delete("_rsc");
  const query = params.toString();
  return `${url.pathname}${query ? `?${query}` : ""}`;
}
