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
  /** "off" when separate `bootdeck worker` processes run the engine instead of the dashboard. */
  BOOTDECK_ENGINE: z.enum(["on", "off"]).default("on"),
  /** The dashboard's address as people reach it (https://bootdeck.example): webhook bodies link to its pages. */
  BOOTDECK_PUBLIC_URL: z
    .string()
    .refine((s) => URL.canParse(s) && ["http:", "https:"].includes(new URL(s).protocol), "must be an http:// or https:// URL, e.g. https://bootdeck.example")
    .optional(),
  /** A bearer token that lets a scraper read /metrics without signing in (at least 32 characters). */
  BOOTDECK_METRICS_TOKEN: z.string().min(32, "must be at least 32 characters (openssl rand -hex 32)").max(256).optional(),
  /** Fault injection for the crash-point test only (lib/engine/crash-points.ts); never set it in a deployment. */
  BOOTDECK_CRASH_AFTER: z.string().optional(),
  NODE_ENV: z.string().default("development"),
});

export type ProxyEntry = { address: string; prefix: number; family: "ipv4" | "ipv6" };
export type Env = z.infer<typeof schema> & { databaseUrl: string; masterKeyFile: string; trustedProxies: ProxyEntry[] };

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
  };
  return cached;
}

/** Tests change the environment between cases; this forgets the cached copy. */
export function resetEnvCache(): void {
  cached = undefined;
}
