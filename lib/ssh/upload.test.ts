import { describe, expect, it } from "vitest";
import { QuoteError } from "./quote";
import { checksumLine, needsWrite, normaliseFiles, parseProbe, tempPathFor } from "./upload";

const H = (c: string) => c.repeat(64);

describe("parseProbe", () => {
  it("maps flags, stat lines and NUL-terminated sums back to the files in order", () => {
    const out = Buffer.from(`nyy\n600 root:root\n644 deploy:deploy\n${H("a")}  /etc/b\0\\${H("b")}  /etc/c\\nd\0`);
    expect(parseProbe(out, 3)).toEqual([
      { exists: false },
      { exists: true, mode: "600", owner: "root:root", sha256: H("a") },
      { exists: true, mode: "644", owner: "deploy:deploy", sha256: H("b") },
    ]);
  });

  it("rejects output it does not understand", () => {
    expect(() => parseProbe(Buffer.from("yy\n"), 3)).toThrow(/unexpected upload probe output/);
    expect(() => parseProbe(Buffer.from("y\n600 root:root\n"), 1)).toThrow(/checksums/);
  });
});

describe("planning", () => {
  it("skips a file only when content, mode and owner all match", () => {
    const [f] = normaliseFiles([{ path: "/a", content: "x", mode: 0o644 }]);
    if (!f) throw new Error("no file");
    const same = { exists: true as const, mode: "644", owner: "root:root", sha256: f.sha256 };
    expect(needsWrite(f, same)).toBe(false);
    expect(needsWrite(f, { ...same, mode: "600" })).toBe(true);
    expect(needsWrite(f, { ...same, owner: "deploy:deploy" })).toBe(true);
    expect(needsWrite(f, { ...same, sha256: H("0") })).toBe(true);
    expect(needsWrite(f, { exists: false })).toBe(true);
  });

  it("refuses relative, duplicate or NUL paths and odd owners", () => {
    expect(() => normaliseFiles([{ path: "etc/a", content: "" }])).toThrow(QuoteError);
    expect(() => normaliseFiles([{ path: "/a", content: "" }, { path: "//a", content: "" }])).toThrow(/twice/);
    expect(() => normaliseFiles([{ path: "/a\0", content: "" }])).toThrow(/NUL/);
    expect(() => normaliseFiles([{ path: "/a", content: "", owner: "root" }])).toThrow(/user:group/);
    expect(() => normaliseFiles([{ path: "/a", content: "", owner: "$(id):x" }])).toThrow(/user:group/);
  });

  it("puts temporaries next to their target and escapes odd names for sha256sum -c", () => {
    expect(tempPathFor("/etc/kubernetes/admin.conf", "ab12")).toBe("/etc/kubernetes/.bootdeck-upload-ab12/admin.conf");
    expect(checksumLine(H("c"), "/a b")).toBe(`${H("c")}  /a b`);
    expect(checksumLine(H("c"), "/a\\b\nc")).toBe(`\\${H("c")}  /a\\\\b\\nc`);
  });
});
