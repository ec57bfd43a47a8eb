import "server-only";
// Sign-in settings: one database row an admin edits under Settings → Access, overridden field by
// field by the BOOTDECK_OIDC_* environment variables. The client secret is sealed with the master key
// and never leaves the server.
import { getDb } from "../db/client";
import { getEnv } from "../env";
import { AppError, ValidationError } from "../errors";
import { newId } from "../ids";
import { recordAudit } from "../audit/record";
import { decryptSecret, encryptSecret, secretContexts } from "../secrets/cipher";
import { KUBECONFIG_HOURS, issuerProblem, type AccessSettingsBody, type AccessSettingsView, type GroupRoleInput } from "./access-schemas";
import type { Role } from "./roles";

const ID = "default";

export type OidcConfig = {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  scopes: string;
  groupsClaim: string;
  usernameClaim: string;
};

export type AccessSettings = {
  /** Undefined while sign-in with a provider is off or incomplete. */
  oidc: OidcConfig | undefined;
  localSignIn: "everyone" | "break-glass";
  breakGlass: string[];
  kubeconfigHours: number;
  mappings: GroupRoleInput[];
};

async function row() {
  return getDb().accessSettings.findUnique({ where: { id: ID } });
}

function parseNames(json: string): string[] {
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

export async function listGroupRoles(): Promise<GroupRoleInput[]> {
  const rows = await getDb().groupRole.findMany({ orderBy: [{ clusterId: "asc" }, { group: "asc" }] });
  return rows.map((r) => ({ group: r.group, role: r.role as Role, clusterId: r.clusterId }));
}

/** The settings in force: the stored row with every BOOTDECK_OIDC_* variable laid over it. */
export async function getAccessSettings(): Promise<AccessSettings> {
  const env = getEnv();
  const r = await row();
  const issuer = env.BOOTDECK_OIDC_ISSUER ?? r?.issuer ?? "";
  const clientId = env.BOOTDECK_OIDC_CLIENT_ID ?? r?.clientId ?? "";
  // Set in the environment, sign-in with the provider is on whatever the row says.
  const enabled = env.BOOTDECK_OIDC_ISSUER !== undefined || (r?.oidcEnabled ?? false);
  const clientSecret = env.BOOTDECK_OIDC_CLIENT_SECRET ?? (r?.clientSecretCipher ? decryptSecret(r.clientSecretCipher, secretContexts.oidcClientSecret(ID)) : undefined);
  return {
    oidc:
      enabled && issuer && clientId
        ? {
            issuer,
            clientId,
            clientSecret,
            scopes: env.BOOTDECK_OIDC_SCOPES ?? r?.scopes ?? "openid profile email offline_access",
            groupsClaim: env.BOOTDECK_OIDC_GROUPS_CLAIM ?? r?.groupsClaim ?? "groups",
            usernameClaim: r?.usernameClaim ?? "preferred_username",
          }
        : undefined,
    localSignIn: r?.localSignIn === "break-glass" && enabled ? "break-glass" : "everyone",
    breakGlass: parseNames(r?.breakGlass ?? "[]"),
    kubeconfigHours: Math.min(r?.kubeconfigHours ?? KUBECONFIG_HOURS.default, KUBECONFIG_HOURS.max),
    mappings: await listGroupRoles(),
  };
}

function fromEnvironment(): AccessSettingsView["fromEnvironment"] {
  const env = getEnv();
  const out: AccessSettingsView["fromEnvironment"] = [];
  if (env.BOOTDECK_OIDC_ISSUER !== undefined) out.push("issuer");
  if (env.BOOTDECK_OIDC_CLIENT_ID !== undefined) out.push("clientId");
  if (env.BOOTDECK_OIDC_CLIENT_SECRET !== undefined) out.push("clientSecret");
  if (env.BOOTDECK_OIDC_SCOPES !== undefined) out.push("scopes");
  if (env.BOOTDECK_OIDC_GROUPS_CLAIM !== undefined) out.push("groupsClaim");
  return out;
}

/** The address the provider sends people back to; register it at the provider. */
export function redirectUriFor(requestUrl: string): string {
  const base = getEnv().BOOTDECK_PUBLIC_URL ?? new URL(requestUrl).origin;
  return new URL("/api/auth/oidc/callback", base).toString();
}

export async function getAccessSettingsView({ requestUrl }: { requestUrl: string }): Promise<AccessSettingsView> {
  const r = await row();
  const s = await getAccessSettings();
  const env = getEnv();
  const clusters = await getDb().cluster.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } });
  return {
    oidcEnabled: s.oidc !== undefined || (r?.oidcEnabled ?? false),
    issuer: env.BOOTDECK_OIDC_ISSUER ?? r?.issuer ?? "",
    clientId: env.BOOTDECK_OIDC_CLIENT_ID ?? r?.clientId ?? "",
    clientSecretSet: env.BOOTDECK_OIDC_CLIENT_SECRET !== undefined || !!r?.clientSecretCipher,
    scopes: env.BOOTDECK_OIDC_SCOPES ?? r?.scopes ?? "openid profile email offline_access",
    groupsClaim: env.BOOTDECK_OIDC_GROUPS_CLAIM ?? r?.groupsClaim ?? "groups",
    usernameClaim: r?.usernameClaim ?? "preferred_username",
    localSignIn: s.localSignIn,
    breakGlass: s.breakGlass,
    kubeconfigHours: s.kubeconfigHours,
    mappings: s.mappings,
    fromEnvironment: fromEnvironment(),
    redirectUri: redirectUriFor(requestUrl),
    refreshMinutes: env.BOOTDECK_OIDC_REFRESH_MINUTES,
    clusters,
  };
}

