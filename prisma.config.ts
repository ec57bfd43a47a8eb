import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

// Prisma 6 with its JavaScript schema engine: `migrate deploy` runs offline (no engine download).
const url = process.env.DATABASE_URL ?? `file:${path.join(__dirname, "data", "bootdeck.db")}`;
process.env.DATABASE_URL = url;

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: path.join("prisma", "schema.prisma"),
  adapter: async () => new PrismaBetterSQLite3({ url }),
});
