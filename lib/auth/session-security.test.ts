// Sign-in, sessions and CSRF against the real handlers and a real database file.
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { actorPassword, call, createActor, fromPeer, signIn, type Actor, type Handler } from "../../test/http-helpers";
import { resetEnvCache } from "../env";
import { getDb } from "../db/client";
import { handleLogin, handleLogout } from "../http/public-routes";
import { getSessionUser } from "./sessions";
import { updateUser } from "./users";
import * as usersRoute from "../../app/api/users/route";

let db: TempDb;
let admin: Actor;
let lead: Actor;
const password = (a: Actor) => actorPassword(a.role);

beforeAll(async () => {
  db = await createTempDb();
  admin = await createActor("admin");
  lead = await createActor("lead");
});
afterAll(async () => db?.cleanup());

/** Runs `f` with 127.0.0.1 as the trusted proxy (BOOTDECK_TRUSTED_PROXIES). */
async function behindProxy(f: () => Promise<void>): Promise<void> {
  process.env.BOOTDECK_TRUSTED_PROXIES = "127.0.0.1";
  resetEnvCache();
  try {
    await f();
  } finally {
    delete process.env.BOOTDECK_TRUSTED_PROXIES;
    resetEnvCache();
  }
}

function login(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return handleLogin(new Request("http://localhost/api/auth/login", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }));
}
const tokenFrom = (res: Response) => /^bootdeck_session=([^;]*)/.exec(res.headers.get("set-cookie") ?? "")?.[1];

