import { describe, expect, it } from "vitest";
import { classifyConnectError, isSudoPasswordPrompt, SshError } from "./errors";

const ctx = { host: "master-1", address: "10.0.0.5:22", user: "deploy", timeoutMs: 5000 };
const sysErr = (code: string, message = code) => Object.assign(new Error(message), { code, level: "client-socket" });

describe("classifyConnectError", () => {
  it.each([
    [sysErr("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.5:22"), "refused", true],
    [sysErr("EHOSTUNREACH"), "unreachable", true],
    [sysErr("ENETUNREACH"), "unreachable", true],
    [sysErr("ECONNRESET"), "unreachable", true],
    [Object.assign(new Error("Timed out while waiting for handshake"), { level: "client-timeout" }), "timeout", true],
    [Object.assign(new Error("All configured authentication methods failed"), { level: "client-authentication" }), "auth-failed", false],
  ] as const)("%s → %s (retryable %s)", (err, kind, retryable) => {
    const e = classifyConnectError(err, ctx);
    expect(e.kind).toBe(kind);
    expect(e.retryable).toBe(retryable);
    expect(e.host).toBe("master-1");
    expect(e.message.startsWith("master-1: ")).toBe(true);
  });

  it("reports a changed host key whatever ssh2 said, naming both fingerprints and the re-pin path", () => {
    const e = classifyConnectError(new Error("Host denied (verification failed)"), {
      ...ctx,
      pinnedKey: "SHA256:old",
      offeredKey: "SHA256:new",
    });
    expect(e.detail).toEqual({ kind: "host-key-changed", host: "master-1", pinned: "SHA256:old", offered: "SHA256:new" });
    expect(e.retryable).toBe(false);
    expect(e.message).toContain("Pinned SHA256:old, offered SHA256:new");
    expect(e.message).toContain('"Re-pin host key"');
    expect(e.message).toContain("bootdeck host repin CLUSTER HOST");
  });
});

describe("SshError", () => {
  it("never retries a command timeout, a failed command, sudo or cancellation", () => {
    expect(new SshError({ kind: "timeout", host: "h", phase: "command", afterMs: 1, step: "s" }).retryable).toBe(false);
    expect(new SshError({ kind: "timeout", host: "h", phase: "connect", afterMs: 1 }).retryable).toBe(true);
    expect(new SshError({ kind: "command-failed", host: "h", command: "x", exitCode: 1, stderrTail: [] }).retryable).toBe(false);
    expect(new SshError({ kind: "sudo-needs-password", host: "h", user: "u" }).retryable).toBe(false);
    expect(new SshError({ kind: "cancelled", host: "h" }).retryable).toBe(false);
  });

  it("says what failed, where, and what to try next", () => {
    const e = new SshError({ kind: "command-failed", host: "worker-2", step: "kubelet", command: "systemctl start kubelet", exitCode: 5, stderrTail: ["Unit kubelet.service not found."] });
    expect(e.message).toBe("worker-2: step kubelet failed with exit code 5: systemctl start kubelet\nlast stderr lines:\nUnit kubelet.service not found.");
    const s = new SshError({ kind: "sudo-needs-password", host: "worker-2", user: "ops", step: "prep" });
    expect(s.message).toContain('"ops ALL=(ALL) NOPASSWD:ALL"');
    const k = new SshError({ kind: "command-failed", host: "h", command: "sleep 9", exitCode: null, signal: "KILL", stderrTail: [] });
    expect(k.message).toContain("killed by signal KILL");
  });
});

describe("isSudoPasswordPrompt", () => {
  it("recognises sudo -n refusals only", () => {
    expect(isSudoPasswordPrompt("sudo: a password is required\n")).toBe(true);
    expect(isSudoPasswordPrompt("sudo: unable to resolve host x\nsudo: a password is required\n")).toBe(true);
    expect(isSudoPasswordPrompt("error: a password is required for the database\n")).toBe(false);
  });
});
