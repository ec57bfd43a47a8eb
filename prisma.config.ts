import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";

// Prisma 6 with its JavaScript schema engine: `migrate deploy` runs offline (no engine download).
// DATABASE_URL chooses the database: file:… is SQLite (prisma/schema.prisma, the default),
// postgresql://… is PostgreSQL (prisma/postgres/schema.prisma, generated from the first, with its own
// migrations).
const url = process.env.DATABASE_URL ?? `file:${path.join(__dirname, "data", "bootdeck.db")}`;
process.env.DATABASE_URL = url;
const postgres = /^postgres(ql)?:\/\//.test(url);

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: postgres ? path.join("prisma", "postgres", "schema.prisma") : path.join("prisma", "schema.prisma"),
  adapter: async () => (postgres ? new PrismaPg({ connectionString: url }) : new PrismaBetterSQLite3({ url })),
});
