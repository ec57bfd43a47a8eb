import "server-only";
// An identity provider's session is checked with the provider again at its first request after
// BOOTDECK_OIDC_REFRESH_MINUTES: the refresh token is redeemed, the groups read from the new ID token
// (or userinfo), and the role set from them. The session ends when the refresh fails, when the person
// is in no mapped group any more, or when sign-in with the provider was turned off.
import * as oidc from "openid-client";
import { recordAudit } from "../audit/record";
import { getDb } from "../db/client";
import { getEnv } from "../env";
import { decryptSecret, encryptSecret, secretContexts } from "../secrets/cipher";
import { roleForGroups } from "./access-schemas";
import { getAccessSettings } from "./access-settings";
import { SsoFailure, configurationFor, describe, groupsOf, tokenFailure, type OidcOptions } from "./oidc-client";

/** How long one dashboard holds a due refresh before another request may try it (a slow provider). */
const CLAIM_MS = 30_000;

/**
 * True when the session may go on (refreshed now, or being refreshed by a concurrent request);
 * false when it was ended (and deleted).
 */
export async function refreshOidcSession({ sessionId, now = new Date(), options = {} }: { sessionId: string; now?: Date; options?: OidcOptions }): Promise<boolean> {
  const db = getDb();
  // One request refreshes; the others go on with the session as it is (the refresh token may rotate).
  const claimed = await db.session.updateMany({
    where: { id: sessionId, provider: "oidc", OR: [{ refreshDueAt: null }, { refreshDueAt: { lte: now } }] },
    data: { refreshDueAt: new Date(now.getTime() + CLAIM_MS) },
  });
  const session = await db.session.findUnique({ where: { id: sessionId }, include: { user: true } });
  if (!session) return false;
  if (claimed.count === 0) return true;
  const user = session.user;
  const end = async (reason: string, detail: string) => {
    await db.session.deleteMany({ where: { id: sessionId } });
    await recordAudit({ action: "auth.session_ended", userId: user.id, username: user.username, details: { reason, detail } });
    return false;
  };
  const settings = await getAccessSettings();
  if (!settings.oidc || settings.oidc.issuer !== user.oidcIssuer) return end("provider_off", "sign-in with this identity provider is no longer configured");
  if (!session.refreshCipher) return end("no_refresh_token", "the provider issued no refresh token, so the session cannot be checked again; sign in again");
  let groups: string[] | undefined;
  let refreshToken: string;
  try {
    const config = await configurationFor(settings.oidc, options);
    const tokens = await oidc.refreshTokenGrant(config, decryptSecret(session.refreshCipher, secretContexts.oidcRefreshToken(sessionId)));
    const claims = tokens.claims();
    if (claims && claims.sub !== user.oidcSubject) throw new SsoFailure("token_invalid", "the refreshed ID token names another subject");
    groups = await groupsOf({ config, claims, accessToken: tokens.access_token, subject: user.oidcSubject ?? "", groupsClaim: settings.oidc.groupsClaim });
    refreshToken = tokens.refresh_token ?? decryptSecret(session.refreshCipher, secretContexts.oidcRefreshToken(sessionId));
  } catch (err) {
    const f = err instanceof SsoFailure ? err : tokenFailure(err, settings.oidc.issuer);
    return end("refresh_failed", `${f.reason}: ${f.detail || describe(err)}`);
  }
  if (!groups) return end("no_groups", `neither the refreshed ID token nor userinfo carries the "${settings.oidc.groupsClaim}" claim`);
  const role = roleForGroups(groups, settings.mappings);
  if (!role) return end("no_mapped_group", `in none of the mapped groups any more (groups: ${groups.join(", ") || "none"})`);
  await db.session.update({
    where: { id: sessionId },
    data: {
      refreshCipher: encryptSecret(refreshToken, secretContexts.oidcRefreshToken(sessionId)),
      refreshDueAt: new Date(now.getTime() + getEnv().BOOTDECK_OIDC_REFRESH_MINUTES * 60_000),
      groups: JSON.stringify(groups),
    },
  });
  if (role !== user.role) {
    await db.user.update({ where: { id: user.id }, data: { role } });
    await recordAudit({ action: "user.role_from_groups", userId: user.id, username: user.username, target: user.id, details: { from: user.role, to: role, groups: groups.join(", ") } });
  }
  return true;
}
