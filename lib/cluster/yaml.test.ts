import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { exampleDefinition } from "./example";
import { parseClusterYaml, toClusterYaml } from "./yaml";


describe("parseClusterYaml", () => {
  it("refuses aliases that expand past the cap with a problem, not a throw", () => {
    const laughs = `a: &a [1,2,3,4,5,6,7,8,9]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n`;
    const r = parseClusterYaml(laughs);
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.errors).toEqual([{ path: "(file)", message: "uses aliases that expand too far (at most 100 alias uses)" }]);
  });

  it("applies the JSON bodies' text rules to YAML escapes: no NUL, no lone surrogate", () => {
    const base = exampleDefinition();
    expect(parseClusterYaml(stringify(base)).ok).toBe(true);
    const nul = parseClusterYaml(stringify(base).replace("name: example", 'name: "exa\\0mple"'));
    expect(nul.ok ? [] : nul.errors).toEqual([{ path: "(file)", message: "contains a NUL character" }]);
    const surrogate = parseClusterYaml(stringify(base).replace("name: example", 'name: "exa\\ud800mple"'));
    expect(surrogate.ok ? [] : surrogate.errors).toEqual([{ path: "(file)", message: "contains text that is not valid Unicode (a lone surrogate)" }]);
    // In a field the schema does not otherwise check (a key file's path), where it used to be stored.
    const file = parseClusterYaml(stringify(base).replace("type: privateKey", 'type: privateKey\n      privateKeyFile: "/x\\0/etc/passwd"'));
    expect(file.ok).toBe(false);
  });

  it("says what type a field expected instead of calling it missing", () => {
    const r = parseClusterYaml(stringify(exampleDefinition()).replace("port: 22", 'port: "22"'));
    expect(r.ok ? [] : r.errors).toEqual([{ path: "spec.ssh.port", message: "must be a number" }]);
    const def = exampleDefinition();
    delete (def.spec.hosts[0] as { address?: string }).address;
    const missing = parseClusterYaml(stringify(def));
    expect(missing.ok ? [] : missing.errors).toContainEqual({ path: "spec.hosts[0].address", message: "is required" });
  });

  it("says a document is nested too deeply instead of passing on the parser's stack overflow", () => {
    for (const text of [`a: ${"[".repeat(5000)}${"]".repeat(5000)}`, `a: ${"{x: ".repeat(5000)}1${"}".repeat(5000)}`, Array.from({ length: 1000 }, (_, i) => `${" ".repeat(i)}- `).join("\n")]) {
      const r = parseClusterYaml(text);
      expect(r.ok).toBe(false);
      const errors = r.ok ? [] : r.errors;
      expect(errors).toHaveLength(1);
      expect(errors[0]?.message).toBe("nests lists or maps too deeply to be read: a cluster definition is a few levels deep (spec → hosts → a host → its labels)");
      expect(JSON.stringify(errors)).not.toContain("call stack");
    }
  });

  it("round-trips an exported definition", () => {
    const r = parseClusterYaml(toClusterYaml(exampleDefinition() as Parameters<typeof toClusterYaml>[0]));
    expect(r.ok).toBe(true);
  });
});
