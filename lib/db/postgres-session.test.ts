// The database client's sessions carry POSTGRES_SESSION_OPTIONS (the queue's own sessions are shown by
// the lost-machine test in lib/engine/failover.test.ts). Runs only on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempDb, onPostgres, type TempDb } from "../../test/temp-db";
import { getDb } from "./client";

let db: TempDb;
beforeAll(async () => {
  if (onPostgres) db = await createTempDb();
});
afterAll(async () => {
  await db?.cleanup();
});

describe.skipIf(!onPostgres)("PostgreSQL sessions", () => {
  it("ask the server to give up on a silent client within seconds: keepalives after 2 s, every 1 s, 3 unanswered; 5 s for unacknowledged data", async () => {
    const show = async (name: string) => (await getDb().$queryRawUnsafe<Record<string, string>[]>(`SHOW ${name}`))[0]?.[name];
    expect(await show("tcp_keepalives_idle")).toBe("2");
    expect(await show("tcp_keepalives_interval")).toBe("1");
    expect(await show("tcp_keepalives_count")).toBe("3");
    expect(await show("tcp_user_timeout")).toBe("5000");
  });
});
