import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { call, createActor, signIn, type Handler, type Signed } from "../../test/http-helpers";
import { getDb } from "../db/client";
import * as exportRoute from "../../app/api/audit/export/route";
import * as listRoute from "../../app/api/audit/route";
import { listAuditEvents } from "./query";
import { auditFilterSchema } from "./schemas";

let db: TempDb;
let admin: Signed;
beforeAll(async () => {
  db = await createTempDb();
  admin = await signIn(await createActor("admin", "auditor"));
  const rows = [
    { at: "2026-11-01T10:00:00Z", username: "alice", action: "cluster.create", target: "cl_1" },
    { at: "2026-11-02T10:00:00Z", username: "bob", action: "user.create", target: "usr_1" },
    { at: "2026-11-03T23:59:59Z", username: "alice", action: "user.disable", target: "usr_1" },
    { at: "2026-11-04T00:00:00Z", username: "carol", action: "assets.download", target: "as_1" },
    { at: "2026-11-05T12:00:00Z", username: "=cmd|' /C calc'!A0", action: "auth.login_failed", target: null },
  ];
  for (const r of rows) await getDb().auditEvent.create({ data: { ...r, at: new Date(r.at), details: JSON.stringify({ note: `${r.action} by ${r.username}` }) } });
});
afterAll(async () => db?.cleanup());

const list = (q: Record<string, string>) => listAuditEvents(auditFilterSchema.parse(q));

describe("audit queries", () => {
  test("filter by exact action, by action prefix, by user, by inclusive date range", async () => {
    expect((await list({ action: "user.create" })).events.map((e) => e.username)).toEqual(["bob"]);
    expect((await list({ action: "user." })).events.map((e) => e.action)).toEqual(["user.disable", "user.create"]);
    expect((await list({ user: "alice" })).events.map((e) => e.action)).toEqual(["user.disable", "cluster.create"]);
    expect((await list({ from: "2026-11-02", to: "2026-11-03" })).events.map((e) => e.action)).toEqual(["user.disable", "user.create"]);
    expect((await list({ from: "2026-11-04" })).events.map((e) => e.action).filter((a) => a !== "auth.login")).toEqual(["auth.login_failed", "assets.download"]);
  });

  test("pages newest first with a cursor", async () => {
    const first = await list({ limit: "2", to: "2026-11-30" });
    expect(first.events).toHaveLength(2);
    expect(first.nextBefore).not.toBeNull();
    const second = await list({ limit: "2", to: "2026-11-30", before: String(first.nextBefore) });
    expect(second.events[0]!.id).toBeLessThan(first.events[1]!.id);
  });

  test("GET /api/audit refuses a bad filter with 422", async () => {
    const res = await call(listRoute.GET as Handler, { method: "GET", path: "/api/audit?from=yesterday", signed: admin });
    expect(res.status).toBe(422);
  });

  test("CSV export: header, one line per event, formulas neutralised, and the export itself is audited", async () => {
    const res = await call(exportRoute.GET as Handler, { method: "GET", path: "/api/audit/export?format=csv&from=2026-11-01&to=2026-11-05", signed: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/csv/);
    expect(res.headers.get("content-disposition")).toMatch(/attachment; filename="bootdeck-audit-\d{4}-\d{2}-\d{2}\.csv"/);
    const lines = (await res.text()).trim().split("\r\n");
    expect(lines[0]).toBe("id,at,username,userId,provider,subject,action,target,ip,details");
    expect(lines).toHaveLength(6);
    expect(lines[5]).toContain(`'=cmd|' /C calc'!A0`);
    expect(await getDb().auditEvent.count({ where: { action: "audit.export" } })).toBe(1);
  });

  test("JSON export carries the details objects", async () => {
    const res = await call(exportRoute.GET as Handler, { method: "GET", path: "/api/audit/export?format=json&action=user.", signed: admin });
    const body = (await res.json()) as { events: { action: string; details: { note: string } }[] };
    expect(body.events.map((e) => e.action)).toEqual(["user.create", "user.disable"]);
    expect(body.events[0]!.details.note).toBe("user.create by bob");
  });
});
