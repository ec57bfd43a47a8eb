import "server-only";
// The relying party's view of the identity provider, through openid-client: its discovered
// configuration (cached while the settings stay the same) and what went wrong, in words a person can
// act on. Every failure becomes an SsoFailure with one of the reasons the sign-in page explains.
import { createHash } from "node:crypto";
import * as oidc from "openid-client";
import { issuerProblem, type ssoErrorText } from "./access-schemas";
import type { OidcConfig } from "./access-settings";

export type SsoReason = keyof typeof ssoErrorText;

export class SsoFailure extends Error {
  constructor(
    readonly reason: SsoReason,
    /** What happened, for the audit log and the server's log (never shown with secrets). */
    readonly detail: string,
  ) {
    super(detail);
    this.name = "SsoFailure";
  }
}

/** Tests hand in a fetch of their own to change what the provider's answers look like in transit. */
export type OidcOptions = { fetch?: oidc.CustomFetch };

const TIMEOUT_S = 10;
const CACHE_MS = 10 * 60_000;
const cache = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

function cacheKey(o: OidcConfig, opts: OidcOptions): string | undefined {
  if (opts.fetch) return undefined; // a test's fetch is never cached for anyone else
  return createHash("sha256").update(JSON.stringify([o.issuer, o.clientId, o.clientSecret ?? ""])).digest("hex");
}

/** The provider's configuration from its discovery document; a failure is not cached. */
export function configurationFor(o: OidcConfig, opts: OidcOptions = {}): Promise<oidc.Configuration> {
  const key = cacheKey(o, opts);
  const hit = key ? cache.get(key) : undefined;
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.config;
  const config = discover(o, opts);
  if (key) {
    cache.set(key, { at: Date.now(), config });
    config.catch(() => cache.delete(key));
  }
  return config;
}

/** Forgets discovered configurations (after the settings change, and between tests). */
export function forgetDiscovery(): void {
  cache.clear();
}

async function discover(o: OidcConfig, opts: OidcOptions): Promise<oidc.Configuration> {
  const problem = issuerProblem(o.issuer);
  if (problem) throw new SsoFailure("issuer_misconfigured", `the issuer ${o.issuer} ${problem}`);
  const url = new URL(o.issuer);
  try {
    return await oidc.discovery(
      url,
      o.clientId,
      o.clientSecret ? { client_secret: o.clientSecret } : undefined,
      o.clientSecret ? oidc.ClientSecretBasic(o.clientSecret) : oidc.None(),
      {
        // issuerProblem allows http only on a loopback address.
        execute: url.protocol === "http:" ? [oidc.allowInsecureRequests] : [],
        timeout: TIMEOUT_S,
        ...(opts.fetch ? { [oidc.customFetch]: opts.fetch } : {}),
      },
    );
  } catch (err) {
    if (unreachable(err)) throw new SsoFailure("provider_unreachable", `the identity provider at ${o.issuer} did not answer: ${describe(err)}`);
    throw new SsoFailure(
      "issuer_misconfigured",
      `${o.issuer}/.well-known/openid-configuration is not the discovery document of an OpenID Connect provider with that issuer: ${describe(err)}`,
    );
  }
}

/** A network failure or a timeout, as opposed to an answer Bootdeck cannot use. */
export function unreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === "TimeoutError" || err.name === "AbortError") return true;
  return err instanceof TypeError && /fetch failed|network/i.test(err.message);
}

/** The error's message with its causes (a network error's code is in its cause). */
export function describe(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let i = 0; e && i < 4; i++) {
    if (e instanceof Error) {
      const code = (e as { code?: unknown }).code;
      parts.push(typeof code === "string" && !e.message.includes(code) ? `${e.message} (${code})` : e.message);
      e = e.cause;
    } else break;
  }
  return parts.join(": ").slice(0, 500);
}

/** The claim an ID-token check refused (aud, nonce, iss …), found along the error's causes. */
function refusedClaim(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; e && typeof e === "object" && i < 4; i++) {
    const claim = (e as { claim?: unknown }).claim;
    if (typeof claim === "string") return claim;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** What a failed token request (code exchange or refresh) means for the person signing in. */
export function tokenFailure(err: unknown, issuer: string): SsoFailure {
  if (err instanceof SsoFailure) return err;
  if (unreachable(err)) return new SsoFailure("provider_unreachable", `the identity provider at ${issuer} did not answer: ${describe(err)}`);
  if (err instanceof oidc.ResponseBodyError) {
    if (err.error === "invalid_client" || err.error === "unauthorized_client")
      return new SsoFailure("client_rejected", `the provider refused the client: ${err.error}${err.error_description ? ` (${err.error_description})` : ""}`);
    return new SsoFailure("code_rejected", `the provider refused the token request: ${err.error}${err.error_description ? ` (${err.error_description})` : ""}`);
  }
  if (err instanceof oidc.WWWAuthenticateChallengeError) {
    const said = err.cause.map((c) => [c.parameters.error, c.parameters.error_description].filter(Boolean).join(": ")).join("; ");
    return new SsoFailure("client_rejected", `the provider refused the client's credentials (HTTP ${err.status}${said ? `, ${said}` : ""})`);
  }
  const claim = refusedClaim(err);
  if (claim === "aud" || claim === "azp") return new SsoFailure("token_audience", `the ID token's ${claim} does not name this client: ${describe(err)}`);
  if (claim === "nonce") return new SsoFailure("token_nonce", `the ID token's nonce is not the one this sign-in sent: ${describe(err)}`);
  return new SsoFailure("token_invalid", `the provider's token response failed verification: ${describe(err)}`);
}

/** Group names from a claim's value: an array of strings, or one string. */
export function groupsFromClaim(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === "string");
  if (typeof value === "string") return [value];
  return undefined;
}

/**
 * The person's claims: the ID token's, completed from the userinfo endpoint when it lacks one of
 * `wanted` (providers that keep profile and group claims out of the ID token). The ID token wins.
 */
export async function claimsOf(input: {
  config: oidc.Configuration;
  claims: Record<string, unknown> | undefined;
  accessToken: string;
  subject: string;
  wanted: string[];
}): Promise<Record<string, unknown>> {
  const fromToken = input.claims ?? {};
  if (input.wanted.every((c) => fromToken[c] !== undefined) || !input.config.serverMetadata().userinfo_endpoint) return fromToken;
  const info = await oidc.fetchUserInfo(input.config, input.accessToken, input.subject);
  return { ...info, ...fromToken };
}

/** The person's groups from their claims (ID token, else userinfo); undefined when neither carries the claim. */
export async function groupsOf(input: {
  config: oidc.Configuration;
  claims: Record<string, unknown> | undefined;
  accessToken: string;
  subject: string;
  groupsClaim: string;
}): Promise<string[] | undefined> {
  const claims = await claimsOf({ ...input, wanted: [input.groupsClaim] });
  return groupsFromClaim(claims[input.groupsClaim]);
}
