// prisma/postgres/schema.prisma is generated from prisma/schema.prisma: a change to the models that
// was not carried over to the PostgreSQL twin (npm run db:schema-postgres) fails here.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

describe("the PostgreSQL schema twin", () => {
  it("is what scripts/prisma-postgres.mjs makes from prisma/schema.prisma", () => {
    const root = path.resolve(__dirname, "../..");
    let failure = "";
    try {
      execFileSync(process.execPath, [path.join(root, "scripts", "prisma-postgres.mjs"), "--check"], { stdio: "pipe" });
    } catch (err) {
      failure = String((err as { stderr?: Buffer }).stderr ?? err);
    }
    expect(failure).toBe("");
  });
});
