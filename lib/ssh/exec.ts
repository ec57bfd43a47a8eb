import "server-only";
// Running one command on an open connection: pty-less exec, streamed lines, timeout and cancellation.
import type { Client, ClientChannel } from "ssh2";
import { Readable } from "node:stream";
import { isSudoPasswordPrompt, SshError } from "./errors";
import { LineSplitter } from "./lines";
import { shellCommand } from "./quote";
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
  const wrapped = ["sh", "-c", RUN_WRAPPER, "bootdeck-run", shellCommand(argv)];
  return shellCommand(user === "root" ? wrapped : ["sudo", "-n", "--", ...wrapped]);
}

export type ExecContext = {
  client: Client;
  hostId: string;
  user: string;
  sink?: OutputSink;
  redactor: Redactor;
  defaultTimeoutMs: number;
};

/** Opens a channel; rejects with a plain Error when the connection cannot open one (caller classifies). */
function openChannel(client: Client, command: string): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    client.exec(command, { pty: false }, (err, ch) => (err ? reject(err) : resolve(ch)));
  });
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

  let ch: ClientChannel;
  try {
    ch = await openChannel(ctx.client, command);
  } catch (err) {
    throw new ChannelOpenError(err);
  }

  return new Promise<ExecResult>((resolve, reject) => {
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const capture = opts.captureStdout ?? true;
    const stderrTail: string[] = [];
    let stderrText = "";
    let exitCode: number | null = null;
    let exitSignal: string | undefined;
    let stopped: "timeout" | "cancelled" | undefined;
    let killTimer: NodeJS.Timeout | undefined;

    const emit = (stream: "stdout" | "stderr") => {
      const redact = ctx.redactor.forStream();
      return new LineSplitter((raw) => {
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

    ch.on("data", (d: Buffer) => {
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
      // sshd delivers the signal to the session's process group; the wrapper then kills its own group.
      try {
        ch.signal("TERM");
      } catch {
        /* channel already closing */
      }
      killTimer = setTimeout(() => ch.close(), KILL_GRACE_MS);
    };
    const timer = timeoutMs > 0 ? setTimeout(() => stop("timeout"), timeoutMs) : undefined;
    const onAbort = () => stop("cancelled");
    opts.signal?.addEventListener("abort", onAbort, { once: true });

    ch.on("close", () => {
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
    });

    if (opts.stdin === undefined) ch.end();
    else if (typeof opts.stdin === "string" || Buffer.isBuffer(opts.stdin)) ch.end(opts.stdin);
    else (opts.stdin as Readable).pipe(ch);
  });
}
