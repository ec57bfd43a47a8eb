// The database connection never wedges and never loses a write to someone else's rollback: a
// transaction whose COMMIT fails (here a deferred foreign-key violation; a full disk does the same)
// leaves the next transaction free to run, and a plain write made while transactions are open and
// queued waits for them instead of landing inside one and being rolled back with it. A transaction that
// reads, then writes, is not refused because another process wrote in between.
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempDb, onPostgres, type TempDb } from "../../test/temp-db";
import { getDb } from "./client";

let db: TempDb;
beforeAll(async () => {
  db = await createTempDb();
});
afterAll(async () => db?.cleanup());

const within = <T>(ms: number, p: Promise<T>): Promise<T | "hung"> => Promise.race([p, new Promise<"hung">((r) => setTimeout(() => r("hung"), ms))]);

// The wrapper around SQLite's one connection (sqlite-adapter.ts); PostgreSQL has a pool of its own.
describe.skipIf(onPostgres)("the SQLite connection", () => {
  it("runs the next transaction after one whose COMMIT failed", async () => {
    const failing = getDb().$transaction(async (tx) => {
      await tx.$executeRawUnsafe("PRAGMA defer_foreign_keys = ON");
      // A step of a run that does not exist: only checked at COMMIT, which fails.
      await tx.$executeRawUnsafe(`INSERT INTO "Step" ("id", "runId", "phase", "key", "ordinal", "title") VALUES ('step_orphan', 'run_missing', 'p', 'k', 0, 't')`);
    });
    await expect(failing).rejects.toThrow();
    const next = getDb().$transaction(async (tx) => tx.auditEvent.create({ data: { action: "after.failed.commit" } }));
    expect(await within(5_000, next)).not.toBe("hung");
    expect(await getDb().step.findUnique({ where: { id: "step_orphan" } })).toBeNull();
    expect(await getDb().auditEvent.count({ where: { action: "after.failed.commit" } })).toBe(1);
  });

  it("keeps a plain write made while another transaction is open, when that transaction rolls back", async () => {
    // A raw single statement (Prisma sends it as is, outside any transaction of its own).
    const user = await getDb().user.create({ data: { id: "usr_plainwrite00000", username: "plain", displayName: "before", passwordHash: "x" } });
    let inside!: () => void;
    const opened = new Promise<void>((r) => (inside = r));
    let letGo!: () => void;
    const gate = new Promise<void>((r) => (letGo = r));
    const rolledBack = getDb().$transaction(async (tx) => {
      await tx.auditEvent.create({ data: { action: "inside.rolled.back" } });
      inside();
      await gate;
      throw new Error("changed my mind");
    });
    await opened;
    // Others queue behind it, each of them rolled back in the end too.
    const queued = Array.from({ length: 5 }, (_, i) =>
      getDb().$transaction(async (tx) => {
        await tx.auditEvent.create({ data: { action: `queued.${i}` } });
        await new Promise((r) => setTimeout(r, 20));
        throw new Error("queued one changed its mind");
      }).catch(() => undefined),
    );
    const plain = getDb().$executeRawUnsafe(`UPDATE "User" SET "displayName" = 'plain.write' WHERE "id" = ?`, user.id);
    setTimeout(letGo, 200);
    await expect(rolledBack).rejects.toThrow("changed my mind");
    await plain;
    await Promise.all(queued);
    expect((await getDb().user.findUniqueOrThrow({ where: { id: user.id } })).displayName).toBe("plain.write");
    expect(await getDb().auditEvent.count({ where: { action: "inside.rolled.back" } })).toBe(0);
  });

  it("keeps a transaction that reads, then writes, whole when another process writes meanwhile", async () => {
    // Another process on the same file (the CLI, a worker): it must wait for the transaction, not slip in.
    const other = new Database(db.dbFile, { timeout: 0 });
    const otherInsert = () => other.prepare(`INSERT INTO "AuditEvent" ("action", "at") VALUES ('other.process', 0)`).run();
    try {
      let otherWrite: string | undefined;
      await getDb().$transaction(async (tx) => {
        await tx.auditEvent.count();
        try {
          otherInsert();
          otherWrite = "written";
        } catch (err) {
          otherWrite = (err as { code?: string }).code;
        }
        await tx.auditEvent.create({ data: { action: "read.then.write" } });
      });
      expect(otherWrite, "the other process found the file locked (it would wait its busy timeout)").toBe("SQLITE_BUSY");
      expect(await getDb().auditEvent.count({ where: { action: "read.then.write" } })).toBe(1);
      otherInsert();
      expect(await getDb().auditEvent.count({ where: { action: "other.process" } })).toBe(1);
    } finally {
      other.close();
    }
  });
});
