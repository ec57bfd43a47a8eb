import "server-only";
// One Prisma client per process, kept on globalThis so dev reloads do not open a second one.
// DATABASE_URL chooses the database (lib/env.ts): SQLite by default, PostgreSQL for a postgresql:// URL.
// Both clients are generated from the same models (prisma/schema.prisma and its generated PostgreSQL
// twin, prisma/postgres/schema.prisma), so the rest of lib/ uses one type for them: `PrismaClient`.
//
// SQLite runs in WAL mode with a busy timeout so the engine and the web handlers can share the file.
// Its driver adapter is wrapped (sqlite-adapter.ts): queries and transactions take turns on the one
// connection, and a transaction that cannot commit (a full disk) no longer wedges every later one.
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient, type Prisma } from "../generated/prisma/client";
import { PrismaClient as PostgresPrismaClient } from "../generated/prisma-pg/client";
import { getEnv } from "../env";
import { POSTGRES_SESSION_OPTIONS } from "./postgres-session";
import { sqliteAdapter } from "./sqlite-adapter";

export type { PrismaClient };
/** A transaction's client: what a write that may run inside one takes. */
export type Tx = Prisma.TransactionClient;
export type DatabaseKind = "sqlite" | "postgres";

const holder = globalThis as unknown as { bootdeckPrisma?: PrismaClient };

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

/** A database URL fit to print: a PostgreSQL URL's password is left out. */
export function displayDatabaseUrl(url: string): string {
  if (!isPostgresUrl(url)) return url;
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "the PostgreSQL database";
  }
}

/** Which database this process uses. */
export function databaseKind(): DatabaseKind {
  return isPostgresUrl(getEnv().databaseUrl) ? "postgres" : "sqlite";
}

function createClient(): PrismaClient {
  const url = getEnv().databaseUrl;
  if (isPostgresUrl(url)) {
    // The same models under another provider: the generated types are the same shapes, so the
    // PostgreSQL client is used through the SQLite client's type.
    // A worker runs up to 16 runs, each with a step per host at once, over 10 connections: a transaction
    // waits up to 10 s for one (as SQLite's writers wait 10 s for the file), not Prisma's default 2 s,
    // after which a step failed with "Unable to start a transaction in the given time".
    const client = new PostgresPrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 10, options: POSTGRES_SESSION_OPTIONS }), transactionOptions: { maxWait: 10_000 } });
    return client as unknown as PrismaClient;
  }
  // Transactions take the write lock at BEGIN (sqlite-adapter.ts), waiting up to the busy timeout for
  // another process's writer: Prisma must wait as long before it gives up on starting one.
  const adapter = sqliteAdapter({ url, timeout: 10_000 });
  return new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000 } });
}

export function getDb(): PrismaClient {
  return (holder.bootdeckPrisma ??= createClient());
}

/** Applies the pragmas the app relies on (SQLite); called once at start-up after migrations. */
export async function configureDb(): Promise<void> {
  if (databaseKind() !== "sqlite") return;
  const db = getDb();
  await db.$queryRawUnsafe("PRAGMA journal_mode = WAL");
  await db.$queryRawUnsafe("PRAGMA busy_timeout = 10000");
  await db.$queryRawUnsafe("PRAGMA foreign_keys = ON");
}

export async function disconnectDb(): Promise<void> {
  await holder.bootdeckPrisma?.$disconnect();
  holder.bootdeckPrisma = undefined;
}
