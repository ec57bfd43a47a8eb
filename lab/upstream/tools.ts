// The lab's own Go helpers (lab/go), built on first use into the cache, keyed by their source.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../config";
import type { Log } from "./build";
import { UPSTREAM_DIR } from "./build";

const SOURCE = path.join(REPO_ROOT, "lab/go");

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : /\.(go|mod|sum)$/.test(e.name) ? [path.join(dir, e.name)] : [])).sort();
}

/** Path of the built lab-images helper, building it first when its source changed. */
export async function labToolPath(log: Log): Promise<string> {
  const h = createHash("sha256");
  for (const f of sourceFiles(SOURCE)) h.update(path.relative(SOURCE, f)).update(fs.readFileSync(f));
  const out = path.join(UPSTREAM_DIR, `lab-tools-${h.digest("hex").slice(0, 12)}`, "lab-images");
  if (fs.existsSync(out)) return out;
  log("building the lab's image tool (lab/go)…");
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const r = spawnSync("go", ["build", "-trimpath", "-o", `${out}.partial`, "./cmd/lab-images"], { cwd: SOURCE, encoding: "utf8", env: { ...process.env, CGO_ENABLED: "0", GOTOOLCHAIN: "local" } });
  if (r.status !== 0) throw new Error(`building lab/go failed: ${(r.stderr || r.stdout).trim()}`);
  fs.renameSync(`${out}.partial`, out);
  return out;
}
