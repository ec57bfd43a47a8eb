// The executor against real OpenSSH on lab hosts (see docs/lab.md). Run as root:
//   npx vitest run --project integration
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { labCut, labHeal, labRekey, labStartSshd, labStopSshd } from "../../lab/lab";
import type { LabState } from "../../lab/state";
import { labState, labTarget } from "../../test/lab-hosts";
import { waitFor } from "../../test/wait";
import { SshError } from "./errors";
import { Executor } from "./executor";
import { Redactor } from "./redact";
import type { OutputLine } from "./types";

let state: LabState;
let lines: OutputLine[];
let ex: Executor;

beforeAll(() => {
  state = labState();
});
afterEach(async () => {
  await ex?.close();
});

function newExecutor(opts: ConstructorParameters<typeof Executor>[0] = {}): Executor {
  lines = [];
  ex = new Executor({ sink: (l) => lines.push(l), ...opts });
  return ex;
}

async function failure(p: Promise<unknown>): Promise<SshError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SshError);
  return err as SshError;
}

describe("run and stream", () => {
  it("streams stdout and stderr line by line with host and step, redacting registered secrets", async () => {
    const redactor = new Redactor().add("s3cr3t-value-123");
    newExecutor({ redactor });
    const host = labTarget(state, 0);
    const r = await ex.run(host, ["sh", "-c", "printf 'one\\ntwo\\n'; echo 'err s3cr3t-value-123' >&2; printf 'no-newline'"], { step: "st-1" });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString()).toBe("one\ntwo\nno-newline");
    expect(lines.filter((l) => l.stream === "stdout").map((l) => l.line)).toEqual(["one", "two", "no-newline"]);
    expect(lines.find((l) => l.stream === "stderr")).toEqual({ host: "host-1", step: "st-1", stream: "stderr", line: "err [REDACTED]" });
  });

  it("reuses one connection per host across steps", async () => {
    newExecutor();
    const host = labTarget(state, 0);
    const ports = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const r = await ex.run(host, ["sh", "-c", 'echo "$SSH_CLIENT"'], { step: `s${i}` });
      ports.add(r.stdout.toString().split(" ")[1] ?? "");
    }
    expect(ports.size).toBe(1);
    expect(ex.connectionCount).toBe(1);
  });

  it("reports a failed command with its exit code and last stderr lines, without retrying it", async () => {
    newExecutor();
    const host = labTarget(state, 0);
    const marker = `/tmp/bootdeck-fail-count-${Date.now()}`;
    const err = await failure(ex.run(host, ["sh", "-c", `echo x >> ${marker}; echo first >&2; echo 'last words' >&2; exit 7`], { step: "boom" }));
    expect(err.detail).toMatchObject({ kind: "command-failed", host: "host-1", step: "boom", exitCode: 7, stderrTail: ["first", "last words"] });
    expect(err.retryable).toBe(false);
    expect(err.message).toContain("exit code 7");
    const count = await ex.run(host, ["wc", "-l", marker]);
    expect(count.stdout.toString().trim().split(" ")[0]).toBe("1");
  });
});

