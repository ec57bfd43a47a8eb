// The hostile-input corpus against every mutating API route, as an admin with a valid CSRF token
// (the most trusting path): XSS payloads, path traversal, SQL-ish strings, control and odd unicode,
// NUL, oversized and malformed bodies. Every answer is a clear 2xx or 4xx (never a 500), errors are
// JSON with a code, and nothing unsanitised lands in the fields the UI and the hosts rely on.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { stringify } from "yaml";
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import { getDb } from "../lib/db/client";
import { createRun } from "../lib/engine/runs";
import { auditCsv } from "../lib/audit/query";
import { createWebhook } from "../lib/notify/endpoints";
import { queuePing } from "../lib/notify/outbox";
import { Forbidden } from "../components/forbidden";
import { createTempDb, type TempDb } from "./temp-db";
import { call, createActor, fromPeer, listApiRoutes, methods, signIn, type Actor, type Handler, type Method, type Signed } from "./http-helpers";
import { testKeyPair } from "./ssh-key";

export const hostileStrings: string[] = [
  "<script>alert(1)</script>",
  '"><img src=x onerror=alert(1)>',
  "javascript:alert(document.cookie)",
  "<svg/onload=alert(1)>",
  "../../../../etc/passwd",
  "..\\..\\..\\windows\\win.ini",
  "/etc/shadow",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "name/../../x",
  `'; DROP TABLE "User"; --`,
  "' OR '1'='1",
  "1; SELECT * FROM Credential",
  "admin\u0000evil",
  "\u0000",
  "\u202eevil\u202c",
  "zero\u200bwidth",
  "🦄💥",
  "ＡＤＭＩＮ",
  "e\u0301\u0301\u0301\u0301",
  "\ud800",
  "a\r\nSet-Cookie: x=1",
  "{{7*7}}${7*7}",
  "$(reboot)`id`",
  "--help",
  "__proto__",
  "A".repeat(100_000),
  "",
  "   ",
];

const key = testKeyPair().private;
const def = (patch: (d: ReturnType<typeof exampleDefinition>) => void) => {
  const d = exampleDefinition({ name: "hostile", hosts: 2 });
  patch(d);
  return d;
};

/** A bucket nothing listens at (the discard port on loopback: refused at once), and a well-formed backup key. */
const bucket = { endpoint: "http://127.0.0.1:9", region: "us-east-1", bucket: "hostile-bucket", prefix: "p/", forcePathStyle: true, accessKeyId: "AKIDHOSTILE", secretAccessKey: "secret" };
const goodKey = `bdk1:${Buffer.alloc(32, 7).toString("base64")}`;

