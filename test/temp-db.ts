// A throw-away data directory with a migrated SQLite database and a random master key, for tests
// that run lib/ against the real file. Sets the environment lib/env.ts reads, so call it before the
// code under test touches the database; the returned cleanup closes the client and removes the dir.
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { configureDb, disconnectDb } from "../lib/db/client";
import { migrateDatabase } from "../lib/db/migrate";
import { resetEnvCache } from "../lib/env";
import { resetMasterKeyCache } from "../lib/secrets/master-key";

export type TempDb = { dir: string; dbFile: string; masterKey: string; cleanup(): Promise<void> };

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

export async function createTempDb(options: { masterKey?: "env" | "file" } = {}): Promise<TempDb> {
  const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-test-"));
  const dbFile = path.join(dir, "bootdeck.db");
  const masterKey = randomBytes(32).toString("base64");
  await disconnectDb();
  process.env.BOOTDECK_HOME = path.resolve(__dirname, "..");
  process.env.BOOTDECK_DATA_DIR = dir;
  process.env.DATABASE_URL = `file:${dbFile}`;
  if (options.masterKey === "file") {
    delete process.env.BOOTDECK_MASTER_KEY;
    process.env.BOOTDECK_MASTER_KEY_FILE = path.join(dir, "master.key");
  } else {
    process.env.BOOTDECK_MASTER_KEY = masterKey;
    delete process.env.BOOTDECK_MASTER_KEY_FILE;
  }
  resetEnvCache();
  resetMasterKeyCache();
  // Migrating spawns Prisma's CLI (seconds); do it once per test process and copy the result.
  template ??= migrateTemplate();
  copyFileSync(await template, dbFile);
  await configureDb();
  return {
    dir,
    dbFile,
    masterKey,
    async cleanup() {
      await disconnectDb();
      resetMasterKeyCache();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
