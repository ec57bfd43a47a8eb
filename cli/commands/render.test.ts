import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { exampleDefinition } from "../../lib/cluster/example";

const exec = promisify(execFile);
const bin = path.resolve(__dirname, "../../bin/bootdeck");

async function render(args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await exec(bin, ["render", ...args]);
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
}

const workspaces: string[] = [];
afterAll(() => {
  for (const d of workspaces) rmSync(d, { recursive: true, force: true });
});

function workspace(def = exampleDefinition({ hosts: 4 })): { dir: string; config: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-render-cli-"));
  workspaces.push(dir);
  const config = path.join(dir, "cluster.yaml");
  writeFileSync(config, stringify(def));
  return { dir, config };
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [path.join(dir, e.name), ...walk(path.join(dir, e.name))] : [path.join(dir, e.name)]));
}

// Each case starts the CLI (the compiled bundle, bin/bootdeck) once or twice, and the first start after a
// source edit builds the bundle: generous timeouts for a busy 2-core machine.
describe("bootdeck render", { timeout: 120_000 }, () => {
  it("writes the asset tree with 0600 files and 0700 directories and prints one line per file", async () => {
    const { dir, config } = workspace();
    const out = path.join(dir, "assets");
    const r = await render(["--config", config, "--asset-dir", out]);
    expect(r.code, r.err).toBe(0);
    const entries = walk(out);
    const files = entries.filter((p) => statSync(p).isFile());
    expect(files.length).toBeGreaterThan(60);
    for (const p of entries) expect((statSync(p).mode & 0o777).toString(8), p).toBe(statSync(p).isFile() ? "600" : "700");
    expect((statSync(out).mode & 0o777).toString(8)).toBe("700");
    const lines = r.out.trim().split("\n");
    expect(lines.length).toBe(files.length + 1);
    expect(r.out).toMatch(/^tls\/ca\.crt +cluster CA/m);
    expect(r.out).toContain("ECDSA-P256 keys"); // the default for a definition that names none
    expect(readdirSync(dir).sort()).toEqual(["assets", "cluster.yaml"]); // no temp directory left behind
  });

  it("accepts an empty directory and refuses one with anything in it, leaving it untouched", async () => {
    const { dir, config } = workspace();
    mkdirSync(path.join(dir, "empty"));
    expect((await render(["--config", config, "--asset-dir", path.join(dir, "empty")])).code).toBe(0);
    mkdirSync(path.join(dir, "used"));
    writeFileSync(path.join(dir, "used", "old.txt"), "x");
    const r = await render(["--config", config, "--asset-dir", path.join(dir, "used")]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("is not empty");
    expect(readdirSync(path.join(dir, "used"))).toEqual(["old.txt"]);
  });

  it("prints field problems, exits 1 and writes nothing for a bad definition", async () => {
    const def = exampleDefinition({ hosts: 4 });
    def.spec.network.serviceCidr = "10.2.0.0/24";
    def.spec.hosts = def.spec.hosts.map((h) => ({ ...h, role: "worker" as const }));
    const { dir, config } = workspace(def);
    const r = await render(["--config", config, "--asset-dir", path.join(dir, "assets")]);
    expect(r.code).toBe(1);
    expect(r.out).toContain("error: spec.network.serviceCidr: overlaps the pod CIDR 10.2.0.0/16");
    expect(r.out).toContain("error: spec.hosts: needs at least one master");
    expect(readdirSync(dir)).toEqual(["cluster.yaml"]);
  });

  it("rejects a CA key that does not match the CA certificate", async () => {
    const { dir, config } = workspace();
    await exec("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=x", "-days", "10", "-keyout", path.join(dir, "a.key"), "-out", path.join(dir, "a.crt")]);
    await exec("openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path.join(dir, "b.key")]);
    const r = await render(["--config", config, "--asset-dir", path.join(dir, "assets"), "--ca-cert", path.join(dir, "a.crt"), "--ca-key", path.join(dir, "b.key")]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("does not match");
    expect(readdirSync(dir).sort()).toEqual(["a.crt", "a.key", "b.key", "cluster.yaml"]);
  });

  it("exits 2 on usage errors", async () => {
    expect((await render([])).code).toBe(2);
    // The key algorithm is the definition's (spec.pki.encryptionAlgorithm), not an option.
    expect((await render(["--config", "x", "--asset-dir", "y", "--key-type", "ecdsa"])).code).toBe(2);
  });
});
