import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { HOSTILE_CORPUS } from "./hostile-corpus";
import { quote, QuoteError, shellCommand, shellScript } from "./quote";

describe("quote", () => {
  it.each([
    ["plain", "plain"],
    ["/etc/kubernetes/tls/ca.crt", "/etc/kubernetes/tls/ca.crt"],
    ["", "''"],
    ["a b", "'a b'"],
    ["it's", "'it'\\''s'"],
    ["$(id)", "'$(id)'"],
    ["`id`", "'`id`'"],
    ["a;b", "'a;b'"],
    ["*", "'*'"],
    ["~", "'~'"],
    ["line\nbreak", "'line\nbreak'"],
    ["-rf", "-rf"],
    ["ünï", "'ünï'"],
  ])("quotes %j as %s", (input, expected) => {
    expect(quote(input)).toBe(expected);
  });

  it("refuses NUL with a message that says why and what to do", () => {
    expect(() => quote("a\0b")).toThrow(QuoteError);
    expect(() => quote("a\0b")).toThrow(/NUL byte \(at index 1\).*stdin/);
  });

  it("joins argument arrays and refuses an empty one", () => {
    expect(shellCommand(["rm", "-f", "--", "a file", "x'y"])).toBe("rm -f -- 'a file' 'x'\\''y'");
    expect(() => shellCommand([])).toThrow(QuoteError);
  });

  it("passes script data as positional parameters", () => {
    expect(shellScript('echo "$1"', ["$(id)"])).toEqual(["sh", "-c", 'echo "$1"', "bootdeck", "$(id)"]);
  });

  // The same proof as the integration test, against the local /bin/sh (dash on Debian) and bash.
  for (const shell of ["/bin/sh", "/bin/bash"]) {
    it(`round-trips the hostile corpus through ${shell}`, () => {
      const values = HOSTILE_CORPUS.filter((v) => !v.includes("\0") && v.length < 50_000);
      const out = execFileSync(shell, ["-c", shellCommand(["printf", "%s\\0", ...values])]);
      expect(out.toString("utf8").split("\0").slice(0, -1)).toEqual(values);
    });
  }

  it("round-trips values quoted twice (the wrapper quotes an already-quoted command)", () => {
    const values = HOSTILE_CORPUS.filter((v) => !v.includes("\0") && v.length < 1000);
    const inner = shellCommand(["printf", "%s\\0", ...values]);
    const out = execFileSync("/bin/sh", ["-c", shellCommand(["sh", "-c", inner])]);
    expect(out.toString("utf8").split("\0").slice(0, -1)).toEqual(values);
  });
});
