import "server-only";
// One Prisma client per process, kept on globalThis so dev reloads do not open a second one.
// SQLite runs in WAL mode with a busy timeout so the engine and the web handlers can share the file.
// The driver adapter is wrapped (sqlite-adapter.ts): queries and transactions take turns on the one
// connection, and a transaction that cannot commit (a full disk) no longer wedges every later one.
import { PrismaClient } from "../generated/prisma/client";
import { getEnv } from "../env";
import { sqliteAdapter } from "./sqlite-adapter";

const holder = globalThis as unknown as { bootdeckPrisma?: PrismaClient };

function createClient(): PrismaClient {
  const adapter = sqliteAdapter({ url: getEnv().databaseUrl, timeout: 10_000 });
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
