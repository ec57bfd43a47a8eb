// Sign-in, sessions and CSRF against the real handlers and a real database file.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { call, createActor, signIn, type Actor, type Handler } from "../../test/http-helpers";
import { getDb } from "../db/client";
import { handleLogin, handleLogout } from "./public-routes";
import { getSessionUser } from "./sessions";
import { updateUser } from "./users";
import * as usersRoute from "../../app/api/users/route";

let db: TempDb;
let admin: Actor;
let lead: Actor;
const password = (a: Actor) => `${a.role}-password-123`;

beforeAll(async () => {
  db = await createTempDb();
  admin = await createActor("admin");
  lead = await createActor("lead");
});
afterAll(async () => db?.cleanup());

function login(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return handleLogin(new Request("http://localhost/api/auth/login", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }));
}
const tokenFrom = (res: Response) => /bootdeck_session=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")?.[1];

describe("sign-in", () => {
  test("sets an httpOnly, SameSite=Lax cookie; Secure only over HTTPS (auto)", async () => {
    const plain = await login({ username: lead.username, password: password(lead) });
    expect(plain.status).toBe(200);
    const c = plain.headers.get("set-cookie")!;
    expect(c).toMatch(/HttpOnly/);
    expect(c).toMatch(/SameSite=Lax/);
    expect(c).not.toMatch(/Secure/);
    const secure = await login({ username: lead.username, password: password(lead) }, { "x-forwarded-proto": "https" });
    expect(secure.headers.get("set-cookie")).toMatch(/; Secure/);
  });

  test("session fixation: signing in with an existing cookie replaces its session, never reuses it", async () => {
    const planted = await signIn(lead);
    const plantedToken = planted.cookie.split("=")[1]!;
    expect(await getSessionUser(plantedToken)).toBeDefined();
    const res = await login({ username: admin.username, password: password(admin) }, { cookie: planted.cookie });
    expect(res.status).toBe(200);
    const fresh = decodeURIComponent(tokenFrom(res)!);
    expect(fresh).not.toBe(plantedToken);
    expect(await getSessionUser(plantedToken)).toBeUndefined();
    expect((await getSessionUser(fresh))?.username).toBe(admin.username);
  });

  test("the database holds only a digest of the session token", async () => {
    const res = await login({ username: lead.username, password: password(lead) });
    const token = decodeURIComponent(tokenFrom(res)!);
    const rows = await getDb().session.findMany();
    expect(rows.some((r) => r.id === token || r.csrfToken === token)).toBe(false);
  });

  test("a cross-site sign-in post is refused (login CSRF)", async () => {
    const res = await login({ username: lead.username, password: password(lead) }, { origin: "https://evil.example" });
    expect(res.status).toBe(403);
  });

  test("rate limit: after 10 failures the 11th attempt is 429, even with the right password", async () => {
    const ip = "203.0.113.77";
    const u = await createActor("support", "ratelimited");
    for (let i = 0; i < 10; i++) expect((await login({ username: u.username, password: `wrong-${i}` }, { "x-forwarded-for": ip })).status).toBe(401);
    const eleventh = await login({ username: u.username, password: password(u) }, { "x-forwarded-for": ip });
    expect(eleventh.status).toBe(429);
    expect(((await eleventh.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    // The lock is per user name and per address: the same address is locked for other names too.
    expect((await login({ username: lead.username, password: password(lead) }, { "x-forwarded-for": ip })).status).toBe(429);
    const failures = await getDb().auditEvent.count({ where: { action: "auth.login_failed", username: u.username } });
    expect(failures).toBe(10);
  });

  test("unknown users and wrong passwords get the same answer", async () => {
    const a = await login({ username: "nobody-here", password: "whatever-123" }, { "x-forwarded-for": "203.0.113.5" });
    const b = await login({ username: lead.username, password: "whatever-123" }, { "x-forwarded-for": "203.0.113.5" });
    expect(a.status).toBe(401);
    expect(await a.json()).toEqual(await b.json());
  });
});

describe("sessions", () => {
  const listUsers = usersRoute.GET as Handler;

  test("an expired session is rejected", async () => {
    const s = await signIn(admin);
    expect((await call(listUsers, { method: "GET", path: "/api/users", signed: s })).status).toBe(200);
    await getDb().session.updateMany({ where: { userId: admin.userId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await call(listUsers, { method: "GET", path: "/api/users", signed: s })).status).toBe(401);
  });

  test("a disabled user is rejected: sessions end, and sign-in fails", async () => {
    const u = await createActor("admin", "soon-disabled");
    const s = await signIn(u);
    expect((await call(listUsers, { method: "GET", path: "/api/users", signed: s })).status).toBe(200);
    await updateUser({ id: u.userId, actorId: admin.userId, disabled: true });
    expect(await getDb().session.count({ where: { userId: u.userId } })).toBe(0);
    expect((await call(listUsers, { method: "GET", path: "/api/users", signed: s })).status).toBe(401);
    // Even a session row that survived (restored backup) is refused while the account is disabled.
    const again = await signIn(u);
    expect((await call(listUsers, { method: "GET", path: "/api/users", signed: again })).status).toBe(401);
    expect((await login({ username: u.username, password: password(u) }, { "x-forwarded-for": "203.0.113.9" })).status).toBe(401);
  });

  test("sign-out ends the session and needs the CSRF token", async () => {
    const s = await signIn(lead);
    const logout = (csrf?: string) =>
      handleLogout(new Request("http://localhost/api/auth/logout", { method: "POST", headers: { cookie: s.cookie, ...(csrf ? { "x-csrf-token": csrf } : {}) } }));
    expect((await logout()).status).toBe(403);
    expect((await logout("wrong")).status).toBe(403);
    expect((await logout(s.csrf)).status).toBe(200);
    expect(await getSessionUser(s.cookie.split("=")[1])).toBeUndefined();
  });
});

describe("CSRF", () => {
  const createUserRoute = usersRoute.POST as Handler;
  const body = (name: string) => JSON.stringify({ username: name, role: "support" });

  test("a mutation without the token, or with another session's token, is 403 and changes nothing", async () => {
    const s = await signIn(admin);
    const other = await signIn(lead);
    const before = await getDb().user.count();
    for (const csrf of [null, "", "forged-token", other.csrf]) {
      const res = await call(createUserRoute, { method: "POST", path: "/api/users", signed: s, csrf, body: body("csrf-victim") });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("csrf");
    }
    expect(await getDb().user.count()).toBe(before);
    const ok = await call(createUserRoute, { method: "POST", path: "/api/users", signed: s, body: body("csrf-ok") });
    expect(ok.status).toBe(201);
  });
});
