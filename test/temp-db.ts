// A throw-away data directory with a migrated database and a random master key, for tests that run
// lib/ against a real database. Sets the environment lib/env.ts reads, so call it before the code under
// test touches the database; the returned cleanup closes the client and removes the dir.
//
// The database is a SQLite file, or, when BOOTDECK_TEST_DATABASE_URL names a PostgreSQL server
// (postgresql://bootdeck:bootdeck@127.0.0.1:5432/bootdeck, see scripts/postgres.sh), a database of
// its own there, created from a migrated template and dropped by the cleanup.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { configureDb, disconnectDb, isPostgresUrl } from "../lib/db/client";
import { migrateDatabase } from "../lib/db/migrate";
import { resetEnvCache } from "../lib/env";
import { resetMasterKeyCache } from "../lib/secrets/master-key";
import { processGone } from "../lib/process-gone";

export type TempDb = { dir: string; dbFile: string; databaseUrl: string; masterKey: string; cleanup(): Promise<void> };

/** The PostgreSQL server the tests use, if any. */
export const testPostgresUrl = (() => {
  const url = process.env.BOOTDECK_TEST_DATABASE_URL;
  return url && isPostgresUrl(url) ? url : undefined;
})();
export const onPostgres = testPostgresUrl !== undefined;

let template: Promise<string> | undefined;

async function migrateTemplate(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-template-"));
  const file = path.join(dir, "template.db");
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = `file:${file}`;
  resetEnvCache();
  try {
    await migrateDatabase();
  } finally {
    process.env.DATABASE_URL = saved;
    resetEnvCache();
  }
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return file;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: testPostgresUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * A migrated template database for this test process, dropped when the process exits. Test runners
 * may end their workers without an exit event, so the databases of test processes that are gone are
 * dropped here too.
 */
async function migratePostgresTemplate(): Promise<string> {
  await admin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname ~ '^bootdeck_(tpl|test)_[0-9]+_'`);
    for (const { datname } of rows) if (processGone(Number(datname.split("_")[2]))) await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => undefined);
  });
  const name = `bootdeck_tpl_${process.pid}_${randomBytes(3).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = withDatabase(testPostgresUrl!, name);
  resetEnvCache();
  try {
    await migrateDatabase();
  } finally {
    process.env.DATABASE_URL = saved;
    resetEnvCache();
  }
  process.once("exit", () => {
    try {
      execFileSync("psql", [testPostgresUrl!, "-qc", `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`], { stdio: "ignore", timeout: 10_000 });
    } catch {
      /* the server went away first */
    }
  });
  return name;
}

export async function createTempDb(options: { masterKey?: "env" | "file" } = {}): Promise<TempDb> {
  const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-test-"));
  const dbFile = path.join(dir, "bootdeck.db");
  const masterKey = randomBytes(32).toString("base64");
  await disconnectDb();
  process.env.BOOTDECK_HOME = path.resolve(__dirname, "..");
  process.env.BOOTDECK_DATA_DIR = dir;
  if (options.masterKey === "file") {
    delete process.env.BOOTDECK_MASTER_KEY;
    process.env.BOOTDECK_MASTER_KEY_FILE = path.join(dir, "master.key");
  } else {
    process.env.BOOTDECK_MASTER_KEY = masterKey;
    delete process.env.BOOTDECK_MASTER_KEY_FILE;
  }
  let dropDatabase: (() => Promise<void>) | undefined;
  if (testPostgresUrl) {
    // Migrating spawns nothing here, but it is still done once per test process: CREATE DATABASE …
    // TEMPLATE copies the migrated one in a fraction of a second.
    template ??= migratePostgresTemplate();
    const tpl = await template;
    const name = `bootdeck_test_${process.pid}_${randomBytes(4).toString("hex")}`;
    await admin((c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${tpl}"`));
    process.env.DATABASE_URL = withDatabase(testPostgresUrl, name);
    dropDatabase = () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined);
  } else {
    process.env.DATABASE_URL = `file:${dbFile}`;
    // Migrating spawns Prisma's CLI (seconds); do it once per test process and copy the result.
    template ??= migrateTemplate();
    copyFileSync(await template, dbFile);
  }
  const databaseUrl = process.env.DATABASE_URL;
  resetEnvCache();
  resetMasterKeyCache();
  await configureDb();
  return {
    dir,
    dbFile,
    databaseUrl,
    masterKey,
    async cleanup() {
      await disconnectDb();
      resetMasterKeyCache();
      await dropDatabase?.();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
