import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { decideHostKey, fingerprint } from "./host-key";

describe("fingerprint", () => {
  it("matches what OpenSSH prints for the same key", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bootdeck-fp-"));
    const key = path.join(dir, "k");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", key]);
    const pub = fs.readFileSync(`${key}.pub`, "utf8").split(" ")[1] ?? "";
    const openssh = execFileSync("ssh-keygen", ["-l", "-E", "sha256", "-f", `${key}.pub`]).toString().split(" ")[1];
    expect(fingerprint(Buffer.from(pub, "base64"))).toBe(openssh);
    fs.rmSync(dir, { recursive: true });
  });
});

describe("decideHostKey", () => {
  it("trusts on first use, accepts the pin, refuses anything else", () => {
    expect(decideHostKey({}, "SHA256:abc")).toEqual({ accept: true, firstContact: true });
    expect(decideHostKey({ pinned: "SHA256:abc" }, "SHA256:abc")).toEqual({ accept: true, firstContact: false });
    expect(decideHostKey({ pinned: "SHA256:abc=" }, "SHA256:abc")).toEqual({ accept: true, firstContact: false });
    expect(decideHostKey({ pinned: "SHA256:abc" }, "SHA256:abd")).toEqual({ accept: false, reason: "changed" });
    expect(decideHostKey({ requirePinned: true }, "SHA256:abc")).toEqual({ accept: false, reason: "unpinned" });
  });
});
