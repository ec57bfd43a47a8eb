// Builds upstream components with `go build` into a cache keyed by component and version that
// survives between runs (the try script, the tests and CI share it). A cached component is used at
// once; a missing one is built with progress lines and its time. Test bed only.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { CACHE_DIR } from "../config";
import { componentKey, type Component, type GoBinary } from "./components";

export const UPSTREAM_DIR = path.join(CACHE_DIR, "upstream");

export type BuiltBinary = { path: string; sha256: string; size: number };
export type BuiltComponent = {
  id: string;
  version: string;
  dir: string;
  binaries: Record<string, BuiltBinary>;
  /** Build time in seconds when it was built (0 when it came from the cache). */
  seconds: number;
  cached: boolean;
};

type Manifest = { id: string; version: string; go: string; builtAt: string; seconds: number; binaries: Record<string, { sha256: string; size: number }> };

export type Log = (line: string) => void;

const MANIFEST = "manifest.json";

export function componentDir(c: Component): string {
  return path.join(UPSTREAM_DIR, componentKey(c));
}

function readManifest(dir: string): Manifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), "utf8")) as Manifest;
  } catch {
    return undefined;
  }
}

function toBuilt(dir: string, m: Manifest, cached: boolean): BuiltComponent {
  const binaries = Object.fromEntries(Object.entries(m.binaries).map(([n, b]) => [n, { ...b, path: path.join(dir, "bin", n) }]));
  return { id: m.id, version: m.version, dir, binaries, seconds: cached ? 0 : m.seconds, cached };
}

/** The cached build of a component, if there is one with every binary it names (a binary added later rebuilds it). */
export function cachedComponent(c: Component): BuiltComponent | undefined {
  const dir = componentDir(c);
  const m = readManifest(dir);
  const complete = m && c.binaries.every((b) => m.binaries[b.name]) && (!c.pauseFrom || m.binaries.pause);
  return complete ? toBuilt(dir, m, true) : undefined;
}

/** Returns the component's binaries, building them first when they are not cached. */
export async function ensureComponent(c: Component, log: Log): Promise<BuiltComponent> {
  const hit = cachedComponent(c);
  if (hit) return hit;
  return withBuildLock(componentDir(c), async () => cachedComponent(c) ?? (await buildComponent(c, log)));
}

/**
 * Runs `fn` while holding `<dir>.lock`: one build into a place at a time across processes (two tests
 * may ask for the same component). A dead holder's lock is taken over.
 */
export async function withBuildLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, "pid"), String(process.pid));
      break;
    } catch {
      const holder = Number(fs.readFileSync(path.join(lock, "pid"), { encoding: "utf8", flag: "a+" }) || 0);
      if (holder > 0 && !fs.existsSync(`/proc/${holder}`)) {
        fs.rmSync(lock, { recursive: true, force: true });
        continue;
      }
      await new Promise((r) => setTimeout(r, 2_000));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

function goEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  // GOTOOLCHAIN=local: a module asking for a newer Go fails with a clear message instead of a download.
  return { ...process.env, GOFLAGS: "-mod=mod", GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? "local", ...extra };
}

function goVersion(): string {
  const r = spawnSync("go", ["version"], { encoding: "utf8" });
  if (r.error || r.status !== 0) throw new Error("Go is not installed (the lab builds Kubernetes from Go modules): install Go 1.26 at /usr/local/go");
  return r.stdout.trim();
}

