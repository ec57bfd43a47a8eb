// A throw-away data directory with a migrated SQLite database and a random master key, for tests
// that run lib/ against the real file. Sets the environment lib/env.ts reads, so call it before the
// code under test touches the database; the returned cleanup closes the client and removes the dir.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { configureDb, disconnectDb } from "../lib/db/client";
import { migrateDatabase } from "../lib/db/migrate";
import { resetEnvCache } from "../lib/env";
import { resetMasterKeyCache } from "../lib/secrets/master-key";

export type TempDb = { dir: string; dbFile: string; masterKey: string; cleanup(): Promise<void> };

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
  await migrateDatabase();
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