/** Per route method: bodies carrying a hostile string in each field that matters. A mutating route without a template fails. */
export const templates: Record<string, (s: string) => unknown[]> = {
  "POST /api/auth/login": (s) => [{ username: s, password: s }, { username: "admin", password: s }],
  "POST /api/auth/logout": (s) => [{ note: s }],
  "POST /api/clusters": (s) => [
    { definition: def((d) => (d.metadata.name = s)), secrets: { "admin-key": { privateKey: key } } },
    { definition: def((d) => (d.spec.hosts[0]!.name = s)), secrets: { "admin-key": { privateKey: key } } },
    { definition: def((d) => (d.spec.hosts[0]!.address = s)), secrets: { "admin-key": { privateKey: key } } },
    { definition: def((d) => (d.spec.credentials![0]!.name = s)), secrets: { [s]: { privateKey: key } } },
    { definition: def((d) => (d.spec.binaries.baseUrl = s)), secrets: { "admin-key": { privateKey: key } } },
    { definition: def((d) => (d.spec.kubernetes.version = s)), secrets: { "admin-key": { privateKey: key } } },
    { definition: def(() => {}), secrets: { "admin-key": { privateKey: s, passphrase: s } } },
  ],
  "PUT /api/clusters/:id": (s) => [
    { definition: def((d) => ((d.metadata.name = "target"), (d.spec.hosts[1]!.name = s))), secrets: {} },
    { definition: def((d) => ((d.metadata.name = "target"), (d.spec.ssh!.user = s))), secrets: {} },
    { definition: s, secrets: {} },
  ],
  "DELETE /api/clusters/:id": (s) => [{ confirmName: s }],
  "POST /api/clusters/import": (s) => [
    { yaml: s, secrets: {} },
    { yaml: stringify(def((d) => (d.metadata.name = s))), secrets: {} },
    { yaml: `metadata:\n  name: ${s}\n`, secrets: {}, replace: true },
  ],
  "POST /api/clusters/:id/assets": (s) => [{ leafValidityDays: s }, { caValidityDays: s }, { importedCa: { certPem: s, keyPem: s } }],
  "POST /api/users": (s) => [
    { username: s, role: "support" },
    { username: "hostile-display", displayName: s, role: "support" },
    { username: "hostile-role", role: s },
  ],
  "PATCH /api/users/:id": (s) => [{ displayName: s }, { role: s }, { disabled: s }],
  // Reads no body; the first request deletes the target user, the rest answer 404.
  "DELETE /api/users/:id": (s) => [{ note: s }],
  "POST /api/users/:id/password": (s) => [{ password: s }],
  "POST /api/clusters/:id/runs": (s) => [
    { type: s },
    { type: "join", hosts: [s] },
    { type: "reset", hosts: [s], confirm: true },
    { type: "restore", backup: s, confirm: true },
    { type: "rotate-certs", confirm: true, leafValidityDays: s },
    { type: "remove", hosts: [s], confirm: true },
    { type: "upgrade", version: s },
    { type: "upgrade", version: "v1.37.2", batches: { workers: s } },
  ],
  // Retry against a run that did not fail (409) or with a step/host that is not in it: nothing runs.
  "POST /api/runs/:id/retry": (s) => [{ step: s }, { host: s }],
  // Start and cancel read no body; they run against a finished run (409), so no host is contacted.
  "POST /api/runs/:id/start": (s) => [{ note: s }],
  "POST /api/runs/:id/cancel": (s) => [{ note: s }],
  // Reads no body; against a cluster another run holds (409), so no backup starts.
  "POST /api/clusters/:id/backups": (s) => [{ note: s }],
  // Its body is a report file: JSON of kube-bench's and Trivy's shapes here (the JUnit side in lib/hardening/reports.test.ts).
  "POST /api/clusters/:id/reports": (s) => [
    { ID: s, Title: s, SummaryControls: [{ ID: s, Name: s, TotalFail: 1 }] },
    { Controls: [{ version: s, tests: [{ results: [{ test_number: s, test_desc: s, status: "FAIL" }] }] }], Totals: { total_pass: 0, total_fail: 1, total_warn: 0, total_info: 0 } },
  ],
  "PUT /api/clusters/:id/backups/policy": (s) => [
    { enabled: s, intervalMinutes: 60, keepLast: 3, keepDays: 7 },
    { enabled: true, intervalMinutes: s, keepLast: 3, keepDays: 7 },
    { enabled: false, intervalMinutes: 60, keepLast: s, keepDays: s },
  ],
  // The bucket: every field hostile in turn. The endpoint is a closed loopback port, so a body that
  // passes is stored and a test of it is refused at once; a hostile endpoint goes with a key id no
  // check accepts, so nothing else (AWS's own endpoint for "") is ever stored or contacted.
  "PUT /api/clusters/:id/backups/target": (s) => [
    { ...bucket, endpoint: s, accessKeyId: "with space" },
    ...(["region", "bucket", "prefix", "accessKeyId", "secretAccessKey"] as const).map((k) => ({ ...bucket, [k]: s })),
    { ...bucket, forcePathStyle: s },
  ],
  // Reads no body; the target (if a body above was stored) is a closed port: unreachable at once.
  "POST /api/clusters/:id/backups/target/test": (s) => [{ note: s }],
  "DELETE /api/clusters/:id/backups/target": (s) => [{ note: s }],
  "POST /api/backups/remote": (s) => [
    { target: { ...bucket, endpoint: s, accessKeyId: "with space" }, backupKey: goodKey },
    { target: { ...bucket, bucket: s }, backupKey: goodKey },
    { target: { ...bucket, prefix: s }, backupKey: goodKey },
    { target: bucket, backupKey: s },
  ],
  "POST /api/backups/remote/import": (s) => [
    { target: bucket, backupKey: goodKey, clusterId: s },
    { target: bucket, backupKey: goodKey, clusterId: "cl_AAAAAAAAAAAAAAAA", backupId: s },
    { target: { ...bucket, region: s }, backupKey: s, clusterId: "cl_AAAAAAAAAAAAAAAA" },
  ],
  // Reads no body; the hosts' keys are not pinned (409), so no host is contacted.
  "POST /api/clusters/:id/certificates/live": (s) => [{ note: s }],
  // Pause and resume read no body; the run is a check (409: only upgrades pause).
  "POST /api/runs/:id/pause": (s) => [{ note: s }],
  "POST /api/runs/:id/resume": (s) => [{ note: s }],
  // Diagnostics read no body; the host "x" is not in the cluster (404), so no host is contacted.
  "POST /api/clusters/:id/hosts/:host/diagnostics": (s) => [{ note: s }],
  // Release runs against a run that is not running (409); nothing is released.
  "POST /api/runs/:id/release": (s) => [{ confirm: true, reason: s }, { confirm: s }],
  // Host-key probe reads no body; re-pin checks its fingerprints first; the host "x" is not in the cluster (404), so no host is contacted.
  "POST /api/clusters/:id/hosts/:host/host-key/probe": (s) => [{ note: s }],
  "PUT /api/clusters/:id/hosts/:host/host-key": (s) => [
    { fingerprint: s, previous: null, confirm: true },
    { fingerprint: `SHA256:${"A".repeat(43)}`, previous: s, confirm: true },
  ],
  // Reads no body: renders the cluster's first asset set in the background when it has none.
  "POST /api/clusters/:id/assets/ensure": (s) => [{ note: s }],
  "POST /api/webhooks": (s) => [
    { name: s, url: "https://hooks.example/x", events: ["run.failed"], secret: "0123456789abcdef0123" },
    { name: "hostile-url", url: s, events: ["run.failed"], secret: "0123456789abcdef0123" },
    { name: "hostile-secret", url: "https://hooks.example/x", events: ["run.failed"], secret: s },
    { name: "hostile-events", url: "https://hooks.example/x", events: [s], format: s, certificateDays: s, secret: "0123456789abcdef0123" },
  ],
  "PATCH /api/webhooks/:id": (s) => [{ name: s }, { url: s }, { secret: s }, { events: [s] }, { format: s }, { certificateDays: s, enabled: s }],
  // Reads no body; deletes an endpoint of its own (the first request; the rest answer 404).
  "DELETE /api/webhooks/:id": (s) => [{ note: s }],
  // Both read an empty object only: anything in it is refused (422) and nothing is queued.
  "POST /api/webhooks/:id/ping": (s) => [{ note: s }],
  "POST /api/webhooks/:id/deliveries/:deliveryId/redeliver": (s) => [{ note: s }],
  // Takes an empty object; the cluster was never bootstrapped (409), so nothing is issued.
  "POST /api/clusters/:id/kubeconfig": (s) => [{ note: s }],
  "PUT /api/settings/access": (s) => {
    const base = { oidcEnabled: false, issuer: "", clientId: "", scopes: "openid", groupsClaim: "groups", usernameClaim: "preferred_username", localSignIn: "everyone", breakGlass: [], kubeconfigHours: 8, mappings: [] };
    return [
      { ...base, oidcEnabled: true, issuer: s, clientId: "bootdeck" },
      { ...base, clientId: s, clientSecret: s },
      { ...base, scopes: s, groupsClaim: s, usernameClaim: s },
      { ...base, mappings: [{ group: s, role: "admin", clusterId: null }] },
      { ...base, mappings: [{ group: "ops", role: s, clusterId: s }] },
      { ...base, breakGlass: [s], localSignIn: s },
      { ...base, kubeconfigHours: s },
    ];
  },
};

