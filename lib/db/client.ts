import "server-only";
// One Prisma client per process, kept on globalThis so dev reloads do not open a second one.
// SQLite runs in WAL mode with a busy timeout so the engine and the web handlers can share the file.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "../generated/prisma/client";
import { getEnv } from "../env";

const holder = globalThis as unknown as { bootdeckPrisma?: PrismaClient };

function createClient(): PrismaClient {
  const adapter = new PrismaBetterSQLite3({ url: getEnv().databaseUrl, timeout: 10_000 });
  return new PrismaClient({ adapter });
}

export function getDb(): PrismaClient {
  return (holder.bootdeckPrisma ??= createClient());
}

/** Applies the pragmas the app relies on; called once at start-up after migrations. */
export async function configureDb(): Promise<void> {
  const db = getDb();
  await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await db.$queryRawUnsafe("PRAGMA busy_timeout = 10000");
  await db.$queryRawUnsafe("PRAGMA foreign_keys = ON");
}

export async function disconnectDb(): Promise<void> {
  await holder.bootdeckPrisma?.$disconnect();
  holder.bootdeckPrisma = undefined;
}
