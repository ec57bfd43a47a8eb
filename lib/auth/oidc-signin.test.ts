// Sign-in through a real OpenID Connect provider (oidc-provider on a loopback port), through the two
// route handlers the browser meets: who gets in with which role, and every way it can go wrong ending
// on the sign-in page with a message and an audit entry, never a 500 and never a session.
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import type { CustomFetch } from "openid-client";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createActor, type Actor } from "../../test/http-helpers";
import { startTestProvider, type TestProvider } from "../../test/oidc-provider";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { getDb } from "../db/client";
import { resetEnvCache } from "../env";
import type { AccessSettingsBody } from "./access-schemas";
import { updateAccessSettings } from "./access-settings";
import { forgetDiscovery } from "./oidc-client";
import { handleOidcCallback, handleOidcStart } from "../http/oidc-routes";
import { refreshOidcSession } from "./oidc-refresh";
import { finishOidcSignIn, startOidcSignIn, usernameFromClaim } from "./oidc-signin";
import { sessionStillAllows } from "./session-recheck";
import { getSessionUser, sessionCookieName } from "./sessions";

const BASE = "http://bootdeck.test";
const REDIRECT = `${BASE}/api/auth/oidc/callback`;
const client = { clientId: "bootdeck", clientSecret: "bootdeck-secret-0123456789", redirectUri: REDIRECT };
const other = { clientId: "other-app", clientSecret: "other-secret-0123456789", redirectUri: REDIRECT };

let db: TempDb;
let idp: TestProvider;
let admin: Actor;

function settings(over: Partial<AccessSettingsBody> = {}): AccessSettingsBody {
  return {
    oidcEnabled: true,
    issuer: idp.issuer,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    scopes: "openid profile email offline_access",
    groupsClaim: "groups",
    usernameClaim: "preferred_username",
    localSignIn: "everyone",
    breakGlass: [],
    kubeconfigHours: 8,
    mappings: [
      { group: "ops", role: "lead", clusterId: null },
      { group: "helpdesk", role: "support", clusterId: null },
    ],
    ...over,
  };
}

async function configure(over: Partial<AccessSettingsBody> = {}) {
  await updateAccessSettings({ body: settings(over), actor: { id: admin.userId, username: admin.username } });
  forgetDiscovery();
}

/** The browser's way in: the start route, the provider's pages as `login`, the callback route with the state cookie. */
async function signInThroughRoutes(login: string, next = "/clusters/x") {
  const start = await handleOidcStart(new Request(`${BASE}/api/auth/oidc/start?next=${encodeURIComponent(next)}`));
  expect(start.status).toBe(303);
  const stateCookie = start.headers.getSetCookie().find((c) => c.startsWith("bootdeck_oidc="))?.split(";")[0];
  expect(stateCookie).toBeDefined();
  const callbackUrl = await idp.signIn(start.headers.get("location")!, login);
  const callback = await handleOidcCallback(new Request(callbackUrl, { headers: { cookie: stateCookie! } }));
  return { start, callback, callbackUrl, stateCookie: stateCookie! };
}

