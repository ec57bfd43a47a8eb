// The authorization matrix, generated from the route files: every exported HTTP method of every
// app/api/**/route.ts × {admin, lead, support, signed out}. A route method with no rule below fails,
// so a new endpoint cannot ship without someone deciding who may call it.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import type { Role } from "../lib/auth/roles";
import { getDb } from "../lib/db/client";
import { newId } from "../lib/ids";
import { appendRunEvent } from "../lib/engine/events";
import { createRun } from "../lib/engine/runs";
import { openSealedWriter } from "../lib/backups/sealed-file";
import { backupRelPath, dataPath, recordBackup } from "../lib/backups/store";
import { createTempDb, type TempDb } from "./temp-db";
import { call, createActor, listApiRoutes, methods, signIn, type Actor, type Handler, type Method } from "./http-helpers";
import { testKeyPair } from "./ssh-key";

type Rule = "public" | readonly Role[];
const ALL: readonly Role[] = ["admin", "lead", "support"];
const ADMIN: readonly Role[] = ["admin"];
const RUNNERS: readonly Role[] = ["admin", "lead"];

/** Who may call what. "public" = no session needed (sign-in, sign-out). */
export const rules: Record<string, Rule> = {
  "POST /api/auth/login": "public",
  "POST /api/auth/logout": "public",
  "GET /api/auth/oidc/start": "public",
  "GET /api/auth/oidc/callback": "public",
  "GET /api/settings/access": ADMIN,
  "PUT /api/settings/access": ADMIN,
  "POST /api/clusters/:id/kubeconfig": ALL,
  "GET /api/clusters/:id/kubeconfigs": ALL,
  "GET /api/audit": ADMIN,
  "GET /api/audit/export": ADMIN,
  "GET /api/clusters": ALL,
  "POST /api/clusters": ADMIN,
  "GET /api/clusters/:id": ALL,
  "PUT /api/clusters/:id": ADMIN,
  "DELETE /api/clusters/:id": ADMIN,
  "GET /api/clusters/:id/export": ALL,
  "GET /api/clusters/:id/assets": ALL,
  "POST /api/clusters/:id/assets": ADMIN,
  "GET /api/clusters/:id/assets/:setId": ALL,
  "GET /api/clusters/:id/assets/:setId/diff": ALL,
  "GET /api/clusters/:id/assets/:setId/download": ALL,
  "GET /api/clusters/:id/assets/jobs/:jobId": ALL,
  "POST /api/clusters/:id/assets/ensure": RUNNERS,
  "POST /api/clusters/import": ADMIN,
  "GET /api/clusters/:id/runs": ALL,
  "POST /api/clusters/:id/runs": RUNNERS,
  "GET /api/clusters/:id/live": ALL,
  "GET /api/clusters/:id/backups": ALL,
  "POST /api/clusters/:id/backups": RUNNERS,
  "PUT /api/clusters/:id/backups/policy": ADMIN,
  "GET /api/clusters/:id/backups/:backupId/download": ADMIN,
  "GET /api/clusters/:id/backups/target": ALL,
  "PUT /api/clusters/:id/backups/target": ADMIN,
  "DELETE /api/clusters/:id/backups/target": ADMIN,
  "POST /api/clusters/:id/backups/target/test": ADMIN,
  "POST /api/backups/remote": ADMIN,
  "POST /api/backups/remote/import": ADMIN,
  "GET /api/clusters/:id/certificates": ALL,
  "GET /api/clusters/:id/hardening": ALL,
  "GET /api/clusters/:id/reports": ALL,
  "POST /api/clusters/:id/reports": RUNNERS,
  "POST /api/clusters/:id/certificates/live": ALL,
  "GET /api/clusters/alerts": ALL,
  "GET /api/clusters/:id/hosts/:host": ALL,
  "POST /api/clusters/:id/hosts/:host/diagnostics": ALL,
  "POST /api/clusters/:id/hosts/:host/host-key/probe": ADMIN,
  "PUT /api/clusters/:id/hosts/:host/host-key": ADMIN,
  "GET /api/runs/:id": ALL,
  "GET /api/runs/:id/events": ALL,
  "POST /api/runs/:id/start": RUNNERS,
  "POST /api/runs/:id/cancel": RUNNERS,
  "POST /api/runs/:id/release": ADMIN,
  "POST /api/runs/:id/retry": ALL,
  "POST /api/runs/:id/pause": RUNNERS,
  "POST /api/runs/:id/resume": RUNNERS,
  "GET /api/runs/:id/bundle": ALL,
  "GET /api/runs/:id/steps/:key/output": ALL,
  "GET /api/runs/:id/files/:sha256": ALL,
  "GET /api/clusters/:id/phase-times": ALL,
  "GET /api/users": ADMIN,
  "POST /api/users": ADMIN,
  "GET /api/users/:id": ADMIN,
  "PATCH /api/users/:id": ADMIN,
  "DELETE /api/users/:id": ADMIN,
  "POST /api/users/:id/password": ADMIN,
  "GET /api/webhooks": ADMIN,
  "POST /api/webhooks": ADMIN,
  "GET /api/webhooks/:id": ADMIN,
  "PATCH /api/webhooks/:id": ADMIN,
  "DELETE /api/webhooks/:id": ADMIN,
  "GET /api/webhooks/:id/deliveries": ADMIN,
  "POST /api/webhooks/:id/ping": ADMIN,
  "POST /api/webhooks/:id/deliveries/:deliveryId/redeliver": ADMIN,
};

