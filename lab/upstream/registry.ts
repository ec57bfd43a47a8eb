// The lab's image registry: distribution's `registry` (built from its Go module) on the lab bridge
// over TLS with a CA of the lab's own and a user and password, serving the images a lab cluster pulls.
// What an air-gapped site runs; the lab cluster is bootstrapped with spec.images pointing at it.
// Storage is shared by every lab on this machine, so images are pushed once. Test bed only.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { CACHE_DIR } from "../config";
import { ensureComponent, type Log } from "./build";
import { registryComponent } from "./components";
import { labToolPath } from "./tools";

export const REGISTRY_PORT = 5000;
export const REGISTRY_STORAGE = path.join(CACHE_DIR, "registry");
/** The lab registry's user; the password is generated per lab. */
export const REGISTRY_USER = "bootdeck-lab";

export type LabRegistry = { address: string; caFile: string; username: string; password: string };

function openssl(args: string[]): void {
  const r = spawnSync("openssl", args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr.trim()}`);
}

/** A CA and a server certificate for the registry's address, in the lab's directory. */
function registryTls(dir: string, address: string): { ca: string; cert: string; key: string } {
  const ca = path.join(dir, "registry-ca.crt");
  const caKey = path.join(dir, "registry-ca.key");
  const cert = path.join(dir, "registry.crt");
  const key = path.join(dir, "registry.key");
  openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "3650", "-subj", "/CN=bootdeck-lab-registry-ca", "-keyout", caKey, "-out", ca]);
  openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", `/CN=${address}`, "-keyout", key, "-out", `${cert}.csr`]);
  const ext = path.join(dir, "registry.ext");
  fs.writeFileSync(ext, `subjectAltName=IP:${address}\nextendedKeyUsage=serverAuth\n`);
  openssl(["x509", "-req", "-in", `${cert}.csr`, "-CA", ca, "-CAkey", caKey, "-CAcreateserial", "-days", "3650", "-extfile", ext, "-out", cert]);
  return { ca, cert, key };
}

/** Starts the registry for a lab (a detached process); returns how to reach it. */
export async function startRegistry(labDir: string, address: string, log: Log): Promise<LabRegistry> {
  const binary = (await ensureComponent(registryComponent(), log)).binaries.registry?.path;
  if (!binary) throw new Error("the registry build has no registry binary");
  const tls = registryTls(labDir, address);
  const password = spawnSync("openssl", ["rand", "-hex", "16"], { encoding: "utf8" }).stdout.trim();
  const htpasswd = path.join(labDir, "registry.htpasswd");
  const tool = await labToolPath(log);
  const h = spawnSync(tool, ["htpasswd", REGISTRY_USER], { input: password, encoding: "utf8" });
  if (h.status !== 0) throw new Error(`lab-images htpasswd: ${h.stderr.trim()}`);
  fs.writeFileSync(htpasswd, h.stdout, { mode: 0o600 });
  fs.mkdirSync(REGISTRY_STORAGE, { recursive: true });
  const config = path.join(labDir, "registry.yml");
  fs.writeFileSync(
    config,
    [
      "version: 0.1",
      "log: { level: warn, formatter: text }",
      `storage: { filesystem: { rootdirectory: ${REGISTRY_STORAGE} }, delete: { enabled: false } }`,
      `auth: { htpasswd: { realm: bootdeck-lab, path: ${htpasswd} } }`,
      `http: { addr: "${address}:${REGISTRY_PORT}", tls: { certificate: ${tls.cert}, key: ${tls.key} } }`,
      "",
    ].join("\n"),
  );
  const out = fs.openSync(path.join(labDir, "registry.log"), "a");
  const child = spawn(binary, ["serve", config], { detached: true, stdio: ["ignore", out, out] });
  child.unref();
  fs.closeSync(out);
  fs.writeFileSync(path.join(labDir, "registry.pid"), String(child.pid));
  const url = `https://${address}:${REGISTRY_PORT}/v2/`;
  const deadline = Date.now() + 30_000;
  // 401 without credentials is the answer of a registry that is up.
  while (spawnSync("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", tls.ca, "--max-time", "2", url], { encoding: "utf8" }).stdout !== "401") {
    if (Date.now() > deadline) throw new Error(`the lab registry did not answer on ${url} (see ${path.join(labDir, "registry.log")})`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { address: `${address}:${REGISTRY_PORT}`, caFile: tls.ca, username: REGISTRY_USER, password };
}

export function stopRegistry(labDir: string): void {
  const f = path.join(labDir, "registry.pid");
  if (!fs.existsSync(f)) return;
  const pid = Number(fs.readFileSync(f, "utf8"));
  try {
    if (pid > 0 && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("registry")) process.kill(pid, "SIGTERM");
  } catch {
    /* already gone */
  }
}