const sessionToken = (res: Response) =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${sessionCookieName(false)}=`) && !c.startsWith(`${sessionCookieName(false)}=;`))
    ?.split(";")[0]
    ?.split("=")[1];

async function lastAudit(action: string) {
  return getDb().auditEvent.findFirst({ where: { action }, orderBy: { id: "desc" } });
}

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  db = await createTempDb();
  process.env.BOOTDECK_PUBLIC_URL = BASE;
  resetEnvCache();
  idp = await startTestProvider({ clients: [client, other] });
  admin = await createActor("admin", "root");
});
afterAll(async () => {
  delete process.env.BOOTDECK_PUBLIC_URL;
  await idp?.stop();
  await db?.cleanup();
});
beforeEach(async () => configure());

describe("signing in through the identity provider", () => {
  test("a member of ops gets the lead role, a session and goes back to the page asked for; the audit names provider and subject", async () => {
    const { callback } = await signInThroughRoutes("olga", "/clusters/x?tab=runs");
    expect(callback.status).toBe(303);
    expect(callback.headers.get("location")).toBe("/clusters/x?tab=runs");
    const user = await getSessionUser(sessionToken(callback));
    expect(user).toMatchObject({ username: "olga", role: "lead", provider: "oidc", groups: ["ops"] });
    const row = await getDb().user.findUniqueOrThrow({ where: { username: "olga" } });
    expect(row).toMatchObject({ authProvider: "oidc", oidcIssuer: idp.issuer, oidcSubject: "olga", passwordHash: "!", displayName: "Olga Ops" });
    const audit = await lastAudit("auth.login");
    expect(audit).toMatchObject({ username: "olga", provider: idp.issuer, subject: "olga" });
  });

  test("a member of helpdesk gets support", async () => {
    const { callback } = await signInThroughRoutes("hank");
    expect((await getSessionUser(sessionToken(callback)))?.role).toBe("support");
  });

  test("a person in no mapped group is sent to the no-access page, with no session and an audit entry naming them", async () => {
    const { callback } = await signInThroughRoutes("nina");
    expect(callback.status).toBe(303);
    expect(callback.headers.get("location")).toBe("/no-access");
    expect(sessionToken(callback)).toBeUndefined();
    expect(await getDb().user.findUnique({ where: { username: "nina" } })).toBeNull();
    const audit = await lastAudit("auth.oidc_no_access");
    expect(audit).toMatchObject({ provider: idp.issuer, subject: "nina", username: "nina" });
    expect(JSON.parse(audit!.details)).toMatchObject({ groups: "(none)", mapped: "helpdesk, ops" });
  });

  test("an account is the provider's subject, never a local account of the same name", async () => {
    const local = await createActor("admin", "hank-local");
    await getDb().user.update({ where: { id: local.userId }, data: { username: "hank2" } });
    await getDb().user.deleteMany({ where: { oidcSubject: "hank" } });
    // A local "hank" exists: the provider's hank gets an account of their own.
    const localHank = await createActor("admin", "hank");
    const { callback } = await signInThroughRoutes("hank");
    const user = await getSessionUser(sessionToken(callback));
    expect(user?.id).not.toBe(localHank.userId);
    expect(user).toMatchObject({ username: "hank-2", role: "support" });
  });

  test("user names come from the provider's name for the person", () => {
    expect(usernameFromClaim("Alice.B@example.com")).toBe("alice.b");
    expect(usernameFromClaim("42")).toBe("user");
    expect(usernameFromClaim("Ölaf Ünal")).toBe("laf-nal");
  });
});

describe("every failure ends on the sign-in page with a message and an audit entry", () => {
  async function expectFailure(res: Response, reason: string) {
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/login?sso_error=${reason}`);
    expect(sessionToken(res)).toBeUndefined();
    const audit = await lastAudit("auth.oidc_failed");
    expect(JSON.parse(audit!.details)).toMatchObject({ reason });
    return audit!;
  }

  test("sign-in with the provider not configured", async () => {
    await configure({ oidcEnabled: false });
    await expectFailure(await handleOidcStart(new Request(`${BASE}/api/auth/oidc/start`)), "not_configured");
  });

  test("a misconfigured issuer: no discovery document there", async () => {
    await configure({ issuer: `${idp.issuer}/not-an-issuer` });
    const audit = await expectFailure(await handleOidcStart(new Request(`${BASE}/api/auth/oidc/start`)), "issuer_misconfigured");
    expect(JSON.parse(audit.details).detail).toContain("/not-an-issuer/.well-known/openid-configuration");
  });

  test("a provider that is down", async () => {
    await configure({ issuer: `http://127.0.0.1:${await closedPort()}` });
    const audit = await expectFailure(await handleOidcStart(new Request(`${BASE}/api/auth/oidc/start`)), "provider_unreachable");
    expect(JSON.parse(audit.details).detail).toContain("ECONNREFUSED");
  });

  test("a wrong client secret: the provider refuses the code exchange", async () => {
    await configure({ clientSecret: "not-the-secret-at-all" });
    const { callback } = await signInThroughRoutes("olga");
    const audit = await expectFailure(callback, "client_rejected");
    expect(JSON.parse(audit.details).detail).toContain("invalid_client");
  });

  test("a replayed state: the second callback with the same state finds nothing", async () => {
    const { callback, callbackUrl, stateCookie } = await signInThroughRoutes("olga");
    expect(callback.headers.get("location")).toBe("/clusters/x");
    const again = await handleOidcCallback(new Request(callbackUrl, { headers: { cookie: stateCookie } }));
    await expectFailure(again, "state_used");
  });

  test("a callback whose state is not this browser's (login CSRF)", async () => {
    const start = await handleOidcStart(new Request(`${BASE}/api/auth/oidc/start`));
    const callbackUrl = await idp.signIn(start.headers.get("location")!, "olga");
    await expectFailure(await handleOidcCallback(new Request(callbackUrl, { headers: { cookie: "bootdeck_oidc=someone-elses-state" } })), "state_mismatch");
    await expectFailure(await handleOidcCallback(new Request(callbackUrl)), "state_mismatch");
  });

  test("the provider refusing the person (error in the callback)", async () => {
    const { state } = await startOidcSignIn({ next: "/", requestUrl: BASE });
    const res = await handleOidcCallback(
      new Request(`${REDIRECT}?error=access_denied&error_description=End-User+aborted&state=${state}`, { headers: { cookie: `bootdeck_oidc=${state}` } }),
    );
    await expectFailure(res, "provider_refused");
  });

  // The provider's answer changed in transit: its token response carries a real ID token, signed by
  // the provider, that was issued for another sign-in.
  async function idTokenFor(clientId: string, clientSecret: string, login: string): Promise<{ idToken: string }> {
    const params = new URLSearchParams({ client_id: clientId, response_type: "code", scope: "openid", redirect_uri: REDIRECT, nonce: "n-other", state: "s-other" });
    const verifier = "v".repeat(50);
    const { createHash } = await import("node:crypto");
    params.set("code_challenge", createHash("sha256").update(verifier).digest("base64url"));
    params.set("code_challenge_method", "S256");
    const cb = new URL(await idp.signIn(`${idp.issuer}/auth?${params}`, login));
    const res = await fetch(`${idp.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}` },
      body: new URLSearchParams({ grant_type: "authorization_code", code: cb.searchParams.get("code")!, redirect_uri: REDIRECT, code_verifier: verifier }),
    });
    const body = (await res.json()) as { id_token: string };
    return { idToken: body.id_token };
  }

  function swappingIdToken(idToken: string): CustomFetch {
    return async (url, init) => {
      const res = await fetch(url, init as RequestInit);
      if (!String(url).endsWith("/token")) return res;
      const body = (await res.json()) as Record<string, unknown>;
      return Response.json({ ...body, id_token: idToken }, { status: res.status });
    };
  }

  async function finishWith(fetchImpl: CustomFetch) {
    const { location, state } = await startOidcSignIn({ next: "/", requestUrl: BASE, options: { fetch: fetchImpl } });
    const callbackUrl = await idp.signIn(location, "olga");
    return finishOidcSignIn({ callbackUrl, cookieState: state, options: { fetch: fetchImpl } });
  }

  test("an ID token with a wrong audience (issued to another application) is refused", async () => {
    const { idToken } = await idTokenFor(other.clientId, other.clientSecret, "olga");
    const sessions = await getDb().session.count();
    await expect(finishWith(swappingIdToken(idToken))).rejects.toMatchObject({ reason: "token_audience" });
    expect(await getDb().session.count()).toBe(sessions);
  });

  test("a replayed ID token (another sign-in's nonce) is refused", async () => {
    const { idToken } = await idTokenFor(client.clientId, client.clientSecret, "olga");
    const sessions = await getDb().session.count();
    await expect(finishWith(swappingIdToken(idToken))).rejects.toMatchObject({ reason: "token_nonce" });
    expect(await getDb().session.count()).toBe(sessions);
  });
});