/**
 * Stores the settings and replaces the mappings in one transaction. Refused when it would lock every
 * admin out: local sign-in limited to break-glass accounts needs at least one enabled local admin
 * among them.
 */
export async function updateAccessSettings(input: { body: AccessSettingsBody; actor: { id: string; username: string }; ip?: string }): Promise<void> {
  const b = input.body;
  const db = getDb();
  if (b.issuer && issuerProblem(b.issuer)) throw new ValidationError([{ path: "issuer", message: issuerProblem(b.issuer) ?? "is invalid" }]);
  if (b.localSignIn === "break-glass") {
    const admins = await db.user.count({ where: { username: { in: b.breakGlass }, role: "admin", disabled: false, authProvider: "local" } });
    if (admins === 0)
      throw new ValidationError([{ path: "breakGlass", message: "must name at least one enabled local admin, or nobody can sign in when the provider is down" }]);
  }
  const clusterIds = [...new Set(b.mappings.flatMap((m) => (m.clusterId ? [m.clusterId] : [])))];
  if (clusterIds.length > 0) {
    const found = await db.cluster.count({ where: { id: { in: clusterIds } } });
    if (found !== clusterIds.length) throw new AppError(422, "unknown_cluster", "A mapping names a cluster that does not exist");
  }
  const before = await row();
  const secret =
    b.clientSecret === undefined ? { keep: true as const } : b.clientSecret === "" ? { cipher: null } : { cipher: encryptSecret(b.clientSecret, secretContexts.oidcClientSecret(ID)) };
  const data = {
    oidcEnabled: b.oidcEnabled,
    issuer: b.issuer || null,
    clientId: b.clientId || null,
    scopes: b.scopes,
    groupsClaim: b.groupsClaim,
    usernameClaim: b.usernameClaim,
    localSignIn: b.localSignIn,
    breakGlass: JSON.stringify([...new Set(b.breakGlass)]),
    kubeconfigHours: b.kubeconfigHours,
    updatedBy: input.actor.username,
    ...("keep" in secret ? {} : { clientSecretCipher: secret.cipher }),
  };
  await db.$transaction(async (tx) => {
    await tx.accessSettings.upsert({ where: { id: ID }, create: { id: ID, ...data }, update: data });
    await tx.groupRole.deleteMany({});
    if (b.mappings.length > 0) await tx.groupRole.createMany({ data: b.mappings.map((m) => ({ id: newId("grp"), ...m })) });
  });
  const changed = (Object.keys(data) as (keyof typeof data)[]).filter(
    (k) => k !== "updatedBy" && k !== "clientSecretCipher" && String(before?.[k] ?? "") !== String(data[k] ?? ""),
  );
  await recordAudit({
    action: "settings.access_update",
    userId: input.actor.id,
    username: input.actor.username,
    ip: input.ip,
    details: {
      changed: changed.join(", ") || "nothing",
      clientSecret: "keep" in secret ? "kept" : secret.cipher ? "replaced" : "removed",
      localSignIn: b.localSignIn,
      breakGlass: b.breakGlass.join(", "),
      mappings: b.mappings.map((m) => `${m.group} → ${m.role}${m.clusterId ? ` on ${m.clusterId}` : ""}`).join("; "),
    },
  });
}
