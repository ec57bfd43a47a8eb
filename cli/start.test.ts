// cli/start.cjs runs the compiled command line with V8's code cache. V8 checks only a source's length
// against a cache, so the cache must never outlive the bundle it was made from.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A checkout of just the starter and a bundle that prints its text. */
function checkout(text: string): { run: (...args: string[]) => string; build: (text: string) => void; caches: () => string[] } {
  root = mkdtempSync(path.join(tmpdir(), "bootdeck-start-"));
  mkdirSync(path.join(root, "cli"));
  mkdirSync(path.join(root, "build", "cli"), { recursive: true });
  copyFileSync(path.join(__dirname, "start.cjs"), path.join(root, "cli", "start.cjs"));
  const out = path.join(root, "build", "cli");
  // As scripts/build-cli.mjs does: written beside, then renamed into place.
  const build = (t: string) => {
    writeFileSync(path.join(out, "next.cjs"), `console.log(${JSON.stringify(t)}, process.argv.slice(2).join(" "), require("node:path").basename(__filename));\n`);
    renameSync(path.join(out, "next.cjs"), path.join(out, "bootdeck.cjs"));
  };
  build(text);
  return {
    run: (...args) => execFileSync("node", [path.join(root, "cli", "start.cjs"), ...args], { encoding: "utf8" }).trim(),
    build,
    caches: () => readdirSync(out).filter((f) => f.endsWith(".v8cache")),
  };
}

describe("the command line's starter", () => {
  it("runs the bundle with its arguments and writes a code cache once, which later starts use", () => {
    const c = checkout("first");
    expect(c.run("render", "--help")).toBe("first render --help bootdeck.cjs");
    const [cache] = c.caches();
    expect(cache).toMatch(/^bootdeck\.\d+-\d+-\d+\.v8cache$/);
    const written = statSync(path.join(root, "build", "cli", cache!)).mtimeMs;
    expect(c.run("again")).toBe("first again bootdeck.cjs");
    // Accepted, so not written again.
    expect(c.caches()).toEqual([cache]);
    expect(statSync(path.join(root, "build", "cli", cache!)).mtimeMs).toBe(written);
  });

  it("never runs a cache of an earlier bundle, even one of the same length, and removes it", () => {
    const c = checkout("older");
    c.run();
    const [old] = c.caches();
    c.build("newer"); // the same length as "older"
    expect(c.run("x")).toBe("newer x bootdeck.cjs");
    expect(c.caches()).toHaveLength(1);
    expect(c.caches()).not.toContain(old);
  });
});

describe("the real bundle started with its code cache", { timeout: 120_000 }, () => {
  // A script compiled from V8's cache has no loader for import() on Node 20; the bundle loads Prisma's
  // query compiler, an ES module, on its first query.
  it("still loads the ES modules it needs (a database query through Prisma), start after start", () => {
    root = mkdtempSync(path.join(tmpdir(), "bootdeck-start-real-"));
    const env = { ...process.env, BOOTDECK_DATA_DIR: root, DATABASE_URL: `file:${root}/bootdeck.db`, BOOTDECK_MASTER_KEY: randomBytes(32).toString("base64"), BOOTDECK_ADMIN_PASSWORD: "start-test-admin-password" };
    const bootdeck = (...args: string[]) => execFileSync(path.resolve(__dirname, "../bin/bootdeck"), args, { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    bootdeck("setup");
    // At least these two start from the cache, whichever start wrote it.
    expect(bootdeck("user", "list")).toMatch(/^admin\s+admin\s/m);
    expect(bootdeck("user", "list")).toMatch(/^admin\s+admin\s/m);
  });
});
