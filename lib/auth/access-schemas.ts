// Sign-in settings and group-to-role mappings; browser-safe so the settings page builds exactly what
// the server parses.
import { z } from "zod";
import { roles, type Role } from "./roles";
import { usernameSchema } from "./user-schemas";

export const KUBECONFIG_HOURS = { default: 8, max: 24 } as const;

/**
 * An issuer is https, or http on a loopback address only (a provider on the same machine, as in
 * development): a token endpoint over plain HTTP elsewhere would hand the client secret to the network.
 */
export function issuerProblem(value: string): string | undefined {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return "must be a URL such as https://idp.example.com/realms/ops";
  }
  if (u.search || u.hash) return "must have no query or fragment";
  if (u.protocol === "https:") return undefined;
  if (u.protocol === "http:" && isLoopbackHost(u.hostname)) return undefined;
  return "must be an https:// URL (http:// only for a provider on this machine: localhost, 127.0.0.1, [::1])";
}

export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

const groupName = z
  .string()
  .trim()
  .min(1, "is required")
  .max(256, "must be at most 256 characters")
  .regex(/^[^\p{Cc}\p{Cf}]*$/u, "may not contain control characters");

export const groupRoleSchema = z.strictObject({
  group: groupName,
  role: z.enum(roles),
  /** Null: the whole installation; a cluster id: that cluster only. */
  clusterId: z.string().regex(/^cl_[A-Za-z0-9_-]{16}$/, "must be a cluster id").nullable(),
});
export type GroupRoleInput = z.output<typeof groupRoleSchema>;

export const accessSettingsBody = z
  .strictObject({
    oidcEnabled: z.boolean(),
    issuer: z
      .string()
      .trim()
      .max(512)
      .refine((s) => s === "" || !issuerProblem(s), { message: "must be an https:// URL (http:// only on localhost)" })
      .default(""),
    clientId: z.string().trim().max(256).default(""),
    /** Absent: keep the stored secret; "": remove it; otherwise the new secret (sealed at rest). */
    clientSecret: z.string().max(1024).optional(),
    scopes: z
      .string()
      .trim()
      .max(512)
      .regex(/^[\x21-\x7e]+( [\x21-\x7e]+)*$/, "must be scope names separated by single spaces")
      .refine((s) => s.split(" ").includes("openid"), "must include openid"),
    groupsClaim: z.string().trim().min(1, "is required").max(128).regex(/^[\x21-\x7e]+$/, "must be a claim name without spaces"),
    usernameClaim: z.string().trim().min(1, "is required").max(128).regex(/^[\x21-\x7e]+$/, "must be a claim name without spaces"),
    localSignIn: z.enum(["everyone", "break-glass"]),
    breakGlass: z.array(usernameSchema).max(20, "name at most 20 break-glass accounts"),
    kubeconfigHours: z.number().int().min(1, "must be at least 1 hour").max(KUBECONFIG_HOURS.max, `must be at most ${KUBECONFIG_HOURS.max} hours`),
    mappings: z.array(groupRoleSchema).max(200),
  })
  .superRefine((b, ctx) => {
    if (b.oidcEnabled && !b.issuer) ctx.addIssue({ code: "custom", path: ["issuer"], message: "is required to turn sign-in with the provider on" });
    if (b.oidcEnabled && !b.clientId) ctx.addIssue({ code: "custom", path: ["clientId"], message: "is required to turn sign-in with the provider on" });
    if (b.localSignIn === "break-glass" && !b.oidcEnabled)
      ctx.addIssue({ code: "custom", path: ["localSignIn"], message: "can be limited to break-glass accounts only while sign-in with the provider is on" });
    const seen = new Set<string>();
    b.mappings.forEach((m, i) => {
      const key = `${m.group}\u0000${m.clusterId ?? ""}`;
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["mappings", i, "group"], message: "is mapped twice for the same scope" });
      seen.add(key);
    });
  });
export type AccessSettingsBody = z.output<typeof accessSettingsBody>;

/** What the settings page shows: never the client secret, only whether one is set and where from. */
export type AccessSettingsView = {
  oidcEnabled: boolean;
  issuer: string;
  clientId: string;
  clientSecretSet: boolean;
  scopes: string;
  groupsClaim: string;
  usernameClaim: string;
  localSignIn: "everyone" | "break-glass";
  breakGlass: string[];
  kubeconfigHours: number;
  mappings: GroupRoleInput[];
  /** Fields set by environment variables (they win; the page shows them read-only). */
  fromEnvironment: ("issuer" | "clientId" | "clientSecret" | "scopes" | "groupsClaim")[];
  /** The address to register at the provider as the redirect URI. */
  redirectUri: string;
  refreshMinutes: number;
  clusters: { id: string; name: string }[];
};

export const accessQueryKeys = { settings: () => ["access-settings"] as const };

const rank: Record<Role, number> = { support: 1, lead: 2, admin: 3 };

/**
 * The role a person's groups give them: the highest role of the installation-wide mappings of any of
 * their groups, or, for one cluster, the highest of those and that cluster's own mappings. Undefined
 * when no group is mapped.
 */
export function roleForGroups(groups: readonly string[], mappings: readonly GroupRoleInput[], clusterId?: string): Role | undefined {
  const have = new Set(groups);
  let best: Role | undefined;
  for (const m of mappings) {
    if (!have.has(m.group)) continue;
    if (m.clusterId !== null && m.clusterId !== clusterId) continue;
    if (!best || rank[m.role] > rank[best]) best = m.role;
  }
  return best;
}

/** Whether any installation-wide or per-cluster mapping names one of these groups (may they sign in at all). */
export function anyMappedGroup(groups: readonly string[], mappings: readonly GroupRoleInput[]): boolean {
  const have = new Set(groups);
  return mappings.some((m) => have.has(m.group));
}

/** Messages for the `sso_error` codes the sign-in page shows after a failed sign-in with the provider. */
export const ssoErrorText: Record<string, string> = {
  not_configured: "Sign-in with the identity provider is not configured. Ask an admin, or sign in with a local account.",
  provider_unreachable: "The identity provider did not answer. Try again in a minute; if it stays down, an admin can sign in with a break-glass account.",
  issuer_misconfigured: "The identity provider's issuer URL is misconfigured: it does not serve an OpenID Connect discovery document for itself. An admin must correct it under Settings → Access.",
  client_rejected: "The identity provider refused Bootdeck's client ID or client secret. An admin must correct them under Settings → Access.",
  provider_refused: "The identity provider did not sign you in.",
  state_mismatch: "This sign-in was started in another browser or tab, or its cookie is gone. Start again.",
  state_used: "This sign-in link was already used or has expired. Start again.",
  code_rejected: "The identity provider refused the sign-in code (already used or expired). Start again.",
  token_audience: "The identity provider's ID token was issued to another application (wrong audience). Nobody was signed in; an admin should check the client ID.",
  token_nonce: "The identity provider's ID token does not belong to this sign-in (replayed nonce). Nobody was signed in; start again.",
  token_invalid: "The identity provider's answer could not be verified. Nobody was signed in; start again, and ask an admin to check the provider if it persists.",
  account_disabled: "Your Bootdeck account is disabled. Ask an admin.",
  internal: "Sign-in failed on the server; the error was logged. Try again.",
};
