// Public types of the executor. The executor knows nothing of the database: callers pass hosts in.
import type { HostKeyPolicy } from "./host-key";

export type SshAuth =
  | { kind: "key"; privateKey: string | Buffer; passphrase?: string }
  | { kind: "password"; password: string }
  /** ssh-agent; `socket` defaults to $SSH_AUTH_SOCK. */
  | { kind: "agent"; socket?: string };

export type HostTarget = {
  /** Stable id used in logs, errors and as the connection-pool key (e.g. the host's name). */
  id: string;
  address: string;
  port?: number;
  user: string;
  auth: SshAuth;
  hostKey: HostKeyPolicy;
  /** Optional jump host: the connection to this host is tunnelled through the bastion's connection. */
  bastion?: HostTarget;
};

export type OutputLine = {
  host: string;
  step: string;
  stream: "stdout" | "stderr";
  line: string;
};

export type OutputSink = (line: OutputLine) => void;

export type ExecOptions = {
  /** Step id attached to every output line and error. */
  step?: string;
  /** Per-command deadline; the remote process is stopped when it passes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Data written to the command's stdin (then closed). */
  stdin?: Buffer | string | NodeJS.ReadableStream;
  /** Keep the raw stdout bytes in the result (default true, capped at maxCaptureBytes). */
  captureStdout?: boolean;
  /** Don't stream lines to the sink (for probes whose output is data, not log). */
  quiet?: boolean;
  /** Resolve with the exit code instead of throwing command-failed on non-zero. */
  allowFailure?: boolean;
  /**
   * Streams stdout's raw bytes into this stream as they arrive (with back-pressure: the channel pauses
   * while the stream is full) instead of capturing them or splitting them into lines: large binary
   * output such as an etcd snapshot. The stream is not ended here.
   */
  stdoutTo?: NodeJS.WritableStream;
};

export type ExecResult = {
  host: string;
  step: string;
  exitCode: number;
  /** Raw stdout (not redacted: it is data for the caller, never log it as is). */
  stdout: Buffer;
  /** Last stderr lines, redacted. */
  stderrTail: string[];
  durationMs: number;
};
