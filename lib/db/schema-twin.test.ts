// prisma/postgres/schema.prisma is generated from prisma/schema.prisma: a change to the models that
// was not carried over to the PostgreSQL twin (npm run db:schema-postgres) fails here. On PostgreSQL
// (BOOTDECK_TEST_DATABASE_URL), a database migrated by prisma/postgres/migrations must also have the
// twin's tables, columns, indexes and constraints: a model change without its PostgreSQL migration fails.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createTempDb, onPostgres, testPostgresUrl } from "../../test/temp-db";

const root = path.resolve(__dirname, "../..");

describe("the PostgreSQL schema twin", () => {
  it("is what scripts/prisma-postgres.mjs makes from prisma/schema.prisma", () => {
    let failure = "";
    try {
      execFileSync(process.execPath, [path.join(root, "scripts", "prisma-postgres.mjs"), "--check"], { stdio: "pipe" });
    } catch (err) {
      failure = String((err as { stderr?: Buffer }).stderr ?? err);
    }
    expect(failure).toBe("");
  });

  it.runIf(onPostgres)("is what the PostgreSQL migrations build", { timeout: 120_000 }, async () => {
    const catalog = async (url: string) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        const q = async (sql: string) => (await c.query(sql)).rows.map((r) => Object.values(r).join("|"));
        return {
          columns: await q(`SELECT table_name, column_name, data_type, is_nullable, coalesce(column_default, '') FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' ORDER BY 1, 2`),
          indexes: await q(`SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1, 2`),
          constraints: await q(`SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text <> '_prisma_migrations' ORDER BY 1, 2`),
        };
      } finally {
        await c.end();
      }
    };
    const migrated = await createTempDb();
    const name = `bootdeck_test_${process.pid}_twin_${randomBytes(3).toString("hex")}`;
    const admin = new pg.Client({ connectionString: testPostgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    try {
      const u = new URL(testPostgresUrl!);
      u.pathname = `/${name}`;
      const script = execFileSync(
        process.execPath,
        [path.join(root, "node_modules", "prisma", "build", "index.js"), "migrate", "diff", "--from-empty", "--to-schema-datamodel", "prisma/postgres/schema.prisma", "--script"],
        { cwd: root, env: { ...process.env, DATABASE_URL: u.toString() }, stdio: ["ignore", "pipe", "pipe"] },
      ).toString();
      const fromTwin = new pg.Client({ connectionString: u.toString() });
      await fromTwin.connect();
      await fromTwin.query(script).finally(() => fromTwin.end());
      expect(await catalog(migrated.databaseUrl)).toEqual(await catalog(u.toString()));
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await admin.end();
      await migrated.cleanup();
    }
  });
});
