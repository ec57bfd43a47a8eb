import "server-only";
// Which Host a request may name, and which Origin a sign-in may come from. A page on evil.example whose
// name an attacker re-points at the dashboard's address (DNS rebinding) reaches the dashboard with
// `Host: evil.example` and `Origin: http://evil.example`: comparing the Origin with the Host, as
// browsers' same-origin rule would, lets that sign in. So both are compared with what the dashboard is
// configured to be (BOOTDECK_PUBLIC_URL, BOOTDECK_ALLOWED_HOSTS), never with each other. Unset, the
// dashboard answers only on loopback names, which no other site can make a browser send.
import { getEnv } from "../env";
import { isHttpsRequest } from "../client-address";
import { AppError } from "./errors";

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The Host a request names: its header, else its URL's (a Request built in process has no header). */
function hostOf(req: Request): string {
  return (req.headers.get("host") ?? new URL(req.url).host).trim().toLowerCase();
}

/** A Host value as host[:port] with the scheme's default port left out, or undefined when it is not one. */
function normalHost(host: string, scheme: "http:" | "https:"): URL | undefined {
  try {
    const u = new URL(`${scheme}//${host}`);
    return u.host === "" || u.pathname !== "/" || u.username ? undefined : u;
  } catch {
    return undefined;
  }
}

export function hostAllowed(host: string): boolean {
  const { publicOrigin, allowedHosts } = getEnv();
  if (!publicOrigin) {
    const u = normalHost(host, "http:");
    return u !== undefined && LOOPBACK.has(u.hostname);
  }
  const scheme = publicOrigin.protocol as "http:" | "https:";
  const u = normalHost(host, scheme);
  if (!u) return false;
  return u.host === publicOrigin.host || allowedHosts.some((a) => normalHost(a, scheme)?.host === u.host);
}

/** Whether a sign-in's Origin is the dashboard's own: BOOTDECK_PUBLIC_URL's, an allowed host's, or (unset) a loopback one. */
export function originAllowed(origin: string): boolean {
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return false;
  const { publicOrigin } = getEnv();
  if (publicOrigin && u.origin === publicOrigin.origin) return true;
  return hostAllowed(u.host);
}

/** Refuses a request naming a Host the dashboard is not configured to be (400, with what to set). */
export function assertKnownHost(req: Request): void {
  const host = hostOf(req);
  if (hostAllowed(host))
    return;
  const { publicOrigin } = getEnv();
  throw new AppError(
    400,
    "unknown_host",
    publicOrigin
      ? `This dashboard answers as ${publicOrigin.host}, not ${host.slice(0, 100)}: open ${publicOrigin.origin}, or add the name to BOOTDECK_ALLOWED_HOSTS`
      : `This dashboard answers only on localhost until BOOTDECK_PUBLIC_URL names the address users open it at (asked for ${host.slice(0, 100)})`,
  );
}

/**
 * The request's URL as the browser addressed it, for links the browser is sent to (the identity
 * provider's redirect back). Next.js builds a route's URL from its own host name (localhost), not from
 * the request: the origin is BOOTDECK_PUBLIC_URL's, else the Host the browser named when it is one the
 * dashboard answers to, with HTTPS only as a trusted proxy says.
 */
export function browserUrl(req: { url: string; headers: Headers }): string {
  const u = new URL(req.url);
  const { publicOrigin } = getEnv();
  if (publicOrigin) return new URL(`${u.pathname}${u.search}`, publicOrigin.origin).toString();
  const host = req.headers.get("host")?.trim().toLowerCase();
  if (host && hostAllowed(host)) u.host = host;
  u.protocol = isHttpsRequest(req.headers) ? "https:" : "http:";
  return u.toString();
}