/**
 * Same handler, another rule when the request asks for more: a query parameter (private keys in a
 * download), a body (a reset, accepting warnings), or the run it acts on (a cancelled or a reset run).
 * Each variant is one more row of the matrix. `fixture` names a run of the "locked" cluster, which
 * another run holds: starting or retrying them answers 409 to whoever may, so no host is contacted.
 */
type Variant = { name: string; query?: string; body?: unknown; fixture?: keyof typeof lockedRuns; rule: Rule };
const lockedRuns = {
  plannedReset: { type: "reset", status: "planned" },
  plannedBootstrap: { type: "bootstrap", status: "planned" },
  failedCheck: { type: "check", status: "failed" },
  cancelledCheck: { type: "check", status: "cancelled" },
  failedBootstrap: { type: "bootstrap", status: "failed" },
  cancelledBootstrap: { type: "bootstrap", status: "cancelled" },
  failedReset: { type: "reset", status: "failed" },
  plannedBackup: { type: "backup", status: "planned" },
  failedBackup: { type: "backup", status: "failed" },
  cancelledBackup: { type: "backup", status: "cancelled" },
  plannedRestore: { type: "restore", status: "planned" },
  failedRestore: { type: "restore", status: "failed" },
  plannedRecover: { type: "recover", status: "planned" },
  failedRecover: { type: "recover", status: "failed" },
  plannedRotation: { type: "rotate-certs", status: "planned" },
  failedRotation: { type: "rotate-certs", status: "failed" },
  plannedRemove: { type: "remove", status: "planned" },
  failedRemove: { type: "remove", status: "failed" },
  plannedUpgrade: { type: "upgrade", status: "planned" },
  failedUpgrade: { type: "upgrade", status: "failed" },
  cancelledUpgrade: { type: "upgrade", status: "cancelled" },
} as const;
export const variants: Record<string, Variant[]> = {
  "GET /api/clusters/:id/assets/:setId/download": [{ name: "?secrets=1", query: "secrets=1", rule: ADMIN }],
  "POST /api/clusters/:id/runs": [
    { name: "type check", body: { type: "check" }, rule: RUNNERS },
    { name: "type bootstrap", body: { type: "bootstrap" }, rule: RUNNERS },
    { name: "type bootstrap, acceptWarnings", body: { type: "bootstrap", acceptWarnings: true }, rule: RUNNERS },
    { name: "type join, hosts", body: { type: "join", hosts: ["worker-1"], acceptWarnings: true }, rule: RUNNERS },
    { name: "type reset, hosts, confirm", body: { type: "reset", hosts: ["worker-1"], confirm: true }, rule: ADMIN },
    { name: "type reset, hosts, no confirm", body: { type: "reset", hosts: ["master-1"] }, rule: ADMIN },
    { name: "type reset, confirm false", body: { type: "reset", hosts: ["master-1"], confirm: false }, rule: ADMIN },
    { name: "type backup", body: { type: "backup" }, rule: RUNNERS },
    { name: "type restore, a backup, confirm", body: { type: "restore", backup: "bk_AAAAAAAAAAAAAAAA", confirm: true }, rule: ADMIN },
    { name: "type restore, no confirm", body: { type: "restore", backup: "bk_AAAAAAAAAAAAAAAA" }, rule: ADMIN },
    { name: "type restore, no backup", body: { type: "restore", confirm: true }, rule: ADMIN },
    { name: "type recover, confirm", body: { type: "recover", confirm: true }, rule: ADMIN },
    { name: "type recover, confirm false", body: { type: "recover", confirm: false }, rule: ADMIN },
    { name: "type rotate-certs, confirm", body: { type: "rotate-certs", confirm: true }, rule: ADMIN },
    { name: "type rotate-certs, validity", body: { type: "rotate-certs", confirm: true, leafValidityDays: 90 }, rule: ADMIN },
    { name: "type rotate-encryption-key, confirm", body: { type: "rotate-encryption-key", confirm: true }, rule: ADMIN },
    { name: "type rotate-encryption-key, no confirm", body: { type: "rotate-encryption-key" }, rule: ADMIN },
    { name: "type join, a master", body: { type: "join", hosts: ["master-3"] }, rule: RUNNERS },
    { name: "type join, masters and workers", body: { type: "join", hosts: ["master-3", "worker-2"], acceptWarnings: true }, rule: RUNNERS },
    { name: "type remove, a worker", body: { type: "remove", hosts: ["worker-1"], confirm: true }, rule: ADMIN },
    { name: "type remove, a master, no reset", body: { type: "remove", hosts: ["master-3"], confirm: true, reset: false }, rule: ADMIN },
    { name: "type remove, drain timeout", body: { type: "remove", hosts: ["worker-1"], confirm: true, drainTimeoutSeconds: 60 }, rule: ADMIN },
    { name: "type remove, no confirm", body: { type: "remove", hosts: ["worker-1"] }, rule: ADMIN },
    { name: "type upgrade", body: { type: "upgrade", version: "v1.37.2" }, rule: RUNNERS },
    { name: "type upgrade, batches", body: { type: "upgrade", version: "v1.37.2", batches: { masters: "1", workers: "50%" }, drainTimeoutSeconds: 120 }, rule: RUNNERS },
    { name: "type upgrade, a skipped minor", body: { type: "upgrade", version: "v1.34.4" }, rule: RUNNERS },
  ],
  "POST /api/runs/:id/start": [
    { name: "a planned reset", fixture: "plannedReset", rule: ADMIN },
    { name: "a planned removal", fixture: "plannedRemove", rule: ADMIN },
    { name: "a planned upgrade", fixture: "plannedUpgrade", rule: RUNNERS },
    { name: "a planned bootstrap", fixture: "plannedBootstrap", rule: RUNNERS },
    { name: "a planned backup", fixture: "plannedBackup", rule: RUNNERS },
    { name: "a planned restore", fixture: "plannedRestore", rule: ADMIN },
    { name: "a planned recovery", fixture: "plannedRecover", rule: ADMIN },
    { name: "a planned rotation", fixture: "plannedRotation", rule: ADMIN },
  ],
  "POST /api/runs/:id/cancel": [{ name: "a planned reset", fixture: "plannedReset", rule: RUNNERS }],
  "POST /api/runs/:id/retry": [
    { name: "a failed check", fixture: "failedCheck", rule: ALL },
    { name: "a failed bootstrap", fixture: "failedBootstrap", rule: ALL },
    { name: "a failed bootstrap, one step", fixture: "failedBootstrap", body: { step: "preflight/worker-1" }, rule: ALL },
    { name: "a failed bootstrap, acceptWarnings", fixture: "failedBootstrap", body: { acceptWarnings: true }, rule: RUNNERS },
    { name: "a cancelled check", fixture: "cancelledCheck", rule: RUNNERS },
    { name: "a cancelled bootstrap", fixture: "cancelledBootstrap", rule: RUNNERS },
    { name: "a failed reset", fixture: "failedReset", rule: ADMIN },
    { name: "a failed backup", fixture: "failedBackup", rule: RUNNERS },
    { name: "a cancelled backup", fixture: "cancelledBackup", rule: RUNNERS },
    { name: "a failed restore", fixture: "failedRestore", rule: ADMIN },
    { name: "a failed restore, one host", fixture: "failedRestore", body: { host: "master-1" }, rule: ADMIN },
    { name: "a failed recovery", fixture: "failedRecover", rule: ADMIN },
    { name: "a failed rotation", fixture: "failedRotation", rule: ADMIN },
    { name: "a failed removal", fixture: "failedRemove", rule: ADMIN },
    { name: "a failed upgrade", fixture: "failedUpgrade", rule: ALL },
    { name: "a failed upgrade, one host", fixture: "failedUpgrade", body: { host: "worker-1" }, rule: ALL },
    { name: "a cancelled upgrade", fixture: "cancelledUpgrade", rule: RUNNERS },
  ],
  "POST /api/runs/:id/pause": [{ name: "a planned upgrade", fixture: "plannedUpgrade", rule: RUNNERS }],
  "POST /api/runs/:id/resume": [{ name: "a planned upgrade", fixture: "plannedUpgrade", rule: RUNNERS }],
};