describe("authentication and sudo", () => {
  it("runs through sudo -n as the unprivileged user", async () => {
    newExecutor();
    const r = await ex.run(labTarget(state, 1, state.users.sudo), ["sh", "-c", 'id -u; echo "$SUDO_USER"']);
    expect(r.stdout.toString()).toBe(`0\n${state.users.sudo}\n`);
  });

  it("fails clearly when sudo wants a password", async () => {
    newExecutor();
    const err = await failure(ex.run(labTarget(state, 1, state.users.sudoWithPassword), ["true"], { step: "needs-pw" }));
    expect(err.kind).toBe("sudo-needs-password");
    expect(err.message).toContain("NOPASSWD");
    expect(err.message).toContain(state.users.sudoWithPassword);
    expect(err.retryable).toBe(false);
  });

  it("authenticates with a password", async () => {
    newExecutor();
    const host = { ...labTarget(state, 1), auth: { kind: "password" as const, password: state.password } };
    const r = await ex.run(host, ["hostname"]);
    expect(r.stdout.toString().trim()).toBe("host-2");
  });

  it("authenticates with a passphrase-protected key, and redacts the passphrase", async () => {
    newExecutor();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bootdeck-key-"));
    const keyPath = path.join(dir, "id");
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "correct horse battery", "-f", keyPath]);
    const pub = fs.readFileSync(`${keyPath}.pub`, "utf8");
    const root = labTarget(state, 1);
    const existing = (await ex.run(root, ["cat", "/home/deploy/.ssh/authorized_keys"])).stdout.toString();
    await ex.upload(root, [{ path: "/home/deploy/.ssh/authorized_keys", content: existing + pub, mode: 0o600, owner: "deploy:deploy" }]);
    const deploy = {
      ...labTarget(state, 1, "deploy"),
      auth: { kind: "key" as const, privateKey: fs.readFileSync(keyPath), passphrase: "correct horse battery" },
    };
    const r = await ex.run(deploy, ["sh", "-c", "echo 'pass: correct horse battery'"], { step: "pp" });
    expect(r.stdout.toString()).toContain("correct horse battery"); // raw data for the caller
    expect(lines.find((l) => l.step === "pp")?.line).toBe("pass: [REDACTED]");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("authenticates through ssh-agent", async () => {
    newExecutor();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bootdeck-agent-"));
    const sock = path.join(dir, "agent.sock");
    const out = execFileSync("ssh-agent", ["-s", "-a", sock]).toString();
    const pid = Number(/SSH_AGENT_PID=(\d+)/.exec(out)?.[1]);
    try {
      execFileSync("ssh-add", ["-q", state.adminKeyPath], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: "ignore" });
      const host = { ...labTarget(state, 1, state.users.sudo), auth: { kind: "agent" as const, socket: sock } };
      const r = await ex.run(host, ["id", "-u"]);
      expect(r.stdout.toString()).toBe("0\n");
    } finally {
      if (pid > 0) process.kill(pid);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses a wrong key as auth-failed without retrying", async () => {
    newExecutor({ retry: { attempts: 3, baseMs: 2_000 } });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bootdeck-key-"));
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path.join(dir, "id")]);
    const host = { ...labTarget(state, 1), auth: { kind: "key" as const, privateKey: fs.readFileSync(path.join(dir, "id")) } };
    const t0 = Date.now();
    const err = await failure(ex.run(host, ["true"]));
    expect(err.kind).toBe("auth-failed");
    expect(err.retryable).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2_000); // no backoff sleep happened
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("host keys", () => {
  it("records the fingerprint on first contact (trust on first use)", async () => {
    newExecutor();
    const seen: string[] = [];
    const host = { ...labTarget(state, 2), hostKey: { onFirstContact: (fp: string) => void seen.push(fp) } };
    await ex.run(host, ["true"]);
    expect(seen).toEqual([state.hosts[2]?.hostKeyFingerprint]);
  });

  it("refuses a re-keyed host, naming both fingerprints and how to re-pin", async () => {
    newExecutor({ retry: { attempts: 3, baseMs: 2_000 } });
    const pinned = state.hosts[3]?.hostKeyFingerprint ?? "";
    const offered = await labRekey(state.name, "host-4");
    state = labState();
    expect(offered).not.toBe(pinned);
    const host = { ...labTarget(state, 3), hostKey: { pinned } };
    const t0 = Date.now();
    const err = await failure(ex.run(host, ["true"]));
    expect(err.detail).toEqual({ kind: "host-key-changed", host: "host-4", pinned, offered });
    expect(err.message).toContain(pinned);
    expect(err.message).toContain(offered);
    expect(err.message).toContain("bootdeck host repin");
    expect(err.retryable).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2_000);
    // The re-pinned key works.
    const ok = await ex.run({ ...host, hostKey: { pinned: offered } }, ["hostname"]);
    expect(ok.stdout.toString().trim()).toBe("host-4");
  });
});

describe("bastion", () => {
  it("reaches a host through another lab host as jump host", async () => {
    newExecutor();
    const bastion = labTarget(state, 0);
    const target = { ...labTarget(state, 2), bastion };
    const r = await ex.run(target, ["sh", "-c", 'hostname; echo "$SSH_CLIENT"']);
    const [hostname, client] = r.stdout.toString().split("\n");
    expect(hostname).toBe("host-3");
    // sshd on host-3 sees the connection coming from host-1, not from the machine running the executor.
    expect(client?.split(" ")[0]).toBe(state.hosts[0]?.address);
  });
});

