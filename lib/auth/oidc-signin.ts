import "server-only";
// Sign-in through the identity provider: the authorization code flow with PKCE, state and nonce.
// Starting stores what the callback needs (the PKCE verifier sealed, the nonce, where to go after) under
// the digest of a random state, which also goes into an httpOnly cookie of this browser; the callback
// takes that record exactly once, so a replayed or forged callback finds nothing. The person's account
// is found by the provider's issuer and subject, never by name: a local account never becomes theirs.
import { createHash, timingSafeEqual } from "node:crypto";
import * as oidc from "openid-client";
import { recordAudit } from "../audit/record";
import { getDb } from "../db/client";
import { newId } from "../ids";
import { safeNextPath } from "../nav/next-path";
import { decryptSecret, encryptSecret, secretContexts } from "../secrets/cipher";
import { roleForGroups } from "./access-schemas";
import { getAccessSettings, redirectUriFor, type OidcConfig } from "./access-settings";
import { SsoFailure, claimsOf, configurationFor, groupsFromClaim, tokenFailure, type OidcOptions } from "./oidc-client";
import { createSession } from "./sessions";
import { usernameSchema } from "./user-schemas";

/** How long a started sign-in may take at the provider. */
export const SIGN_IN_MINUTES = 10;

const digest = (s: string) => createHash("sha256").update(s).digest("hex");

async function oidcConfigOrThrow(): Promise<{ o: OidcConfig; mappings: Awaited<ReturnType<typeof getAccessSettings>>["mappings"] }> {
  const s = await getAccessSettings();
  if (!s.oidc) throw new SsoFailure("not_configured", "sign-in with an identity provider is not configured");
  return { o: s.oidc, mappings: s.mappings };
}

export async function startOidcSignIn(input: { next: string | undefined; requestUrl: string; now?: Date; options?: OidcOptions }): Promise<{ location: string; state: string }> {
  const now = input.now ?? new Date();
  const { o } = await oidcConfigOrThrow();
  const config = await configurationFor(o, input.options);
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  const db = getDb();
  await db.oidcLogin.deleteMany({ where: { expiresAt: { lt: now } } });
  await db.oidcLogin.create({
    data: {
      id: digest(state),
      codeVerifier: encryptSecret(verifier, secretContexts.oidcCodeVerifier(digest(state))),
      nonce,
      next: safeNextPath(input.next),
      expiresAt: new Date(now.getTime() + SIGN_IN_MINUTES * 60_000),
    },
  });
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUriFor(input.requestUrl),
    scope: o.scopes,
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  });
  return { location: url.toString(), state };
}

export type SignInResult =
  | { ok: true; token: string; expiresAt: Date; next: string; username: string }
  | { ok: false; noAccess: true; subject: string };