const routes = listApiRoutes();
type Entry = { key: string; rule: string; method: Method; path: string; query: string; body?: unknown; fixture?: keyof typeof lockedRuns; params: string[]; handler: Handler };
const entries: Entry[] = [];
for (const r of routes) {
  const mod = (await import(r.file)) as Record<string, unknown>;
  for (const m of methods) {
    if (typeof mod[m] !== "function") continue;
    const key = `${m} ${r.path}`;
    const base = { method: m, path: r.path, params: r.params, handler: mod[m] as Handler };
    entries.push({ ...base, key, rule: key, query: "" });
    for (const v of variants[key] ?? []) entries.push({ ...base, key: `${key} [${v.name}]`, rule: `${key} [${v.name}]`, query: v.query ?? "", body: v.body, fixture: v.fixture });
  }
}
for (const [key, vs] of Object.entries(variants)) for (const v of vs) rules[`${key} [${v.name}]`] = v.rule;
const actors = ["admin", "lead", "support", "signed-out"] as const;

let db: TempDb;
const actorsByRole = new Map<string, Actor>();
const fixtures: Record<string, string> = {};

beforeAll(async () => {
  db = await createTempDb();
  for (const role of ["admin", "lead", "support"] as const) actorsByRole.set(role, await createActor(role));
  const key = testKeyPair();
  fixtures.cluster = (await createCluster({ definition: exampleDefinition({ name: "matrix" }), secrets: { "admin-key": { privateKey: key.private } } })).id;
  fixtures.user = (await createActor("support", "victim")).userId;
  fixtures.setId = newId("as");
  await getDb().assetSet.create({ data: { id: fixtures.setId, clusterId: fixtures.cluster, version: 1 } });
  // A finished run: its event stream replays and ends, and start/cancel answer 409, never touching a host.
  fixtures.run = await createRun({ clusterId: fixtures.cluster, type: "check", plan: { runType: "check", phases: [] } });
  await getDb().run.update({ where: { id: fixtures.run }, data: { status: "succeeded", finishedAt: new Date() } });
  await appendRunEvent({ runId: fixtures.run, type: "run.finished", data: { status: "succeeded" } });
  // The locked cluster: a running run holds it, so its other runs cannot start or be retried (409).
  const locked = (fixtures.lockedCluster = (await createCluster({ definition: exampleDefinition({ name: "matrix-locked" }), secrets: { "admin-key": { privateKey: key.private } } })).id);
  const holder = await createRun({ clusterId: locked, type: "check", plan: { runType: "check", phases: [] } });
  await getDb().run.update({ where: { id: holder }, data: { status: "running" } });
  await getDb().cluster.update({ where: { id: locked }, data: { activeRunId: holder } });
  for (const [name, { type, status }] of Object.entries(lockedRuns)) {
    fixtures[name] = await createRun({ clusterId: locked, type, plan: { runType: type, phases: [] } });
    await getDb().run.update({ where: { id: fixtures[name] }, data: { status, ...(status === "planned" ? {} : { finishedAt: new Date() }) } });
  }
  // A stored backup with its file, so the download runs whole for whoever may.
  fixtures.backup = newId("bk");
  const sealed = openSealedWriter(dataPath(backupRelPath(fixtures.cluster, fixtures.backup)), fixtures.backup);
  sealed.stream.write("snapshot bytes");
  await recordBackup({ id: fixtures.backup, clusterId: fixtures.cluster, runId: null, trigger: "manual", sealed: await sealed.finish(), facts: { member: "master-1", revision: "42", totalKeys: 1, etcdVersion: "3.6.0" } });
  const plain = entries.filter((e) => e.key === e.rule && !e.key.includes(" [")).length;
  console.log(
    `authorization matrix: ${routes.length} route files, ${plain} route methods + ${entries.length - plain} query, body and run variants = ${entries.length} rows × ${actors.length} actors (admin, lead, support, signed out) = ${entries.length * actors.length} cases`,
  );
});
afterAll(async () => db?.cleanup());

