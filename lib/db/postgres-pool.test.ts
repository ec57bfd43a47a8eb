// On PostgreSQL the client has 10 connections; a worker's runs write from many steps at once. A
// transaction waits for a free connection (up to 10 s) instead of failing after Prisma's default 2 s.
// Runs only with BOOTDECK_TEST_DATABASE_URL set to a PostgreSQL server (scripts/test.sh does).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempDb, onPostgres, type TempDb } from "../../test/temp-db";
import { getDb } from "./client";

let db: TempDb;
beforeAll(async () => {
  if (onPostgres) db = await createTempDb();
}, 60_000);
afterAll(async () => {
  await db?.cleanup();
});

describe.skipIf(!onPostgres)("the PostgreSQL client", () => {
  it("60 transactions of 400 ms at once over 10 connections all run (the last ones wait about 2.4 s)", { timeout: 30_000 }, async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, () => getDb().$transaction(async (tx) => tx.$executeRawUnsafe("SELECT pg_sleep(0.4)"))),
    );
    expect(results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
  });
});
