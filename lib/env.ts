import "server-only";
// The one place that reads the environment. Validated on first use; a bad value fails fast with a
// message that names the variable.
import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";

const schema = z.object({
  /** Where the Bootdeck checkout lives (prisma/, node_modules/); bin/bootdeck sets it. */
  BOOTDECK_HOME: z.string().min(1).default(process.cwd()),
  BOOTDECK_DATA_DIR: z.string().min(1).default(path.join(process.cwd(), "data")),
  /** file:… for SQLite (the default, under the data directory), postgresql://… for PostgreSQL. */
  DATABASE_URL: z
    .string()
    .regex(/^(file:|postgres(ql)?:\/\/)/, "must be a file: URL for SQLite (file:./data/bootdeck.db) or a postgresql:// URL for PostgreSQL")
    .optional(),
  BOOTDECK_MASTER_KEY: z
    .string()
    .refine((s) => Buffer.from(s, "base64").length === 32, "must be 32 bytes, base64-encoded (openssl rand -base64 32)")
    .optional(),
  BOOTDECK_MASTER_KEY_FILE: z.string().optional(),
  BOOTDECK_SESSION_HOURS: z.coerce.number().int().min(1).max(24 * 30).default(12),
  /** The first admin's password for `bootdeck setup`; generated and printed once when unset. */
  BOOTDECK_ADMIN_PASSWORD: z.string().min(10, "must be at least 10 characters").max(256).optional(),
  BOOTDECK_SECURE_COOKIES: z.enum(["auto", "always", "never"]).default("auto"),
  /**
   * Reverse proxies whose X-Forwarded-For / X-Real-IP are believed: comma-separated addresses or CIDRs
   * ("127.0.0.1, 10.0.0.0/8, ::1"). Empty: the client's address is the TCP peer's, whatever it sends.
   */
  BOOTDECK_TRUSTED_PROXIES: z
    .string()
    .default("")
    .refine((s) => parseProxyList(s).every((p) => p.ok), "must be comma-separated IP addresses or CIDRs, e.g. 127.0.0.1, 10.0.0.0/8"),
  /**
   * The URL users open the dashboard at (https://dash.example.com): requests naming another Host, and
   * sign-ins from another Origin, are refused (DNS rebinding, login CSRF). Unset: only localhost,
   * 127.0.0.1 and [::1] are accepted, on any port.
   */
  BOOTDECK_PUBLIC_URL: z
    .string()
    .optional()
    .refine((s) => s === undefined || publicUrlOf(s) !== undefined, "must be the dashboard's http:// or https:// URL, with no path, user or query (https://dash.example.com)"),
  /** More host names (host or host:port) the dashboard answers to besides BOOTDECK_PUBLIC_URL's, comma-separated. */
  BOOTDECK_ALLOWED_HOSTS: z
    .string()
    .default("")
    .refine((s) => hostList(s).every((h) => h !== undefined), "must be comma-separated host names or host:port, e.g. dash.example.com, 10.0.0.5:3000"),
  /**
   * Sign-in with an OpenID Connect provider. Each one set here wins over the value an admin stores
   * under Settings → Access (docs/access.md); the client secret is then never stored.
   */
  BOOTDECK_OIDC_ISSUER: z.string().url("must be the provider's issuer URL, e.g. https://idp.example.com/realms/ops").optional(),
  BOOTDECK_OIDC_CLIENT_ID: z.string().min(1).max(256).optional(),
  BOOTDECK_OIDC_CLIENT_SECRET: z.string().min(1).max(1024).optional(),
  BOOTDECK_OIDC_SCOPES: z.string().min(1).max(512).optional(),
  BOOTDECK_OIDC_GROUPS_CLAIM: z.string().min(1).max(128).optional(),
  /** How often an OIDC session is checked with the provider (refresh token, groups), at its next request. */
  BOOTDECK_OIDC_REFRESH_MINUTES: z.coerce.number().int().min(1).max(60).default(5),
  /** "off" when separate `bootdeck worker` processes run the engine instead of the dashboard. */
  BOOTDECK_ENGINE: z.enum(["on", "off"]).default("on"),
  /** A bearer token that lets a scraper read /metrics without signing in (at least 32 characters). */
  BOOTDECK_METRICS_TOKEN: z.string().min(32, "must be at least 32 characters (openssl rand -hex 32)").max(256).optional(),
  /** Fault injection for the crash-point test only (lib/engine/crash-points.ts); never set it in a deployment. */
  BOOTDECK_CRASH_AFTER: z.string().optional(),
  NODE_ENV: z.string().default("development"),
});

export type ProxyEntry = { address: string; prefix: number; family: "ipv4" | "ipv6" };
export type Env = z.infer<typeof schema> & {
  databaseUrl: string;
  masterKeyFile: string;
  trustedProxies: ProxyEntry[];
  /** BOOTDECK_PUBLIC_URL as an origin ("https://dash.example.com"), if set. */
  publicOrigin: URL | undefined;
  /** Host header values BOOTDECK_ALLOWED_HOSTS adds, lower case. */
  allowedHosts: string[];
};

function publicUrlOf(s: string): URL | undefined {
  try {
    const u = new URL(s);
    if ((u.protocol !== "http:" && u.protocol !== "https:") || u.username || u.password || u.search || u.hash || (u.pathname !== "/" && u.pathname !== "")) return undefined;
    return u;
  } catch {
    return undefined;
  }
}

/** "host" or "host:port" as a Host header carries it, lower case; undefined for anything else. */
function hostList(s: string): (string | undefined)[] {
  const hostPort = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
  return s
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean)
    .map((h) => (hostPort.test(h) ? h : undefined));
}

function parseProxyList(s: string): ({ ok: true; entry: ProxyEntry } | { ok: false })[] {
  return s
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      const [address = "", bits] = p.split("/");
      const v = isIP(address);
      const max = v === 4 ? 32 : 128;
      const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
      if (!v || !(prefix >= 0 && prefix <= max)) return { ok: false };
      return { ok: true, entry: { address, prefix, family: v === 4 ? "ipv4" : "ipv6" } };
    });
}

let cached: Env | undefined;

export function getEnv(): Env {
  if (cached) return cached;
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Bootdeck's environment is invalid:\n${lines}`);
  }
  const e = parsed.data;
  cached = {
    ...e,
    databaseUrl: e.DATABASE_URL ?? `file:${path.join(e.BOOTDECK_DATA_DIR, "bootdeck.db")}`,
    masterKeyFile: e.BOOTDECK_MASTER_KEY_FILE ?? path.join(e.BOOTDECK_DATA_DIR, "master.key"),
    trustedProxies: parseProxyList(e.BOOTDECK_TRUSTED_PROXIES).flatMap((p) => (p.ok ? [p.entry] : [])),
    publicOrigin: e.BOOTDECK_PUBLIC_URL ? publicUrlOf(e.BOOTDECK_PUBLIC_URL) : undefined,
    allowedHosts: hostList(e.BOOTDECK_ALLOWED_HOSTS).flatMap((h) => (h ? [h] : [])),
  };
  return cached;
}

/** Tests change the environment between cases; this forgets the cached copy. */
export function resetEnvCache(): void {
  cached = undefined;
}