/** Routes that read no body: a malformed one changes nothing about their answer. */
const bodyless = new Set([
  "DELETE /api/users/:id",
  "POST /api/auth/logout",
  "POST /api/runs/:id/start",
  "POST /api/runs/:id/cancel",
  "POST /api/runs/:id/pause",
  "POST /api/runs/:id/resume",
  "POST /api/clusters/:id/hosts/:host/diagnostics",
  "POST /api/clusters/:id/hosts/:host/host-key/probe",
  "POST /api/clusters/:id/assets/ensure",
  "POST /api/clusters/:id/backups",
  "POST /api/clusters/:id/certificates/live",
  "POST /api/clusters/:id/backups/target/test",
  "DELETE /api/clusters/:id/backups/target",
  "DELETE /api/webhooks/:id",
]);

/** Routes whose body is a file in a format of its own (a report), not JSON: anything malformed is some 4xx. */
const fileBody = new Set(["POST /api/clusters/:id/reports"]);

/** Bodies that are wrong as a whole. */
const structural: { name: string; body: string; expect: number[] }[] = [
  { name: "not JSON", body: "{", expect: [400] },
  { name: "JSON array", body: "[]", expect: [400, 422] },
  { name: "JSON null", body: "null", expect: [400, 422] },
  { name: "JSON string", body: '"x"', expect: [400, 422] },
  { name: "deep nesting", body: `${"[".repeat(10_000)}${"]".repeat(10_000)}`, expect: [400, 413, 422] },
  { name: "prototype pollution", body: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}', expect: [400, 422] },
  { name: "oversized (4 MiB)", body: JSON.stringify({ pad: "x".repeat(4 * 1024 * 1024) }), expect: [413] },
];