/** A real id for a dynamic segment (so the handler runs, not just the params check); unknown params get a dummy (→ 404 when allowed). */
function paramsFor(path: string, params: string[], method: Method): Record<string, string> {
  const resource = path.split("/")[2];
  const ids: Record<string, string | undefined> = {
    // Taking a backup starts a run at once: against the locked cluster, whoever may is answered 409 and no host is contacted.
    id: resource === "clusters" ? (method === "POST" && path === "/api/clusters/:id/backups" ? fixtures.lockedCluster : fixtures.cluster) : resource === "users" ? fixtures.user : resource === "runs" ? fixtures.run : undefined,
    setId: fixtures.setId,
    backupId: fixtures.backup,
    jobId: "rj_AAAAAAAAAAAAAAAA", // well-formed, unknown: 404 when allowed
  };
  return Object.fromEntries(params.map((p) => [p, ids[p] ?? "x"]));
}

test("every route method has a rule, and every rule names a route method", () => {
  const keys = new Set(entries.map((e) => e.key));
  expect(entries.filter((e) => !(e.rule in rules)).map((e) => e.key), "route methods without an authorization rule in test/authorization-matrix.test.ts").toEqual([]);
  expect(Object.keys(rules).filter((k) => !keys.has(k)), "rules for route methods that no longer exist").toEqual([]);
});

