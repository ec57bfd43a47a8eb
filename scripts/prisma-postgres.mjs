#!/usr/bin/env node
// Writes prisma/postgres/schema.prisma from prisma/schema.prisma: the same models, the PostgreSQL
// provider, and a client of its own (lib/generated/prisma-pg). Prisma cannot switch a schema's
// provider at run time, so PostgreSQL gets a generated twin; edit prisma/schema.prisma only, then run
// `npm run db:schema-postgres` (a unit test fails while the twin is out of date).
// `--check` exits 1 when the twin differs from what would be written.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = path.join(root, "prisma", "schema.prisma");
const target = path.join(root, "prisma", "postgres", "schema.prisma");

export function postgresSchema(text) {
  const swaps = [
    [/(datasource db \{[^}]*provider\s*=\s*)"sqlite"/, '$1"postgresql"'],
    [/(generator client \{[^}]*output\s*=\s*)"\.\.\/lib\/generated\/prisma"/, '$1"../../lib/generated/prisma-pg"'],
  ];
  let out = text;
  for (const [re, by] of swaps) {
    if (!re.test(out)) throw new Error(`prisma-postgres: ${source} no longer matches ${re}; update scripts/prisma-postgres.mjs`);
    out = out.replace(re, by);
  }
  return `// GENERATED from prisma/schema.prisma by scripts/prisma-postgres.mjs: do not edit.\n${out}`;
}

const want = postgresSchema(readFileSync(source, "utf8"));
if (process.argv.includes("--check")) {
  let have = "";
  try {
    have = readFileSync(target, "utf8");
  } catch {}
  if (have !== want) {
    console.error("prisma/postgres/schema.prisma is out of date: run npm run db:schema-postgres");
    process.exit(1);
  }
} else {
  writeFileSync(target, want);
  console.log(`wrote ${path.relative(root, target)}`);
}
