import "server-only";
// Running one command on an open connection: pty-less exec, streamed lines, timeout and cancellation.
import type { Client, ClientChannel } from "ssh2";
import { Readable } from "node:stream";
import { isSudoPasswordPrompt, SshError } from "./errors";
import { LineSplitter } from "./lines";
import { QuoteError, shellCommand } from "./quote";
import type { Redactor } from "./redact";
import { RUN_WRAPPER } from "./scripts";
import type { ExecOptions, ExecResult, OutputSink } from "./types";

export const STDERR_TAIL_LINES = 20;
export const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;
/** After TERM, how long the remote side gets before the channel is closed from our end. */
const KILL_GRACE_MS = 2_000;

/**
 * The exact command line sent for `argv`: wrapped so cancellation stops the whole remote process tree,
 * and run through `sudo -n` for a non-root user (never prompts; a prompt becomes a classified error).
 */
export function buildRemoteCommand(argv: readonly string[], user: string): string {
  if (argv.length === 0) throw new QuoteError("cannot run an empty command");
  const wrapped = ["sh", "-c", RUN_WRAPPER, "bootdeck-run", ...argv];
  const line = shellCommand(user === "root" ? wrapped : ["sudo", "-n", "--", ...wrapped]);
  // sshd hands the whole line to the login shell as one argument, and Linux caps one argument at
  // 128 KiB (MAX_ARG_STRLEN); past that the exec fails with an unhelpful error on the host.
  if (Buffer.byteLength(line) > MAX_COMMAND_BYTES) {
    throw new QuoteError(
      `command line too long: ${Buffer.byteLength(line)} bytes once quoted, the remote shell accepts at most ${MAX_COMMAND_BYTES}; ` +
        "pass large data on stdin or upload it as a file",
    );
  }
  return line;
}

export const MAX_COMMAND_BYTES = 128 * 1024 - 1;

/** Tells a running wrapper (by pid) to stop its process group. */
export function buildKillCommand(pid: string, user: string): string {
  if (!/^\d+$/.test(pid)) throw new Error(`not a pid: ${pid}`);
  const argv = ["kill", "-TERM", pid];
  return shellCommand(user === "root" ? argv : ["sudo", "-n", "--", ...argv]);
}

export type ExecContext = {
  /** host:port as configured, for errors. */
  address?: string;
  client: Client;
  hostId: string;
  user: string;
  sink?: OutputSink;
  redactor: Redactor;
  defaultTimeoutMs: number;
};

/**
 * Sends an SSH "signal" channel request. ssh2's Channel.signal() silently does nothing once our side of
 * the channel is closed for writing (stdin ended, which is every command here), so go one level down.
 */
export function sendSignal(ch: ClientChannel, name: string): void {
  const internals = ch as unknown as {
    outgoing?: { id?: number; state?: string };
    _client?: { _protocol?: { signal(id: number, name: string): void } };
  };
  const id = internals.outgoing?.id;
  const st = internals.outgoing?.state;
  if (id === undefined || (st !== "open" && st !== "eof")) return;
  try {
    internals._client?._protocol?.signal(id, name);
  } catch {
    /* connection already gone */
  }
}

