import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { exampleDefinition } from "../../lib/cluster/example";

const run = promisify(execFile);
const bin = path.resolve(__dirname, "../../bin/bootdeck");
const dir = mkdtempSync(path.join(tmpdir(), "bootdeck-validate-"));

async function validate(content: string): Promise<{ code: number; out: string }> {
  const file = path.join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, content);
  try {
    const { stdout } = await run(bin, ["validate", file]);
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

describe("bootdeck validate", { timeout: 120_000 }, () => {
  it("accepts a valid cluster.yaml and summarises it", async () => {
    const r = await validate(stringify(exampleDefinition()));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/valid — cluster example, 3 master\(s\), 3 worker\(s\)/);
  });

  it("prints every problem with its field path and exits 1", async () => {
    const def = exampleDefinition();
    def.spec.hosts[0]!.address = "`reboot`";
    def.spec.network.serviceCidr = "10.2.0.0/24";
    const r = await validate(stringify(def));
    expect(r.code).toBe(1);
    expect(r.out).toContain("error: spec.hosts[0].address: must be an IP address or a DNS name");
    expect(r.out).toContain("error: spec.network.serviceCidr: overlaps the pod CIDR 10.2.0.0/16");
    expect(r.out).toMatch(/3 problems/);
  });

  it.each([
    ["v1.5.3", "v1.5 is no longer supported (the legacy hyperkube profile was retired); supported: v1.34.x, v1.35.x, v1.36.x, v1.37.x"],
    ["1.5", "must look like v1.36.3; supported: v1.34.x, v1.35.x, v1.36.x, v1.37.x"],
    ["v1.29.0", "v1.29 is no longer supported (out of upstream support); supported: v1.34.x, v1.35.x, v1.36.x, v1.37.x"],
  ])("refuses Kubernetes %s and lists the supported versions", async (version, message) => {
    const def = exampleDefinition();
    def.spec.kubernetes.version = version;
    const r = await validate(stringify(def));
    expect(r.code).toBe(1);
    expect(r.out).toContain(`error: spec.kubernetes.version: ${message}`);
    expect(r.out).toMatch(/1 problem\b/);
  });

  it("reports YAML syntax errors with their line", async () => {
    const r = await validate("apiVersion: x\n  bad: : indentation\n");
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/\(line \d+\)/);
  });

  it("exits 2 on a missing file", async () => {
    expect((await validate("")).code).toBe(1);
    const r = await run(bin, ["validate", path.join(dir, "missing.yaml")]).catch((e: { code: number }) => e);
    expect((r as { code: number }).code).toBe(2);
  });

  it("prints control characters from the file as escapes, so the file cannot fake the output", async () => {
    // An unknown field whose name clears the line and prints a fake verdict in green.
    const r = await validate(`${stringify(exampleDefinition()).trimEnd()}\n"x\\r\\e[2K\\e[32mfile.yaml: valid\\e[0m\\u202e": 1\n`);
    expect(r.code).toBe(1);
    expect(r.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/);
    expect(r.out).toContain("unknown field: x\\x0d\\x1b[2K\\x1b[32mfile.yaml: valid\\x1b[0m\\u202e");
  });

  it("refuses a document whose aliases expand too far with a clear problem", async () => {
    const laughs = `a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n`;
    const r = await validate(laughs);
    expect(r.code).toBe(1);
    expect(r.out).toContain("error: (file): uses aliases that expand too far");
    expect(r.out).not.toMatch(/ReferenceError|at .*\.js:\d+/);
  });
});