describe("sign-in", () => {
  test("sets an httpOnly, SameSite=Lax cookie; Secure only over HTTPS (auto)", async () => {
    const plain = await login({ username: lead.username, password: password(lead) });
    expect(plain.status).toBe(200);
    const c = plain.headers.get("set-cookie")!;
    expect(c).toMatch(/HttpOnly/);
    expect(c).toMatch(/SameSite=Lax/);
    expect(c).not.toMatch(/Secure/);
    // X-Forwarded-Proto counts only from a trusted proxy, as X-Forwarded-For does.
    const forged = await login({ username: lead.username, password: password(lead) }, { ...fromPeer("198.51.100.9"), "x-forwarded-proto": "https" });
    expect(forged.headers.get("set-cookie")).not.toMatch(/Secure/);
    // Nor does the URL's scheme, which Next.js builds from that same header.
    const viaUrl = await handleLogin(new Request("https://localhost/api/auth/login", { method: "POST", headers: { "content-type": "application/json", ...fromPeer("198.51.100.9"), "x-forwarded-proto": "https" }, body: JSON.stringify({ username: lead.username, password: password(lead) }) }));
    expect(viaUrl.status).toBe(200);
    expect(viaUrl.headers.get("set-cookie")).not.toMatch(/Secure/);
    await behindProxy(async () => {
      const secure = await login({ username: lead.username, password: password(lead) }, { ...fromPeer("127.0.0.1"), "x-forwarded-proto": "https" });
      expect(secure.headers.get("set-cookie")).toMatch(/; Secure/);
      const untrusted = await login({ username: lead.username, password: password(lead) }, { ...fromPeer("198.51.100.9"), "x-forwarded-proto": "https" });
      expect(untrusted.headers.get("set-cookie")).not.toMatch(/Secure/);
    });
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

  test("DNS rebinding: a Host and Origin of another name are refused, whether or not they agree", async () => {
    const body = { username: lead.username, password: password(lead) };
    const rebound = await login(body, { host: "evil.example", origin: "http://evil.example" });
    expect(rebound.status).toBe(400);
    expect(((await rebound.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: "unknown_host",
      message: "This dashboard answers only on localhost until BOOTDECK_PUBLIC_URL names the address users open it at (asked for evil.example)",
    });
    // Unset, loopback names answer on any port (the browser tests reach the server through a proxy port).
    expect((await login(body, { host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" })).status).toBe(200);
    expect((await login(body, { host: "localhost:4100" })).status).toBe(200);
    // An API route refuses the name before it looks at the session.
    const listUsers = usersRoute.GET as Handler;
    expect((await listUsers(new Request("http://localhost/api/users", { headers: { host: "evil.example" } }), { params: Promise.resolve({}) })).status).toBe(400);
    process.env.BOOTDECK_PUBLIC_URL = "https://dash.example.com";
    process.env.BOOTDECK_ALLOWED_HOSTS = "10.0.0.5:3000";
    resetEnvCache();
    try {
      expect((await login(body, { host: "dash.example.com", origin: "https://dash.example.com" })).status).toBe(200);
      expect((await login(body, { host: "dash.example.com:443", origin: "https://dash.example.com" })).status).toBe(200);
      expect((await login(body, { host: "10.0.0.5:3000", origin: "http://10.0.0.5:3000" })).status).toBe(200);
      expect((await login(body, { host: "evil.example", origin: "http://evil.example" })).status).toBe(400);
      // The Host the configured one, the Origin another site's: refused as a cross-site post.
      expect((await login(body, { host: "dash.example.com", origin: "https://evil.example" })).status).toBe(403);
      expect((await login(body, { host: "dash.example.com", origin: "http://dash.example.com.evil.example" })).status).toBe(403);
      expect((await login(body, { host: "localhost:3000" })).status).toBe(400); // localhost is not the dashboard any more
    } finally {
      delete process.env.BOOTDECK_PUBLIC_URL;
      delete process.env.BOOTDECK_ALLOWED_HOSTS;
      resetEnvCache();
    }
  });

  test("throttling: exponential back-off per account and address, never a lock a stranger holds", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const u = await createActor("support", "throttled");
      const attacker = fromPeer("203.0.113.77");
      const status = async (pw: string, from = attacker) => (await login({ username: u.username, password: pw }, from)).status;
      // Five failures from one address are free, the sixth is answered too, then the address waits 1 s.
      for (let i = 0; i < 6; i++) expect(await status(`wrong-${i}`)).toBe(401);
      const held = await login({ username: u.username, password: password(u) }, attacker);
      expect(held.status).toBe(429);
      expect(held.headers.get("retry-after")).toBe("1");
      expect(((await held.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
      // The account's owner, elsewhere, is not held back by the stranger's failures.
      expect(await status(password(u), fromPeer("198.51.100.20"))).toBe(200);
      // The wait doubles with each failure and ends by itself.
      vi.setSystemTime(Date.now() + 1_100);
      expect(await status("wrong-again")).toBe(401);
      vi.setSystemTime(Date.now() + 1_100);
      expect(await status(password(u))).toBe(429);
      vi.setSystemTime(Date.now() + 1_000);
      expect(await status(password(u))).toBe(200);
      // Refused attempts are not failures: the audit log has the seven real ones.
      expect(await getDb().auditEvent.count({ where: { action: "auth.login_failed", username: u.username } })).toBe(7);
    } finally {
      vi.useRealTimers();
    }
  });

  test("throttling per address has a much higher ceiling: a hundred failures free whatever the names, then at most a minute's wait", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const from = fromPeer("203.0.113.78");
      // Ten sprayed names (each pair's own 5 free failures are not reached) do not hold back another user there.
      for (let i = 0; i < 10; i++) expect((await login({ username: `sprayed-${i}`, password: "wrong-password-x" }, from)).status).toBe(401);
      expect((await login({ username: lead.username, password: password(lead) }, from)).status).toBe(200);
      for (let i = 10; i < 101; i++) expect((await login({ username: `sprayed-${i}`, password: "wrong-password-x" }, from)).status).toBe(401);
      const held = await login({ username: lead.username, password: password(lead) }, from);
      expect(held.status).toBe(429);
      expect(held.headers.get("retry-after")).toBe("1");
      expect((await login({ username: lead.username, password: password(lead) }, fromPeer("203.0.113.79"))).status).toBe(200);
      // However long the spray goes on, the address's wait stops at a minute.
      for (let i = 0; i < 12; i++) {
        vi.setSystemTime(Date.now() + 61_000);
        expect((await login({ username: `sprayed-more-${i}`, password: "wrong-password-x" }, from)).status).toBe(401);
      }
      expect(Number((await login({ username: lead.username, password: password(lead) }, from)).headers.get("retry-after"))).toBe(60);
    } finally {
      vi.useRealTimers();
    }
  });

  test("the audit log's address is the TCP peer's: forwarded headers count only from a trusted proxy", async () => {
    const lastLoginIp = async () => (await getDb().auditEvent.findFirst({ where: { action: "auth.login" }, orderBy: { id: "desc" } }))?.ip;
    const ok = async (headers: Record<string, string>) => expect((await login({ username: lead.username, password: password(lead) }, headers)).status).toBe(200);
    await ok({ ...fromPeer("198.51.100.7"), "x-forwarded-for": "<script>", "x-real-ip": "10.9.9.9" });
    expect(await lastLoginIp()).toBe("198.51.100.7");
    // Without server.js's stamp (or with a forged one) the address is unknown, never what the client says.
    await ok({ "x-forwarded-for": "10.1.1.1", "x-real-ip": "10.2.2.2" });
    expect(await lastLoginIp()).toBeNull();
    await ok({ "x-bootdeck-peer": "0123456789abcdef0123456789abcdef 10.3.3.3", "x-forwarded-for": "10.1.1.1" });
    expect(await lastLoginIp()).toBeNull();
    process.env.BOOTDECK_TRUSTED_PROXIES = "127.0.0.1, 10.0.0.0/8";
    resetEnvCache();
    try {
      await ok({ ...fromPeer("127.0.0.1"), "x-forwarded-for": "<script>, 192.0.2.44, 10.0.0.5" });
      expect(await lastLoginIp()).toBe("192.0.2.44");
      await ok({ ...fromPeer("::ffff:127.0.0.1"), "x-real-ip": "192.0.2.45" });
      expect(await lastLoginIp()).toBe("192.0.2.45");
      // A peer outside the list is not believed.
      await ok({ ...fromPeer("198.51.100.8"), "x-forwarded-for": "192.0.2.46" });
      expect(await lastLoginIp()).toBe("198.51.100.8");
    } finally {
      delete process.env.BOOTDECK_TRUSTED_PROXIES;
      resetEnvCache();
    }
  });

  test("a malformed session cookie is ignored: sign-in works and sets a fresh one", async () => {
    const res = await login({ username: lead.username, password: password(lead) }, { cookie: "bootdeck_session=%" });
    expect(res.status).toBe(200);
    expect(tokenFrom(res)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test("over HTTPS the cookie is __Host- prefixed (Secure, Path=/, no Domain), and only that name is read", () => behindProxy(async () => {
    const https = { ...fromPeer("127.0.0.1"), "x-forwarded-proto": "https" };
    const res = await login({ username: lead.username, password: password(lead) }, https);
    const c = res.headers.get("set-cookie")!;
    expect(c).toMatch(/^__Host-bootdeck_session=[A-Za-z0-9_-]{43}; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax; Secure$/);
    const token = /^__Host-bootdeck_session=([^;]+)/.exec(c)![1]!;
    const listUsers = usersRoute.GET as Handler;
    const asAdmin = await login({ username: admin.username, password: password(admin) }, https);
    const adminToken = /^__Host-bootdeck_session=([^;]+)/.exec(asAdmin.headers.get("set-cookie")!)![1]!;
    const get = (cookie: string) => listUsers(new Request("http://localhost/api/users", { headers: { cookie, ...https } }), { params: Promise.resolve({}) });
    expect((await get(`__Host-bootdeck_session=${adminToken}`)).status).toBe(200);
    // An unprefixed cookie (which a sibling host or a plain-HTTP page could have planted) does not count.
    expect((await get(`bootdeck_session=${adminToken}`)).status).toBe(401);
    expect(token).not.toBe(adminToken);
  }));

  test("unknown users and wrong passwords get the same answer", async () => {
    const a = await login({ username: "nobody-here", password: "whatever-123" }, fromPeer("203.0.113.5"));
    const b = await login({ username: lead.username, password: "whatever-123" }, fromPeer("203.0.113.5"));
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
    expect((await login({ username: u.username, password: password(u) }, fromPeer("203.0.113.9"))).status).toBe(401);
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