export class ChannelOpenError extends Error {
  constructor(cause: unknown) {
    super(`could not open an exec channel: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export async function execOnClient(ctx: ExecContext, argv: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> {
  const step = opts.step ?? "";
  const started = Date.now();
  const timeoutMs = opts.timeoutMs ?? ctx.defaultTimeoutMs;
  if (opts.signal?.aborted) throw new SshError({ kind: "cancelled", host: ctx.hostId, step });
  const command = buildRemoteCommand(argv, ctx.user);

  return new Promise<ExecResult>((resolve, reject) => {
    // Listeners must be attached inside ssh2's callback, synchronously: a fast command's data, exit
    // status and close can arrive in the same read as the channel confirmation, and an `await` in
    // between would miss them.
    ctx.client.exec(command, { pty: false }, (err, ch) => {
      if (err) return reject(new ChannelOpenError(err));
      handleChannel(ch, resolve, reject);
    });
  });

  function handleChannel(ch: ClientChannel, resolve: (r: ExecResult) => void, reject: (e: unknown) => void): void {
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const capture = opts.captureStdout ?? true;
    const stderrTail: string[] = [];
    let stderrText = "";
    let exitCode: number | null = null;
    let exitSignal: string | undefined;
    let stopped: "timeout" | "cancelled" | undefined;
    let killTimer: NodeJS.Timeout | undefined;

    let remotePid: string | undefined;
    const emit = (stream: "stdout" | "stderr") => {
      const redact = ctx.redactor.forStream();
      return new LineSplitter((raw) => {
        // The wrapper's pid line comes first from the wrapper, though sudo may print warnings before it.
        if (stream === "stderr" && !remotePid) {
          const m = /^bootdeck-pid (\d+)$/.exec(raw);
          if (m) {
            remotePid = m[1];
            if (stopped) killRemote();
            return;
          }
        }
        const line = redact(raw);
        if (stream === "stderr") {
          stderrTail.push(line);
          if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
        }
        if (!opts.quiet) ctx.sink?.({ host: ctx.hostId, step, stream, line });
      });
    };
    const outLines = emit("stdout");
    const errLines = emit("stderr");

    const stdoutTo = opts.stdoutTo;
    ch.on("data", (d: Buffer) => {
      if (stdoutTo) {
        if (!stdoutTo.write(d)) {
          ch.pause();
          stdoutTo.once("drain", () => ch.resume());
        }
        return;
      }
      if (capture && stdoutBytes < MAX_CAPTURE_BYTES) {
        stdout.push(d);
        stdoutBytes += d.length;
      }
      outLines.push(d);
    });
    ch.stderr.on("data", (d: Buffer) => {
      if (stderrText.length < 4096) stderrText += d.toString("utf8");
      errLines.push(d);
    });
    ch.on("exit", (code: number | null, signal?: string) => {
      exitCode = code;
      exitSignal = signal;
    });

    const stop = (why: "timeout" | "cancelled") => {
      if (stopped) return;
      stopped = why;
      // For non-root logins sshd delivers the signal to the session's process group; for root it
      // refuses, so the wrapper is also told over a second channel. Either way it kills its group.
      sendSignal(ch, "TERM");
      killRemote();
      // sshd keeps a session open while its process lives; don't let a stuck host hold the caller.
      killTimer = setTimeout(() => {
        ch.close();
        settle();
      }, KILL_GRACE_MS);
    };
    let killSent = false;
    const killRemote = () => {
      if (killSent || !remotePid) return;
      killSent = true;
      ctx.client.exec(buildKillCommand(remotePid, ctx.user), { pty: false }, (err, kch) => {
        if (err) return; // connection gone: sshd ends the session and the process sees SIGHUP/EPIPE
        kch.on("data", () => undefined);
        kch.stderr.on("data", () => undefined);
        kch.end();
      });
    };
    const timer = timeoutMs > 0 ? setTimeout(() => stop("timeout"), timeoutMs) : undefined;
    const onAbort = () => stop("cancelled");
    opts.signal?.addEventListener("abort", onAbort, { once: true });

    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      opts.signal?.removeEventListener("abort", onAbort);
      outLines.flush();
      errLines.flush();
      const base = { host: ctx.hostId, step };
      if (stopped === "timeout") {
        return reject(new SshError({ kind: "timeout", ...base, phase: "command", afterMs: timeoutMs }));
      }
      if (stopped === "cancelled") return reject(new SshError({ kind: "cancelled", ...base }));
      if (exitCode !== 0 && ctx.user !== "root" && isSudoPasswordPrompt(stderrText)) {
        return reject(new SshError({ kind: "sudo-needs-password", ...base, user: ctx.user }));
      }
      // No exit status and no signal: the channel closed under the command because the connection died.
      if (exitCode === null && exitSignal === undefined) {
        return reject(new SshError({ kind: "unreachable", host: ctx.hostId, address: ctx.address ?? ctx.hostId, cause: `the connection was lost while ${step ? `step ${step}` : "a command"} ran; it may have run partly` }));
      }
      if (exitCode === 0 || (opts.allowFailure && exitCode !== null)) {
        return resolve({
          ...base,
          exitCode: exitCode ?? 0,
          stdout: Buffer.concat(stdout),
          stderrTail,
          durationMs: Date.now() - started,
        });
      }
      reject(
        new SshError({
          kind: "command-failed",
          ...base,
          command: ctx.redactor.redact(shellCommand(argv)),
          exitCode,
          signal: exitSignal,
          stderrTail,
        }),
      );
    };
    ch.on("close", settle);

    if (opts.stdin === undefined) ch.end();
    else if (typeof opts.stdin === "string" || Buffer.isBuffer(opts.stdin)) ch.end(opts.stdin);
    else (opts.stdin as Readable).pipe(ch);
  }
}