describe("faults", () => {
  afterAll(async () => {
    labHeal(state.name, "host-4");
    await labStartSshd(state.name, "host-3").catch(() => undefined);
  });

  it("a cut host fails with unreachable/timeout within its deadline while the others finish", async () => {
    newExecutor({ connectTimeoutMs: 1_500, retry: { attempts: 2, baseMs: 200 } });
    labCut(state.name, "host-4");
    const hosts = [0, 1, 2, 3].map((i) => labTarget(state, i, "root", { hostKey: {} }));
    const t0 = Date.now();
    const results = await ex.forEachHost(hosts, async (h) => {
      const r = await ex.run(h, ["hostname"], { timeoutMs: 5_000 });
      return { out: r.stdout.toString().trim(), ms: Date.now() - t0 };
    });
    const elapsed = Date.now() - t0;
    expect(results.slice(0, 3).map((r) => (r.ok ? r.value.out : "failed"))).toEqual(["host-1", "host-2", "host-3"]);
    // The healthy hosts do not wait for the cut one: each is done before the cut host's attempts run out.
    for (const r of results.slice(0, 3)) expect(r.ok && r.value.ms).toBeLessThan(elapsed);
    const cut = results[3];
    expect(cut?.ok).toBe(false);
    const err = cut && !cut.ok ? (cut.error as SshError) : undefined;
    expect(["unreachable", "timeout"]).toContain(err?.kind);
    expect(err?.host).toBe("host-4");
    expect(err?.retryable).toBe(true);
    // Two attempts of 1.5 s plus one backoff, bounded by the attempts, not the command's 5 s timeout
    // times two (with slack for a loaded machine).
    expect(elapsed).toBeLessThan(8_000);
    labHeal(state.name, "host-4");
  });

  it("a host without sshd is refused", async () => {
    newExecutor({ retry: { attempts: 1 } });
    labStopSshd(state.name, "host-3");
    const err = await failure(ex.run(labTarget(state, 2), ["true"]));
    expect(err.kind).toBe("refused");
    expect(err.message).toContain("sshd");
    await labStartSshd(state.name, "host-3");
    const r = await ex.run(labTarget(state, 2), ["hostname"]);
    expect(r.stdout.toString().trim()).toBe("host-3");
  });
});

describe("cancellation and timeouts", () => {
  const alive = async (marker: string) => {
    // The [x] trick keeps pgrep from matching its own command line.
    const pattern = `${marker.slice(0, -1)}[${marker.slice(-1)}]`;
    const r = await ex.run(labTarget(state, 0), ["sh", "-c", `pgrep -f '${pattern}' || true`], { quiet: true });
    return r.stdout.toString().trim();
  };

  for (const user of ["root", "deploy"]) {
    it(`abort stops the remote process tree (${user})`, async () => {
      newExecutor();
      const marker = `bootdeck-cancel-${user}-${Date.now()}`;
      const ac = new AbortController();
      const p = ex.run(labTarget(state, 0, user), ["sh", "-c", `sleep 300 & sleep 301; : ${marker}`], { step: "long", signal: ac.signal });
      p.catch(() => undefined); // judged below; a failed wait must not leave it unhandled
      // Started: on a busy machine the connection and sudo take longer than any fixed pause.
      await waitFor(`${marker} running on host-1`, () => alive(marker), 30_000, 200);
      const t0 = Date.now();
      ac.abort();
      const err = await failure(p);
      expect(err.detail).toEqual({ kind: "cancelled", host: "host-1", step: "long" });
      expect(Date.now() - t0).toBeLessThan(2_500);
      // The caller is released after at most the kill grace; on a loaded machine the remote kill
      // (a second channel, then sudo) may land a moment later, so the tree's end is awaited.
      await waitFor(`${marker} gone from host-1`, async () => (await alive(marker)) === "", 10_000, 200);
      const sleeps = async () => (await ex.run(labTarget(state, 0), ["sh", "-c", "pgrep -x sleep -a | grep -c 'sleep 30[01]' || true"])).stdout.toString().trim();
      await waitFor("no sleep 300/301 left on host-1", async () => (await sleeps()) === "0", 10_000, 200);
    });
  }

  it("a command past its timeout is stopped and reported as a timeout", async () => {
    newExecutor();
    const marker = `bootdeck-timeout-${Date.now()}`;
    const err = await failure(ex.run(labTarget(state, 0), ["sh", "-c", `sleep 30; : ${marker}`], { step: "slow", timeoutMs: 700 }));
    expect(err.detail).toMatchObject({ kind: "timeout", phase: "command", afterMs: 700, step: "slow" });
    expect(err.retryable).toBe(false);
    await waitFor(`${marker} gone from host-1`, async () => (await alive(marker)) === "", 10_000, 200);
  });
});
