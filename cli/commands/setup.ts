import { chmodSync, existsSync } from "node:fs";
import { configureDb, disconnectDb, displayDatabaseUrl } from "../../lib/db/client";
import { migrateDatabase } from "../../lib/db/migrate";
import { getEnv } from "../../lib/env";
import { ensureMasterKeyFile } from "../../lib/secrets/master-key";
import { countUsers, createUser, generatePassword } from "../../lib/auth/users";
import { ValidationError } from "../../lib/http/errors";
import type { Command } from "./command";

export const setup: Command = {
  async run(argv) {
    if (argv.includes("--help")) {
      console.log(`Usage: bootdeck setup

Idempotent; safe to run before every start.
  - data directory:  $BOOTDECK_DATA_DIR (default ./data)
  - master key:      $BOOTDECK_MASTER_KEY, or a key file ($BOOTDECK_MASTER_KEY_FILE, default data/master.key, mode 0600)
  - first admin:     user "admin"; password from $BOOTDECK_ADMIN_PASSWORD, or generated and printed once`);
      return 0;
    }
    const env = getEnv();
    if (ensureMasterKeyFile()) console.log(`setup: created master key ${env.masterKeyFile} (mode 0600) — back it up; without it stored secrets cannot be read`);
    const dbFile = env.databaseUrl.startsWith("file:") ? env.databaseUrl.replace(/^file:/, "") : null;
    const existed = dbFile === null || existsSync(dbFile);
    const migrated = await migrateDatabase();
    await configureDb();
    // Prisma creates the file with the umask's mode; the data in it is nobody else's business.
    if (dbFile) for (const f of [dbFile, `${dbFile}-wal`, `${dbFile}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
    const state = !existed ? "created and migrated" : /No pending migrations/.test(migrated) ? "is up to date" : "migrated to the current schema";
    console.log(`setup: database ${displayDatabaseUrl(env.databaseUrl)} ${state}`);
    if ((await countUsers()) === 0) {
      const password = env.BOOTDECK_ADMIN_PASSWORD ?? generatePassword();
      try {
        await createUser({ username: "admin", displayName: "Administrator", password, role: "admin" });
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        for (const e of err.errors) console.error(`setup: BOOTDECK_ADMIN_PASSWORD ${e.message}`);
        await disconnectDb();
        return 1;
      }
      console.log(
        env.BOOTDECK_ADMIN_PASSWORD
          ? 'setup: created user "admin" with the password from BOOTDECK_ADMIN_PASSWORD'
          : `setup: created user "admin" with password ${password}\nsetup: this password is shown only once; sign in and keep it safe`,
      );
    }
    await disconnectDb();
    return 0;
  },
};
