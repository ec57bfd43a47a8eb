import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { getDb } from "../db/client";
import { recordAudit } from "./record";

const root = path.resolve(__dirname, "..", "..");
const skip = new Set(["node_modules", ".next", ".git", "generated", ".lab", "data", "scratch"]);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walkable(p) && sourceFiles(p, out);
    else if (/\.(ts|tsx|js|mjs|cjs|sql)$/.test(e.name)) out.push(p);
  }
  return out;
}
const walkable = (p: string) => !p.includes(`${path.sep}node_modules`);

describe("the audit trail is append-only", () => {
  test("no code updates or deletes AuditEvent rows", () => {
    const self = path.relative(root, __filename);
    const offenders: string[] = [];
    const patterns = [/auditEvent\s*\.\s*(update|updateMany|upsert|delete|deleteMany|updateManyAndReturn)\b/i, /\b(update|delete\s+from)\s+"?AuditEvent"?/i];
    for (const file of sourceFiles(root)) {
      const rel = path.relative(root, file);
      if (rel === self || rel.endsWith("_audit_append_only/migration.sql")) continue;
      const text = readFileSync(file, "utf8");
      text.split("\n").forEach((line, i) => {
        if (patterns.some((p) => p.test(line))) offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  describe("and the database refuses changes", () => {
    let db: TempDb;
    beforeAll(async () => {
      db = await createTempDb();
    });
    afterAll(async () => db?.cleanup());

    test("UPDATE and DELETE on AuditEvent abort; INSERT works", async () => {
      await recordAudit({ action: "test.event", username: "tester", details: { n: 1 } });
      const id = (await getDb().auditEvent.findFirstOrThrow()).id;
      const table = "AuditEvent";
      await expect(getDb().$executeRawUnsafe(`UPDATE "${table}" SET action = 'forged' WHERE id = ${id}`)).rejects.toThrow(/append-only/);
      await expect(getDb().$executeRawUnsafe(`DELETE FROM "${table}" WHERE id = ${id}`)).rejects.toThrow(/append-only/);
      expect((await getDb().auditEvent.findFirstOrThrow()).action).toBe("test.event");
    });
  });
});