/** Kubernetes' go.mod points its staging modules at ./staging; a module that requires it must pin them. */
function stagingReplaces(c: Component, work: string): string[] {
  const k8s = c.modules.find((m) => m.path === "k8s.io/kubernetes");
  if (!k8s) return [];
  const r = spawnSync("go", ["mod", "download", "-json", `k8s.io/kubernetes@${k8s.version}`], { cwd: work, encoding: "utf8", env: goEnv({}) });
  if (r.status !== 0) throw new Error(`go mod download k8s.io/kubernetes@${k8s.version} failed: ${(r.stderr || r.stdout).trim().slice(-800)}`);
  const info = JSON.parse(r.stdout) as { GoMod: string };
  const minor = /^v1\.(\d+)\.(\d+)/.exec(k8s.version);
  if (!minor) throw new Error(`not a Kubernetes version: ${k8s.version}`);
  const staging = `v0.${minor[1]}.${minor[2]}`;
  return fs
    .readFileSync(info.GoMod, "utf8")
    .split("\n")
    .map((l) => /^\s*(k8s\.io\/[a-z0-9-]+)\s+=>\s+\.\/staging\//.exec(l)?.[1])
    .filter((m): m is string => !!m)
    .map((m) => `replace ${m} => ${m} ${staging}`);
}

function writeBuildModule(c: Component, work: string): void {
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const mod = [`module bootdeck.local/lab-build/${c.id}`, "", "go 1.26", "", "require (", ...c.modules.map((m) => `\t${m.path} ${m.version}`), ")", ""];
  fs.writeFileSync(path.join(work, "go.mod"), mod.join("\n"));
  if (c.stagingReplaces) fs.appendFileSync(path.join(work, "go.mod"), `\n${stagingReplaces(c, work).join("\n")}\n`);
  for (const r of c.replaces ?? []) fs.appendFileSync(path.join(work, "go.mod"), `\n// ${r.why}\nreplace ${r.path} => ${r.with ?? r.path} ${r.version}\n`);
  // go mod tidy keeps what some file imports: a build-tagged file names every command.
  const pkgs = [...c.binaries.map((b) => b.pkg)];
  fs.writeFileSync(path.join(work, "tools.go"), `//go:build tools\n\npackage tools\n\nimport (\n${pkgs.map((p) => `\t_ "${p}"`).join("\n")}\n)\n`);
}

function ensureDebianPackages(pkgs: readonly string[], log: Log): void {
  const missing = pkgs.filter((p) => spawnSync("dpkg-query", ["-W", "-f=${Status}", p], { encoding: "utf8" }).stdout !== "install ok installed");
  if (!missing.length) return;
  log(`  installing build dependencies: ${missing.join(" ")}`);
  const r = spawnSync("apt-get", ["install", "-y", "-q", "--no-install-recommends", ...missing], { encoding: "utf8", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  if (r.status !== 0) throw new Error(`apt-get install ${missing.join(" ")} failed: ${(r.stderr || r.stdout).trim().slice(-800)}`);
}

/** Runs a go command, reporting how many packages it compiled every 15 s. */
function runGo(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; label: string; log: Log }): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn("go", args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let packages = 0;
    let tail: string[] = [];
    const feed = (buf: Buffer) => {
      for (const line of buf.toString("utf8").split("\n")) {
        if (!line.trim()) continue;
        if (/^[\w.-]+(\/[\w.~+-]+)*$/.test(line.trim())) packages++;
        else tail = [...tail.slice(-30), line];
      }
    };
    child.stdout.on("data", feed);
    child.stderr.on("data", feed);
    const timer = setInterval(() => opts.log(`  ${opts.label}: ${packages ? `${packages} packages compiled, ` : ""}${Math.round((Date.now() - started) / 1000)} s`), 15_000);
    child.on("error", (e) => {
      clearInterval(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearInterval(timer);
      if (code === 0) resolve();
      else reject(new Error(`${opts.label}: go ${args[0]} failed (exit ${code}):\n${tail.join("\n")}`));
    });
  });
}

function ldflagsOf(b: GoBinary): string {
  // go splits -ldflags on spaces: "-X pkg.var=value" is two words, as it must be.
  return ["-s", "-w", ...(b.ldflags ?? []), ...(b.static ? ["-extldflags", "-static"] : [])].join(" ");
}

async function buildComponent(c: Component, log: Log): Promise<BuiltComponent> {
  const go = goVersion();
  const key = componentKey(c);
  const started = Date.now();
  const work = path.join(UPSTREAM_DIR, ".work", key);
  const out = `${componentDir(c)}.partial`;
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(path.join(out, "bin"), { recursive: true });
  log(`building ${c.id} ${c.version} from Go modules (${c.modules.map((m) => `${m.path}@${m.version}`).join(", ")})…`);
  if (c.debianBuildDeps) ensureDebianPackages(c.debianBuildDeps, log);
  writeBuildModule(c, work);
  await runGo(["mod", "tidy"], { cwd: work, env: goEnv({}), label: `${key} go mod tidy`, log });
  for (const b of c.binaries) {
    const t = Date.now();
    // go test's -v is the test binary's flag, so a test build reports its time only.
    const args = b.test ? ["test", "-c", "-trimpath", "-o", path.join(out, "bin", b.name), "-ldflags", ldflagsOf(b)] : ["build", "-v", "-trimpath", "-o", path.join(out, "bin", b.name), "-ldflags", ldflagsOf(b)];
    if (b.tags?.length) args.push("-tags", b.tags.join(","));
    args.push(b.pkg);
    await runGo(args, { cwd: work, env: goEnv({ CGO_ENABLED: b.cgo ? "1" : "0" }), label: `${key} ${b.name}`, log });
    log(`  ${b.name} built in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  }
  if (c.pauseFrom) buildPause(c, work, out);
  const binaries: Manifest["binaries"] = {};
  for (const name of fs.readdirSync(path.join(out, "bin"))) {
    const data = fs.readFileSync(path.join(out, "bin", name));
    binaries[name] = { sha256: createHash("sha256").update(data).digest("hex"), size: data.length };
  }
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  const manifest: Manifest = { id: c.id, version: c.version, go, builtAt: new Date().toISOString(), seconds, binaries };
  fs.writeFileSync(path.join(out, MANIFEST), JSON.stringify(manifest, null, 2));
  fs.rmSync(componentDir(c), { recursive: true, force: true });
  fs.renameSync(out, componentDir(c));
  log(`${c.id} ${c.version} built in ${seconds} s`);
  return toBuilt(componentDir(c), manifest, false);
}

/** pause is a 100-line C program; upstream compiles it statically with its version compiled in. */
function buildPause(c: Component, work: string, out: string): void {
  const r = spawnSync("go", ["mod", "download", "-json", `k8s.io/kubernetes@${c.pauseFrom}`], { cwd: work, encoding: "utf8", env: goEnv({}) });
  if (r.status !== 0) throw new Error(`go mod download k8s.io/kubernetes@${c.pauseFrom}: ${r.stderr.trim()}`);
  const src = path.join((JSON.parse(r.stdout) as { Dir: string }).Dir, "build/pause/linux/pause.c");
  const cc = spawnSync("gcc", ["-Os", "-Wall", "-Werror", "-static", `-DVERSION=v${c.version}`, "-o", path.join(out, "bin", "pause"), src], { encoding: "utf8" });
  if (cc.status !== 0) throw new Error(`compiling pause: ${(cc.stderr || cc.stdout).trim()}`);
}

/** Bytes used by the cache of built components (what `lab binaries` reports). */
export function cacheSize(): number {
  const r = spawnSync("du", ["-sb", UPSTREAM_DIR], { encoding: "utf8" });
  return Number(r.stdout.split(/\s/)[0] ?? 0) || 0;
}