function sameState(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Finishes a sign-in from the provider's redirect. `callbackUrl` is the URL the browser was sent to;
 * `cookieState` the state this browser's cookie holds. Throws SsoFailure for everything that ends
 * with nobody signed in, except a person in no mapped group (`noAccess`).
 */
export async function finishOidcSignIn(input: {
  callbackUrl: string;
  cookieState: string | undefined;
  ip?: string;
  userAgent?: string;
  now?: Date;
  options?: OidcOptions;
}): Promise<SignInResult> {
  const now = input.now ?? new Date();
  const received = new URL(input.callbackUrl);
  const state = received.searchParams.get("state") ?? "";
  const { o, mappings } = await oidcConfigOrThrow();
  if (!state || !input.cookieState || !sameState(state, input.cookieState))
    throw new SsoFailure("state_mismatch", state ? "the state does not match this browser's sign-in cookie" : "the callback carries no state");
  // Taken exactly once: a second callback with the same state finds nothing.
  const db = getDb();
  const pending = await db.oidcLogin.findUnique({ where: { id: digest(state) } });
  const taken = pending ? await db.oidcLogin.deleteMany({ where: { id: pending.id } }) : { count: 0 };
  if (!pending || taken.count !== 1) throw new SsoFailure("state_used", "no sign-in is waiting for this state: it was used already, or never started here");
  if (pending.expiresAt < now) throw new SsoFailure("state_used", `the sign-in was started more than ${SIGN_IN_MINUTES} minutes ago`);
  const error = received.searchParams.get("error");
  if (error) {
    const description = received.searchParams.get("error_description");
    throw new SsoFailure("provider_refused", `the provider answered ${error}${description ? ` (${description.slice(0, 200)})` : ""}`);
  }

  const config = await configurationFor(o, input.options);
  // The redirect URI as registered (BOOTDECK_PUBLIC_URL), with the parameters the provider added.
  const current = new URL(redirectUriFor(input.callbackUrl));
  current.search = received.search;
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: decryptSecret(pending.codeVerifier, secretContexts.oidcCodeVerifier(pending.id)),
      expectedState: state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    throw tokenFailure(err, o.issuer);
  }
  const idClaims = tokens.claims();
  if (!idClaims) throw new SsoFailure("token_invalid", "the provider returned no ID token");
  let claims: Record<string, unknown> & { sub: string };
  try {
    claims = { ...(await claimsOf({ config, claims: idClaims, accessToken: tokens.access_token, subject: idClaims.sub, wanted: [o.groupsClaim, o.usernameClaim, "name"] })), sub: idClaims.sub };
  } catch (err) {
    throw tokenFailure(err, o.issuer);
  }
  const groups = groupsFromClaim(claims[o.groupsClaim]);
  const role = roleForGroups(groups ?? [], mappings);
  const account = await db.user.findUnique({ where: { oidcIssuer_oidcSubject: { oidcIssuer: o.issuer, oidcSubject: claims.sub } } });
  if (!role) {
    await recordAudit({
      action: "auth.oidc_no_access",
      username: account?.username ?? nameFrom(claims, o.usernameClaim),
      provider: o.issuer,
      subject: claims.sub,
      ip: input.ip,
      details: {
        groups: groups === undefined ? `(no "${o.groupsClaim}" claim)` : groups.join(", ") || "(none)",
        mapped: [...new Set(mappings.filter((m) => m.clusterId === null).map((m) => m.group))].join(", ") || "(no group is mapped)",
      },
    });
    return { ok: false, noAccess: true, subject: claims.sub };
  }
  const user = account ?? (await createOidcUser({ issuer: o.issuer, subject: claims.sub, claims, usernameClaim: o.usernameClaim, role }));
  if (user.disabled) throw new SsoFailure("account_disabled", `the account ${user.username} is disabled in Bootdeck`);
  if (account && account.role !== role) {
    await db.user.update({ where: { id: account.id }, data: { role } });
    await recordAudit({ action: "user.role_from_groups", userId: account.id, username: account.username, target: account.id, details: { from: account.role, to: role, groups: (groups ?? []).join(", ") } });
  }
  const session = await createSession({ userId: user.id, ip: input.ip, userAgent: input.userAgent, oidc: { refreshToken: tokens.refresh_token, groups: groups ?? [] } });
  await recordAudit({
    action: "auth.login",
    userId: user.id,
    username: user.username,
    ip: input.ip,
    details: { via: "oidc", role, groups: (groups ?? []).join(", "), refreshToken: tokens.refresh_token ? "issued" : "none (the session ends at its first check)" },
  });
  return { ok: true, ...session, next: pending.next, username: user.username };
}

function nameFrom(claims: Record<string, unknown>, usernameClaim: string): string {
  for (const c of [usernameClaim, "preferred_username", "email", "sub"]) {
    const v = claims[c];
    if (typeof v === "string" && v) return v.slice(0, 64);
  }
  return "(unnamed)";
}

/** A Bootdeck user name from the provider's name for the person: "Alice.B@example.com" → "alice.b". */
export function usernameFromClaim(value: string): string {
  const local = value.toLowerCase().split("@")[0] ?? "";
  let name = local.replace(/[^a-z0-9._-]+/g, "-").replace(/^[^a-z]+/, "").slice(0, 28);
  if (name.length < 2) name = `user-${name}`.slice(0, 28);
  return name.replace(/[-._]+$/, "") || "user";
}

async function createOidcUser(input: { issuer: string; subject: string; claims: Record<string, unknown>; usernameClaim: string; role: string }) {
  const db = getDb();
  const base = usernameFromClaim(nameFrom(input.claims, input.usernameClaim));
  const display = typeof input.claims.name === "string" && input.claims.name.trim() ? input.claims.name.trim() : nameFrom(input.claims, input.usernameClaim);
  const displayName = display.replace(/[\p{Cc}\p{Cf}\p{Cs}<>]/gu, "").slice(0, 64) || base;
  // The name is a label: the account is the issuer and subject. A name another account holds gets a suffix.
  for (let i = 1; i < 100; i++) {
    const username = i === 1 ? base : `${base}-${i}`;
    if (!usernameSchema.safeParse(username).success) continue;
    try {
      return await db.user.create({
        data: { id: newId("usr"), username, displayName, passwordHash: "!", role: input.role, authProvider: "oidc", oidcIssuer: input.issuer, oidcSubject: input.subject },
      });
    } catch (err) {
      if (err && typeof err === "object" && "code" in err && (err as { code: string }).code === "P2002") {
        // A concurrent first sign-in of the same person created the account: use it.
        const same = await db.user.findUnique({ where: { oidcIssuer_oidcSubject: { oidcIssuer: input.issuer, oidcSubject: input.subject } } });
        if (same) return same;
        continue;
      }
      throw err;
    }
  }
  throw new SsoFailure("internal", `no free user name for ${base}`);
}
