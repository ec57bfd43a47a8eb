import "server-only";
// Public surface of the SSH executor.
export { Executor, type ExecutorOptions, type UploadResult } from "./executor";
export { SshError, isSshError, type SshErrorDetail, type SshErrorKind } from "./errors";
export { fingerprint, type HostKeyPolicy } from "./host-key";
export { quote, shellCommand, shellScript, QuoteError } from "./quote";
export { Redactor, REDACTED } from "./redact";
export type { FileSpec } from "./upload";
export type { ExecOptions, ExecResult, HostTarget, OutputLine, OutputSink, SshAuth } from "./types";
