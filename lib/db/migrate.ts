import "server-only";
// Applies the migrations: prisma/migrations with Prisma's JavaScript schema engine for SQLite (offline;
// see README "Development"), prisma/postgres/migrations with migrate-postgres.ts for PostgreSQL.
// Idempotent: an up-to-date database is left as it is.
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { getEnv } from "../env";
import { displayDatabaseUrl, isPostgresUrl } from "./client";
import { migratePostgres } from "./migrate-postgres";

const run = promisify(execFile);

export async function migrateDatabase(): Promise<string> {
  const env = getEnv();
  if (isPostgresUrl(env.databaseUrl)) {
    const applied = await migratePostgres({ url: env.databaseUrl, dir: path.join(env.BOOTDECK_HOME, "prisma", "postgres", "migrations") });
    return applied.length ? `Applied ${applied.length} migration(s): ${applied.join(", ")}\n` : "No pending migrations to apply.\n";
  }
  mkdirSync(env.BOOTDECK_DATA_DIR, { recursive: true, mode: 0o700 });
  const cli = path.join(env.BOOTDECK_HOME, "node_modules", "prisma", "build", "index.js");
  try {
    const { stdout } = await run(process.execPath, [cli, "migrate", "deploy"], {
      cwd: env.BOOTDECK_HOME,
      env: { ...process.env, DATABASE_URL: env.databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" },
      timeout: 120_000,
    });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    const text = e.stderr || e.stdout || e.message;
    // Prisma's JS engine reports a locked SQLite file as a "SocketTimeout" deep in a WASM trace.
    if (/SocketTimeout|database is locked|SQLITE_BUSY/.test(text))
      throw new Error(`Database migration failed: ${env.databaseUrl} is locked by another process (a dashboard or worker still running?). Stop it and run "bootdeck setup" again.`);
    throw new Error(`Database migration failed (${displayDatabaseUrl(env.databaseUrl)}):\n${text}`);
  }
}
