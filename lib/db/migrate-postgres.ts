import "server-only";
// Applies prisma/postgres/migrations to a PostgreSQL database. Prisma 6's JavaScript schema engine
// cannot migrate through @prisma/adapter-pg (it fails reading the catalog's `name` columns: "Column
// type 'name' could not be deserialized from the database", an open Prisma bug), and its native engine
// cannot be downloaded here, so this does what `prisma migrate deploy` does: under Prisma's advisory
// lock, each migration not yet recorded in `_prisma_migrations` runs in its own transaction and is
// recorded there with the same columns and checksum (SHA-256 of the file) Prisma writes, so a later
// `prisma migrate deploy` sees the same history. Idempotent; several processes may call it at once.
import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import pg from "pg";

const PRISMA_MIGRATE_LOCK = 72707369; // the advisory lock key Prisma's own migrate takes

export async function migratePostgres({ url, dir }: { url: string; dir: string }): Promise<string[]> {
  const names = readdirSync(dir)
    .filter((n) => statSync(path.join(dir, n)).isDirectory())
    .sort();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_MIGRATE_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const done = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
      `SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`,
    );
    const byName = new Map(done.rows.map((r) => [r.migration_name, r]));
    for (const name of names) {
      const sql = readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      const checksum = createHash("sha256").update(sql).digest("hex");
      const row = byName.get(name);
      if (row?.finished_at) {
        if (row.checksum !== checksum) throw new Error(`migration ${name} was changed after it was applied (checksum differs)`);
        continue;
      }
      if (row) throw new Error(`migration ${name} started earlier and did not finish: resolve it by hand (see _prisma_migrations)`);
      await client.query("BEGIN");
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, now(), 1)`,
          [randomUUID(), checksum, name],
        );
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw new Error(`migration ${name} failed: ${(err as Error).message}`);
      }
      applied.push(name);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_MIGRATE_LOCK]).catch(() => undefined);
    await client.end();
  }
  return applied;
}
