// Starts the compiled command line (build/cli/bootdeck.cjs) with V8's code cache: compiling the 2 MB
// bundle took about 60 ms of every start. The cache is written after a run, so it holds the functions
// that run compiled too, not only the top level (which is why a cache made at compile time, such as the
// v8-compile-cache package makes, saved little). Node 22's module.enableCompileCache does this; Node 20
// has no such switch. The cache's name carries the bundle's inode, size and time, because V8 checks
// only a source's length: a rebuilt bundle (renamed into place, so a new inode) never meets an old cache.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const Module = require("node:module");

const bundle = path.join(__dirname, "..", "build", "cli", "bootdeck.cjs");
// One open file for the name and the text: a bundle renamed into place meanwhile cannot mix them up.
const fd = fs.openSync(bundle, "r");
const st = fs.fstatSync(fd);
const source = fs.readFileSync(fd, "utf8");
fs.closeSync(fd);
const dir = path.dirname(bundle);
const cacheFile = path.join(dir, `bootdeck.${st.ino}-${st.size}-${Math.trunc(st.mtimeMs)}.v8cache`);
let cachedData;
try {
  cachedData = fs.readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData });
if (cachedData === undefined || script.cachedDataRejected) process.once("exit", writeCache);

const mod = new Module(bundle, null);
mod.filename = bundle;
mod.paths = Module._nodeModulePaths(dir);
script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, dir);

/** Best effort: a read-only checkout or a full disk only loses the speed-up. */
function writeCache() {
  try {
    const tmp = `${cacheFile}.${process.pid}`;
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, cacheFile);
    for (const f of fs.readdirSync(dir)) if (f.endsWith(".v8cache") && path.join(dir, f) !== cacheFile) fs.rmSync(path.join(dir, f), { force: true });
  } catch {
    // the next start compiles again
  }
}