describe.each(entries)("$key", ({ key, method, path, query, body, fixture, params, handler }) => {
  test.each(actors)("as %s", async (who) => {
    const rule = rules[key];
    if (!rule) throw new Error(`no authorization rule for "${key}": add one to the rules table`);
    const actor = actorsByRole.get(who);
    const signed = actor ? await signIn(actor) : undefined;
    const ids = { ...paramsFor(path, params, method), ...(fixture ? { id: fixtures[fixture]! } : {}) };
    const res = await call(handler, { method, path: query ? `${path}?${query}` : path, params: ids, signed, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const status = res.status;
    expect(status, `${key} as ${who} must never crash`).toBeLessThan(500);
    if (rule === "public") expect([401, 403]).not.toContain(status);
    else if (who === "signed-out") expect(status).toBe(401);
    else if (rule.includes(who as Role)) expect([401, 403], `${key} as ${who} is allowed, got ${status}`).not.toContain(status);
    else expect(status, `${key} as ${who} must be refused`).toBe(403);
  });
});

// Pages: server components cannot be called like handlers, so the rule is checked in the source:
// a signed-in page (or a layout above it) must call requirePageUser/requirePagePermission, and a
// page limited to a permission must check exactly that permission on the server.
type PageRule = "public" | "signed-in" | { permission: string };
export const pageRules: Record<string, PageRule> = {
  "/": "public", // redirects to /clusters, which checks
  "/login": "public",
  "/no-access": "public",
  "/settings/access": { permission: "access:manage" },
  "/clusters": "signed-in",
  "/clusters/:id": "signed-in",
  "/clusters/:id/assets": "signed-in",
  "/clusters/:id/edit": { permission: "cluster:write" },
  "/clusters/:id/runs/:runId": "signed-in",
  "/clusters/:id/hosts/:host": "signed-in",
  "/clusters/import": { permission: "cluster:write" },
  "/clusters/from-bucket": { permission: "cluster:write" },
  "/clusters/new": { permission: "cluster:write" },
  "/users": { permission: "user:manage" },
  "/audit": { permission: "audit:read" },
  "/webhooks": { permission: "webhook:manage" },
  "/webhooks/:id": { permission: "webhook:manage" },
};

describe("pages", async () => {
  const { readdirSync, readFileSync, existsSync } = await import("node:fs");
  const path = await import("node:path");
  const appDir = path.resolve(__dirname, "..", "app");
  const pages: { route: string; dir: string }[] = [];
  const walk = (dir: string, segs: string[]) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory() && e.name !== "api") walk(path.join(dir, e.name), [...segs, e.name]);
      else if (e.name === "page.tsx") pages.push({ route: `/${segs.filter((s) => !/^\(.*\)$/.test(s)).map((s) => s.replace(/^\[(.+)\]$/, ":$1")).join("/")}`, dir });
    }
  };
  walk(appDir, []);

  test("every page has a rule, and every rule names a page", () => {
    const routes = new Set(pages.map((p) => p.route));
    expect(pages.filter((p) => !(p.route in pageRules)).map((p) => p.route), "pages without a rule in pageRules").toEqual([]);
    expect(Object.keys(pageRules).filter((r) => !routes.has(r))).toEqual([]);
  });

  test.each(pages)("$route checks its rule on the server", ({ route, dir }) => {
    const rule = pageRules[route];
    if (!rule) throw new Error(`no page rule for ${route}`);
    if (rule === "public") return;
    const page = readFileSync(path.join(dir, "page.tsx"), "utf8");
    const chain: string[] = [page];
    for (let d = dir; d.startsWith(appDir); d = path.dirname(d)) if (existsSync(path.join(d, "layout.tsx"))) chain.push(readFileSync(path.join(d, "layout.tsx"), "utf8"));
    expect(chain.some((src) => /requirePage(User|Permission)\(/.test(src)), `${route}: no requirePageUser in the page or a layout above it`).toBe(true);
    if (typeof rule === "object") {
      const p = rule.permission.replace(":", "\\:");
      expect(new RegExp(`requirePagePermission\\(\\s*"${p}"|can\\(\\s*user\\.role\\s*,\\s*"${p}"\\s*\\)`).test(page), `${route}: must check ${rule.permission} on the server`).toBe(true);
    }
  });
});

// admin, lead and support all hold both host:inspect and run:retry today, so the matrix cannot tell
// which one a route checks; the source can.
test("node diagnostics checks its own permission (host:inspect), not run:retry", async () => {
  const { readFileSync } = await import("node:fs");
  const route = listApiRoutes().find((r) => r.path === "/api/clusters/:id/hosts/:host/diagnostics");
  expect(readFileSync(route!.file, "utf8")).toMatch(/route\(\{ permission: "host:inspect"/);
});
