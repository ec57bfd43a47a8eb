// Calling route handlers the way Next.js does, as real signed-in users of each role, against the
// database from test/temp-db.ts.
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import path from "node:path";
import { createSession, sessionCookieName } from "../lib/auth/sessions";
import { PEER_HEADER, peerStampValue } from "../lib/client-address";
import { createUser } from "../lib/auth/users";
import type { Role } from "../lib/auth/roles";
import { getDb } from "../lib/db/client";

export type Actor = { role: Role; userId: string; username: string };
export type Signed = { cookie: string; csrf: string };

export const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type Method = (typeof methods)[number];
export type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** Every test actor's password: long and uncommon enough for the password rules. */
export const actorPassword = (role: Role) => `${role}-password-123`;

export async function createActor(role: Role, username = `${role}-user`): Promise<Actor> {
  const userId = await createUser({ username, password: actorPassword(role), role });
  return { role, userId, username };
}

export async function signIn(actor: { userId: string }): Promise<Signed> {
  const { token } = await createSession({ userId: actor.userId });
  const session = await getDb().session.findUniqueOrThrow({ where: { id: createHash("sha256").update(token).digest("hex") } });
  return { cookie: `${sessionCookieName(false)}=${token}`, csrf: session.csrfToken };
}

/** Headers that make `address` the request's TCP peer, as server.js stamps it. */
export function fromPeer(address: string): Record<string, string> {
  return { [PEER_HEADER]: peerStampValue(address) };
}

export function call(
  handler: Handler,
  input: { method: Method; path: string; params?: Record<string, string>; signed?: Signed; csrf?: string | null; body?: string; headers?: Record<string, string> },
): Promise<Response> {
  const headers: Record<string, string> = { ...input.headers };
  if (input.signed) headers.cookie = input.signed.cookie;
  const csrf = input.csrf === undefined ? input.signed?.csrf : input.csrf;
  if (csrf && input.method !== "GET") headers["x-csrf-token"] = csrf;
  if (input.body !== undefined) headers["content-type"] ??= "application/json";
  const req = new Request(`http://localhost${input.path}`, { method: input.method, headers, body: input.method === "GET" ? undefined : (input.body ?? "{}") });
  return handler(req, { params: Promise.resolve(input.params ?? {}) });
}

export type ApiRoute = { file: string; path: string; params: string[] };

/** Every app/api/**\/route.ts as "/api/…" with ":param" for dynamic segments. */
export function listApiRoutes(root = path.resolve(__dirname, "..", "app", "api")): ApiRoute[] {
  const out: ApiRoute[] = [];
  const walk = (dir: string, segs: string[]) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(dir, e.name), [...segs, e.name]);
      else if (/^route\.(ts|tsx|js)$/.test(e.name)) {
        const params = segs.filter((s) => /^\[.+\]$/.test(s)).map((s) => s.slice(1, -1).replace(/^\.\.\./, ""));
        out.push({ file: path.join(dir, e.name), path: `/api/${segs.map((s) => (/^\[.+\]$/.test(s) ? `:${s.slice(1, -1).replace(/^\.\.\./, "")}` : s)).join("/")}`.replace(/\/$/, ""), params });
      }
    }
  };
  walk(root, []);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
