#!/usr/bin/env node
// Compiles the command line (cli/main.ts and everything it imports from cli/, lib/ and lab/) into one
// CommonJS file, build/cli/bootdeck.cjs, with esbuild: no TypeScript is transpiled when `bootdeck` starts.
// npm packages stay outside the bundle (Node loads them from node_modules), but for the pure JavaScript
// ones every render needs (`BUNDLED`), and each command's module is initialised only when that command
// runs (cli/commands/index.ts imports them lazily). cli/start.cjs runs the bundle with V8's code cache. Run by
// `npm ci` (postinstall) and by bin/bootdeck when a source file is newer than the bundle. build/ is
// git-ignored: the bundle is made on each machine, never committed.
import { build } from "esbuild";
import { mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.join(root, "build", "cli");
const outfile = path.join(outdir, "bootdeck.cjs");

/**
 * Compiled into the bundle: loading them from node_modules, file by file, took about 30 ms of a
 * `bootdeck render` (zod's CommonJS entry alone loads every locale). The rest, with native parts
 * (ssh2, better-sqlite3) or files of their own (Prisma's client), stay in node_modules.
 */
const BUNDLED = ["zod", "yaml", "node-forge"];
const external = Object.keys(JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).dependencies)
  .filter((d) => !BUNDLED.includes(d))
  .flatMap((d) => [d, `${d}/*`]);

/** `server-only` throws outside React Server Components; in the command line it marks nothing. */
const serverOnly = {
  name: "server-only",
  setup(b) {
    b.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "empty" }));
    b.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "", loader: "js" }));
  },
};

/**
 * Our sources (run as CommonJS by tsx until now) use __dirname and __filename for their own place in the
 * repository (the lab's scripts, the golden fixtures): in the bundle they would name build/cli. Each
 * use becomes its source file's own directory, computed from the bundle's place (build/cli is always
 * two levels under the repository's root), so a moved checkout still works.
 */
const sourceDirs = {
  name: "source-dirs",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const { readFile } = await import("node:fs/promises");
      let text = await readFile(args.path, "utf8");
      if (!/__dirname|__filename/.test(text)) return { contents: text, loader: "ts" };
      const rel = path.relative(root, args.path).split(path.sep).join("/");
      text = text
        .replace(/(?<![\w'"`$])__dirname(?![\w'"`])/g, `__bootdeckSource(${JSON.stringify(path.posix.dirname(rel))})`)
        .replace(/(?<![\w'"`$])__filename(?![\w'"`])/g, `__bootdeckSource(${JSON.stringify(rel)})`);
      return { contents: text, loader: "ts" };
    });
  },
};

export async function buildCli({ quiet = false } = {}) {
  const started = Date.now();
  // Built in a directory of its own, then renamed into place: a bootdeck starting meanwhile sees the old
  // bundle or the new one, never half of one (and the source map keeps its name).
  const tmpdir = path.join(outdir, `.tmp-${process.pid}`);
  mkdirSync(tmpdir, { recursive: true });
  const tmp = path.join(tmpdir, "bootdeck.cjs");
  await build({
    entryPoints: [path.join(root, "cli", "main.ts")],
    outfile: tmp,
    bundle: true,
    platform: "node",
    target: "node20",
    // cli/start.cjs runs the bundle as a vm.Script with a code cache, and on Node 20 a script compiled
    // from a cache has no loader for import(): "A dynamic import callback was not specified". So
    // import() becomes require(), which loads the ES modules among our packages too (Node ≥ 20.19).
    supported: { "dynamic-import": false },
    format: "cjs",
    external,
    tsconfig: path.join(root, "tsconfig.json"),
    plugins: [serverOnly, sourceDirs],
    // The generated Prisma client finds its own directory through import.meta.url.
    define: { "import.meta.url": "__bootdeckImportMetaUrl" },
    banner: {
      js: [
        "// Built by scripts/build-cli.mjs from cli/main.ts; do not edit. Rebuilt by bin/bootdeck when a source is newer.",
        'const __bootdeckRoot = require("node:path").resolve(__dirname, "..", "..");',
        'const __bootdeckSource = (rel) => require("node:path").join(__bootdeckRoot, rel);',
        'const __bootdeckImportMetaUrl = require("node:url").pathToFileURL(__filename).href;',
      ].join("\n"),
    },
    sourcemap: "linked",
    logLevel: "warning",
    legalComments: "none",
  });
  renameSync(`${tmp}.map`, `${outfile}.map`);
  renameSync(tmp, outfile);
  rmSync(tmpdir, { recursive: true, force: true });
  if (!quiet) console.error(`bootdeck: compiled the command line into ${path.relative(process.cwd(), outfile) || outfile} in ${Date.now() - started} ms`);
  return outfile;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildCli({ quiet: process.argv.includes("--quiet") }).catch((err) => {
    rmSync(path.join(outdir, `.tmp-${process.pid}`), { recursive: true, force: true });
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