let db: TempDb;
let admin: Actor;
let signed: Signed;
const ids: Record<string, string> = {};
type Entry = { key: string; method: Method; path: string; params: string[]; handler: Handler };
const entries: Entry[] = [];
for (const r of listApiRoutes()) {
  const mod = (await import(r.file)) as Record<string, unknown>;
  for (const m of methods) if (m !== "GET" && typeof mod[m] === "function") entries.push({ key: `${m} ${r.path}`, method: m, path: r.path, params: r.params, handler: mod[m] as Handler });
}
const caseCount = entries.reduce((n, e) => n + (templates[e.key]?.("x").length ?? 0) * hostileStrings.length + structural.length, 0);
const templateCount = entries.reduce((n, e) => n + (templates[e.key]?.("x").length ?? 0), 0);

beforeAll(async () => {
  db = await createTempDb();
  admin = await createActor("admin");
  signed = await signIn(admin);
  ids.cluster = (await createCluster({ definition: exampleDefinition({ name: "target", hosts: 2 }), secrets: { "admin-key": { privateKey: key } } })).id;
  ids.user = (await createActor("support", "target-user")).userId;
  ids.run = await createRun({ clusterId: ids.cluster, type: "check", plan: { runType: "check", phases: [] } as unknown as Parameters<typeof createRun>[0]["plan"] });
  await getDb().run.update({ where: { id: ids.run }, data: { status: "succeeded", finishedAt: new Date() } });
  // A cluster another run holds: taking a backup of it answers 409 and starts nothing.
  ids.lockedCluster = (await createCluster({ definition: exampleDefinition({ name: "locked", hosts: 2 }), secrets: { "admin-key": { privateKey: key } } })).id;
  await getDb().cluster.update({ where: { id: ids.lockedCluster }, data: { activeRunId: ids.run } });
  // Webhook endpoints: one the routes act on (with a delivery to redeliver), one for the delete.
  const hook = { url: "https://hooks.example/x", format: "json" as const, events: ["run.failed" as const], certificateDays: 14, secret: "0123456789abcdef0123", enabled: false };
  ids.webhook = await createWebhook({ name: "target-hook", ...hook }, "test");
  ids.webhookToDelete = await createWebhook({ name: "victim-hook", ...hook }, "test");
  ids.delivery = await queuePing(ids.webhook, "test");
  console.log(`hostile corpus: ${hostileStrings.length} strings × ${templateCount} field templates over ${entries.length} mutating route methods + ${structural.length} malformed bodies each = ${caseCount} requests`);
});
afterAll(async () => {
  // Give any render job started by an accepted body a moment to finish before the database goes.
  await new Promise((r) => setTimeout(r, 500));
  await db?.cleanup();
});

