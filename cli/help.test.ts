// `bootdeck --help` lists every command with its summary in one column, whatever the longest name.
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commands } from "./commands";

describe("bootdeck --help", () => {
  it("names every command and starts every summary in the same column, apart from its name", () => {
    const out = execFileSync(path.join(__dirname, "..", "bin", "bootdeck"), ["--help"], { encoding: "utf8" });
    const rows = out.split("\n").filter((l) => /^ {2}\S/.test(l));
    expect(rows.map((r) => r.trim().split(/\s+/)[0])).toEqual(Object.keys(commands));
    const columns = new Set(rows.map((r) => r.indexOf(commands[r.trim().split(/\s+/)[0]!]!.summary)));
    expect(columns.size).toBe(1);
    for (const r of rows) expect(r).toMatch(/^ {2}\S+ {2,}\S/);
  });
});
