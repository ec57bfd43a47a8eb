// The authorization matrix, generated from the route files: every exported HTTP method of every
// app/api/**/route.ts × {admin, lead, support, signed out}. A route method with no rule below fails,
// so a new endpoint cannot ship without someone deciding who may call it.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { utils } from "ssh2";
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import type { Role } from "../lib/auth/roles";
import { createTempDb, type TempDb } from "./temp-db";
import { call, createActor, listApiRoutes, methods, signIn, type Actor, type Handler, type Method } from "./http-helpers";

type Rule = "public" | readonly Role[];
const ALL: readonly Role[] = ["admin", "lead", "support"];
const ADMIN: readonly Role[] = ["admin"];

/** Who may call what. "public" = no session needed (sign-in, sign-out). */
export const rules: Record<string, Rule> = {
  "POST /api/auth/login": "public",
  "POST /api/auth/logout": "public",
  "GET /api/audit": ADMIN,
  "GET /api/audit/export": ADMIN,
  "GET /api/clusters": ALL,
  "POST /api/clusters": ADMIN,
  "GET /api/clusters/:id": ALL,
  "PUT /api/clusters/:id": ADMIN,
  "DELETE /api/clusters/:id": ADMIN,
  "GET /api/clusters/:id/export": ALL,
  "POST /api/clusters/import": ADMIN,
  "GET /api/users": ADMIN,
  "POST /api/users": ADMIN,
  "GET /api/users/:id": ADMIN,
  "PATCH /api/users/:id": ADMIN,
  "POST /api/users/:id/password": ADMIN,
};

const routes = listApiRoutes();
const entries: { key: string; method: Method; path: string; params: string[]; handler: Handler }[] = [];
for (const r of routes) {
  const mod = (await import(r.file)) as Record<string, unknown>;
  for (const m of methods) if (typeof mod[m] === "function") entries.push({ key: `${m} ${r.path}`, method: m, path: r.path, params: r.params, handler: mod[m] as Handler });
}
const actors = ["admin", "lead", "support", "signed-out"] as const;

let db: TempDb;
const actorsByRole = new Map<string, Actor>();
const fixtures: Record<string, string> = {};

beforeAll(async () => {
  db = await createTempDb();
  for (const role of ["admin", "lead", "support"] as const) actorsByRole.set(role, await createActor(role));
  const key = utils.generateKeyPairSync("ed25519");
  fixtures.cluster = (await createCluster({ definition: exampleDefinition({ name: "matrix" }), secrets: { "admin-key": { privateKey: key.private } } })).id;
  fixtures.user = (await createActor("support", "victim")).userId;
  console.log(`authorization matrix: ${entries.length} route methods × ${actors.length} actors (admin, lead, support, signed out) = ${entries.length * actors.length} cases`);
});
afterAll(async () => db?.cleanup());

/** A real id for a dynamic segment, chosen by the resource the path names; anything else gets a dummy (→ 404 when allowed). */
function paramsFor(path: string, params: string[]): Record<string, string> {
  const resource = path.split("/")[2];
  return Object.fromEntries(params.map((p) => [p, resource === "clusters" ? fixtures.cluster! : resource === "users" ? fixtures.user! : "x"]));
}

test("every route method has a rule, and every rule names a route method", () => {
  const keys = new Set(entries.map((e) => e.key));
  expect(entries.filter((e) => !(e.key in rules)).map((e) => e.key), "route methods without an authorization rule in test/authorization-matrix.test.ts").toEqual([]);
  expect(Object.keys(rules).filter((k) => !keys.has(k)), "rules for route methods that no longer exist").toEqual([]);
});

describe.each(entries)("$key", ({ key, method, path, params, handler }) => {
  test.each(actors)("as %s", async (who) => {
    const rule = rules[key];
    if (!rule) throw new Error(`no authorization rule for "${key}": add one to the rules table`);
    const actor = actorsByRole.get(who);
    const signed = actor ? await signIn(actor) : undefined;
    const res = await call(handler, { method, path, params: paramsFor(path, params), signed });
    const status = res.status;
    expect(status, `${key} as ${who} must never crash`).toBeLessThan(500);
    if (rule === "public") expect([401, 403]).not.toContain(status);
    else if (who === "signed-out") expect(status).toBe(401);
    else if (rule.includes(who as Role)) expect([401, 403], `${key} as ${who} is allowed, got ${status}`).not.toContain(status);
    else expect(status, `${key} as ${who} must be refused`).toBe(403);
  });
});