describe("sessions follow the provider", () => {
  test("a due refresh keeps the session and updates the role; leaving every mapped group ends it", async () => {
    idp.setGroups("olga", ["ops", "helpdesk"]);
    const { callback } = await signInThroughRoutes("olga");
    const token = sessionToken(callback)!;
    const user = (await getSessionUser(token))!;
    await configure({ mappings: [{ group: "helpdesk", role: "support", clusterId: null }] });
    const later = new Date(Date.now() + 6 * 60_000);
    expect(await refreshOidcSession({ sessionId: user.sessionId, now: later })).toBe(true);
    expect((await getDb().user.findUniqueOrThrow({ where: { id: user.id } })).role).toBe("support");
    expect(await lastAudit("user.role_from_groups")).toMatchObject({ username: "olga", provider: idp.issuer, subject: "olga" });

    idp.setGroups("olga", ["marketing"]);
    expect(await refreshOidcSession({ sessionId: user.sessionId, now: new Date(later.getTime() + 6 * 60_000) })).toBe(false);
    expect(await getSessionUser(token)).toBeUndefined();
    const ended = await lastAudit("auth.session_ended");
    expect(JSON.parse(ended!.details)).toMatchObject({ reason: "no_mapped_group" });
    idp.setGroups("olga", ["ops"]);
  });

  test("a session is checked at its first request after the refresh interval", async () => {
    const { callback } = await signInThroughRoutes("olga");
    const token = sessionToken(callback)!;
    const user = (await getSessionUser(token))!;
    idp.setGroups("olga", []);
    expect(await getSessionUser(token)).toBeDefined(); // not due yet
    await getDb().session.update({ where: { id: user.sessionId }, data: { refreshDueAt: new Date(Date.now() - 1000) } });
    expect(await getSessionUser(token)).toBeUndefined();
    idp.setGroups("olga", ["ops"]);
  });

  test("an open stream's recheck checks a due session with the provider too", async () => {
    const { callback } = await signInThroughRoutes("olga");
    const user = (await getSessionUser(sessionToken(callback)))!;
    expect(await sessionStillAllows({ sessionId: user.sessionId, permission: "cluster:read" })).toBe(true);
    idp.setGroups("olga", []);
    await getDb().session.update({ where: { id: user.sessionId }, data: { refreshDueAt: new Date(Date.now() - 1000) } });
    expect(await sessionStillAllows({ sessionId: user.sessionId, permission: "cluster:read" })).toBe(false);
    expect(await getDb().session.findUnique({ where: { id: user.sessionId } })).toBeNull();
    idp.setGroups("olga", ["ops"]);
  });

  test("a refresh the provider refuses ends the session", async () => {
    const { callback } = await signInThroughRoutes("olga");
    const user = (await getSessionUser(sessionToken(callback)))!;
    await configure({ clientSecret: "a-secret-that-is-wrong" });
    expect(await refreshOidcSession({ sessionId: user.sessionId, now: new Date(Date.now() + 6 * 60_000) })).toBe(false);
    const ended = await lastAudit("auth.session_ended");
    expect(JSON.parse(ended!.details)).toMatchObject({ reason: "refresh_failed" });
    expect(JSON.parse(ended!.details).detail).toContain("client_rejected");
  });
});