function paramsFor(e: Entry): Record<string, string> {
  const resource = e.path.split("/")[2];
  const cluster = e.key === "POST /api/clusters/:id/backups" ? ids.lockedCluster! : ids.cluster!;
  const webhook = e.key === "DELETE /api/webhooks/:id" ? ids.webhookToDelete! : ids.webhook!;
  return Object.fromEntries(e.params.map((p) => [p, p === "id" ? (resource === "users" ? ids.user! : resource === "runs" ? ids.run! : resource === "webhooks" ? webhook : cluster) : p === "deliveryId" ? ids.delivery! : "x"]));
}

async function send(e: Entry, body: string): Promise<{ status: number; json: unknown }> {
  // Sign-in is rate limited per address: give each request its own so the corpus reaches the handler.
  const res = await call(e.handler, { method: e.method, path: e.path, params: paramsFor(e), signed: e.path.startsWith("/api/auth/") ? undefined : signed, body, headers: fromPeer(`198.51.100.${Math.floor(Math.random() * 250)}`) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

test("every mutating route method has a hostile-input template", () => {
  expect(entries.filter((e) => !(e.key in templates)).map((e) => e.key)).toEqual([]);
});

describe.each(entries)("$key", (e) => {
  test("hostile strings in every field: 2xx or a clear 4xx, never a 500", async () => {
    const bad: string[] = [];
    for (const s of hostileStrings)
      for (const body of templates[e.key]?.(s) ?? []) {
        const r = await send(e, JSON.stringify(body));
        const clear = r.status < 300 || (r.status >= 400 && r.status < 500 && typeof (r.json as { error?: { code?: unknown } })?.error?.code === "string");
        if (!clear) bad.push(`${r.status} for ${JSON.stringify(s).slice(0, 40)}`);
      }
    expect(bad).toEqual([]);
  }, 300_000); // hundreds of requests, some with scrypt or key parsing; slow on a busy machine

  test.each(structural)("malformed body: $name", async ({ body, expect: allowed }) => {
    const r = await send(e, body);
    if (bodyless.has(e.key)) expect(r.status).toBeLessThan(500); // reads no body
    else if (fileBody.has(e.key)) expect(r.status >= 400 && r.status < 500 && typeof (r.json as { error?: { code?: unknown } })?.error?.code === "string").toBe(true);

    else expect(allowed).toContain(r.status);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/**
 * Read routes whose path carries free text (a step key): the corpus in that segment, as Next.js hands it
 * over (decoded). The fixture run has no steps, so every answer must be a clear 404, never a 500.
 */
export const pathTemplates: Record<string, (s: string) => Record<string, string>> = {
  "GET /api/runs/:id/steps/:key/output": (s) => ({ key: s }),
};

describe.each(Object.keys(pathTemplates))("%s with hostile path segments", (key) => {
  test("hostile strings in the path: a clear 4xx, never a 500", async () => {
    const route = listApiRoutes().find((r) => `GET ${r.path}` === key);
    expect(route, `${key} exists`).toBeDefined();
    const handler = ((await import(route!.file)) as Record<string, Handler>).GET!;
    const bad: string[] = [];
    for (const s of hostileStrings) {
      const params = { id: ids.run!, ...pathTemplates[key]!(s) };
      const res = await call(handler, { method: "GET", path: key.slice(4), params, signed });
      const json = (await res.json().catch(() => undefined)) as { error?: { code?: unknown } } | undefined;
      if (res.status < 400 || res.status >= 500 || typeof json?.error?.code !== "string") bad.push(`${res.status} for ${JSON.stringify(s).slice(0, 40)}`);
    }
    expect(bad).toEqual([]);
  });
});

describe("hostile requests beyond field values", () => {
  const routeOf = async (key: string) => {
    const [method, p] = key.split(" ") as [Method, string];
    const r = listApiRoutes().find((x) => x.path === p);
    expect(r, `${key} exists`).toBeDefined();
    return { method, path: p, handler: ((await import(r!.file)) as Record<string, Handler>)[method]! };
  };
  const errorOf = (json: unknown) => (json as { error?: { code?: string; message?: string; details?: { errors?: { path: string; message: string }[] } } })?.error;

  test("cluster.yaml whose aliases expand too far: a clear 422, not a 500", async () => {
    const { handler } = await routeOf("POST /api/clusters/import");
    const laughs = `a: &a [1,2,3,4,5,6,7,8,9]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n`;
    const res = await call(handler, { method: "POST", path: "/api/clusters/import", signed, body: JSON.stringify({ yaml: laughs, secrets: {} }) });
    expect(res.status).toBe(422);
    expect(errorOf(await res.json())?.details?.errors).toEqual([{ path: "(file)", message: "uses aliases that expand too far (at most 100 alias uses)" }]);
  });

  test("YAML escapes cannot bring NUL or lone surrogates into stored values", async () => {
    const { handler } = await routeOf("POST /api/clusters/import");
    const before = await getDb().cluster.count();
    for (const escape of ["\\0", "\\ud800"]) {
      const yaml = stringify(def((d) => (d.metadata.name = "yaml-escape"))).replace("type: privateKey", `type: privateKey\n      privateKeyFile: "/x${escape}/etc/passwd"`);
      const res = await call(handler, { method: "POST", path: "/api/clusters/import", signed, body: JSON.stringify({ yaml, secrets: {} }) });
      expect(res.status).toBe(422);
    }
    expect(await getDb().cluster.count()).toBe(before);
    for (const c of await getDb().cluster.findMany()) expect(c.definition).not.toMatch(/\\u0000|\\ud[89ab]/i);
  });

  test("a wrong type says what was expected", async () => {
    const { handler } = await routeOf("POST /api/clusters");
    const d = def((x) => ((x.metadata.name = "wrong-type"), ((x.spec.ssh as { port: unknown }).port = "22")));
    const res = await call(handler, { method: "POST", path: "/api/clusters", signed, body: JSON.stringify({ definition: d, secrets: {} }) });
    expect(res.status).toBe(422);
    expect(errorOf(await res.json())?.details?.errors).toContainEqual({ path: "spec.ssh.port", message: "must be a number" });
  });

  test.each(["v1.5.3", "1.5", "v1.29.0"])("a definition naming Kubernetes %s: a clear 422 listing the supported versions, nothing stored", async (version) => {
    const before = await getDb().cluster.count();
    const { handler } = await routeOf("POST /api/clusters");
    const d = def((x) => ((x.metadata.name = "retired-version"), (x.spec.kubernetes.version = version)));
    const res = await call(handler, { method: "POST", path: "/api/clusters", signed, body: JSON.stringify({ definition: d, secrets: { "admin-key": { privateKey: key } } }) });
    expect(res.status).toBe(422);
    const errors = errorOf(await res.json())?.details?.errors ?? [];
    expect(errors.map((e) => e.path)).toEqual(["spec.kubernetes.version"]);
    expect(errors[0]?.message).toMatch(/; supported: v1\.34\.x, v1\.35\.x, v1\.36\.x, v1\.37\.x$/);
    expect(await getDb().cluster.count()).toBe(before);
  });

  test("errors never echo a 1 MB field whole", async () => {
    // Just under the 1 MiB body limit with the rest of the definition.
    const big = "k".repeat(1000 * 1000);
    const { handler } = await routeOf("POST /api/clusters");
    const d = def((x) => ((x.metadata.name = "echo"), (x.spec.hosts[0]!.labels = { [big]: "v" })));
    const cluster = await call(handler, { method: "POST", path: "/api/clusters", signed, body: JSON.stringify({ definition: d, secrets: {} }) });
    expect(cluster.status).toBe(422);
    expect((await cluster.text()).length).toBeLessThan(4_000);
    const users = await routeOf("POST /api/users");
    const user = await call(users.handler, { method: "POST", path: "/api/users", signed, body: JSON.stringify({ username: "echo", role: "support", [big]: 1 }) });
    expect(user.status).toBeGreaterThanOrEqual(400);
    expect((await user.text()).length).toBeLessThan(4_000);
  });

  test("GET /api/clusters/<unknown>/runs is a 404 like the other routes", async () => {
    const { handler } = await routeOf("GET /api/clusters/:id/runs");
    const res = await call(handler, { method: "GET", path: "/api/clusters/cl_AAAAAAAAAAAAAAAA/runs", params: { id: "cl_AAAAAAAAAAAAAAAA" }, signed });
    expect(res.status).toBe(404);
    expect(errorOf(await res.json())?.code).toBe("not_found");
  });

  test.each(["bootdeck_session=%", "bootdeck_session=%E0%A4%A", "__Host-bootdeck_session=%ff"])("a malformed session cookie (%s) is ignored on every route: no 500", async (cookie) => {
    const bad: string[] = [];
    for (const r of listApiRoutes()) {
      const mod = (await import(r.file)) as Record<string, Handler>;
      for (const m of methods) {
        if (typeof mod[m] !== "function") continue;
        const params = Object.fromEntries(r.params.map((p) => [p, "x"]));
        const res = await call(mod[m]!, { method: m, path: r.path, params, headers: { cookie, "x-forwarded-proto": cookie.startsWith("__Host-") ? "https" : "http" }, body: m === "GET" ? undefined : "{}" });
        if (res.status >= 500) bad.push(`${m} ${r.path}: ${res.status}`);
        else if (!r.path.startsWith("/api/auth/") && res.status !== 401) bad.push(`${m} ${r.path}: ${res.status}, not 401`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("a malformed %-escape in a path segment is a 400 with the security headers (proxy.ts)", async () => {
    const { proxy } = await import("../proxy");
    const { NextRequest } = await import("next/server");
    const res = proxy(new NextRequest("http://localhost/api/clusters/%ff"));
    expect(res.status).toBe(400);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });
});

describe("nothing unsanitised is stored where it matters", () => {
  test("user names and display names", async () => {
    for (const u of await getDb().user.findMany()) {
      expect(u.username).toMatch(/^[a-z][a-z0-9._-]{1,31}$/);
      expect(u.displayName).not.toMatch(/[<>\u0000-\u001f\u007f\u200b\u202e]/);
    }
  });

  test("cluster, host and credential names; host addresses", async () => {
    const dns = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
    for (const c of await getDb().cluster.findMany({ include: { hosts: true, credentials: true } })) {
      expect(c.name).toMatch(dns);
      for (const h of c.hosts) {
        expect(h.name).toMatch(dns);
        expect(h.address).toMatch(/^[a-z0-9.:-]+$/i);
        expect(h.address).not.toContain("..");
      }
      for (const cr of c.credentials) expect(cr.name).not.toMatch(/[/\\<>\u0000]|\.\./);
    }
  });
});

describe("rendered inert in the UI", () => {
  test("React escapes a payload in text", () => {
    const html = renderToStaticMarkup(createElement(Forbidden, { role: '<script>alert(1)</script>"><img src=x onerror=alert(1)>', what: "x" }));
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain("&lt;script&gt;");
  });

  test("no dangerouslySetInnerHTML, innerHTML, eval or new Function in the app's code", () => {
    const root = path.resolve(__dirname, "..");
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const f of readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, f.name);
        if (f.isDirectory()) walk(p);
        else if (/\.(tsx?|jsx?)$/.test(f.name) && !/\.test\.tsx?$/.test(f.name)) {
          const t = readFileSync(p, "utf8");
          if (/dangerouslySetInnerHTML|\.innerHTML\s*=|\beval\(|new Function\(/.test(t)) offenders.push(path.relative(root, p));
        }
      }
    };
    for (const d of ["app", "components"]) walk(path.join(root, d));
    expect(offenders).toEqual([]);
  });

  test("CSV exports neutralise spreadsheet formulas", () => {
    const csv = auditCsv([{ id: 1, at: "2026-01-01T00:00:00.000Z", userId: null, username: "=HYPERLINK(\"http://x\")", provider: "local", subject: "=cmd", action: "+cmd", target: "@SUM(A1)", ip: "-1", details: {} }]);
    const row = csv.split("\r\n")[1]!;
    expect(row).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(row).toContain("'+cmd");
    expect(row).toContain("'@SUM(A1)");
  });
});
