// Classified executor errors: every failure says what failed, on which host, and what to try next.

export type SshErrorKind =
  | "unreachable"
  | "refused"
  | "timeout"
  | "auth-failed"
  | "host-key-changed"
  | "sudo-needs-password"
  | "command-failed"
  | "cancelled";

export type SshErrorDetail =
  | { kind: "unreachable"; host: string; address: string; cause?: string }
  | { kind: "refused"; host: string; address: string }
  | { kind: "timeout"; host: string; phase: "connect" | "command"; afterMs: number; step?: string }
  | { kind: "auth-failed"; host: string; user: string; methods: string[] }
  | { kind: "host-key-changed"; host: string; pinned: string; offered: string }
  | { kind: "sudo-needs-password"; host: string; user: string; step?: string }
  | {
      kind: "command-failed";
      host: string;
      step?: string;
      command: string;
      exitCode: number | null;
      signal?: string;
      stderrTail: string[];
    }
  | { kind: "cancelled"; host: string; step?: string };

/** Connection-level failures that a retry may fix; never a failed command, auth, or a changed key. */
const RETRYABLE: Record<SshErrorKind, boolean> = {
  unreachable: true,
  refused: true,
  timeout: true,
  "auth-failed": false,
  "host-key-changed": false,
  "sudo-needs-password": false,
  "command-failed": false,
  cancelled: false,
};

export class SshError extends Error {
  readonly detail: SshErrorDetail;
  readonly kind: SshErrorKind;
  readonly host: string;
  readonly retryable: boolean;

  constructor(detail: SshErrorDetail, options?: { cause?: unknown }) {
    super(describeError(detail), options);
    this.name = "SshError";
    this.detail = detail;
    this.kind = detail.kind;
    this.host = detail.host;
    // A command timeout is not retried: the command may have had effects.
    this.retryable = RETRYABLE[detail.kind] && !(detail.kind === "timeout" && detail.phase === "command");
  }
}

export function isSshError(err: unknown): err is SshError {
  return err instanceof SshError;
}

export const REPIN_HINT =
  'If the host was legitimately reinstalled, verify the new fingerprint out of band (on the host: ' +
  "`ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub`), then re-pin it: the host's page → " +
  '"Re-pin host key", or `bootdeck host repin CLUSTER HOST`.';

export function describeError(d: SshErrorDetail): string {
  const at = d.host;
  switch (d.kind) {
    case "unreachable":
      return `${at}: host unreachable at ${d.address}${d.cause ? ` (${d.cause})` : ""}. Check that it is powered on, the address is right, and no firewall or routing drops SSH.`;
    case "refused":
      return `${at}: connection refused at ${d.address}. The host is up but nothing listens on the SSH port: check that sshd runs and the port is right.`;
    case "timeout":
      return d.phase === "connect"
        ? `${at}: no SSH handshake within ${d.afterMs} ms. The host may be down, overloaded, or a firewall drops packets; check the network path.`
        : `${at}: step ${d.step ?? "(none)"} timed out after ${d.afterMs} ms; the remote command was stopped. Check the host's load or raise the step's timeout.`;
    case "auth-failed":
      return `${at}: authentication failed for user "${d.user}"${d.methods.length ? ` (tried: ${d.methods.join(", ")})` : ""}. Check that the key is in ~${d.user}/.ssh/authorized_keys, or the password/passphrase.`;
    case "host-key-changed":
      return `${at}: host key changed — refusing to connect. Pinned ${d.pinned}, offered ${d.offered}. This can be a machine-in-the-middle. ${REPIN_HINT}`;
    case "sudo-needs-password":
      return `${at}: sudo asks user "${d.user}" for a password${d.step ? ` (step ${d.step})` : ""}. Bootdeck runs "sudo -n" and cannot type one: give the user NOPASSWD sudo (e.g. "${d.user} ALL=(ALL) NOPASSWD:ALL" in /etc/sudoers.d/) or connect as root.`;
    case "command-failed": {
      const how = d.exitCode === null ? `killed by signal ${d.signal ?? "?"}` : `exit code ${d.exitCode}`;
      const tail = d.stderrTail.length ? `\nlast stderr lines:\n${d.stderrTail.join("\n")}` : "";
      return `${at}: step ${d.step ?? "(none)"} failed with ${how}: ${truncate(d.command, 200)}${tail}`;
    }
    case "cancelled":
      return `${at}: step ${d.step ?? "(none)"} cancelled; the remote command was stopped.`;
  }
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}… (${s.length} chars)`;
}

/** Maps an error from ssh2 or the socket during connect to a classified error. */
export function classifyConnectError(
  err: unknown,
  ctx: { host: string; address: string; user: string; timeoutMs: number; offeredKey?: string; pinnedKey?: string },
): SshError {
  if (err instanceof SshError) return err;
  const e = (err ?? {}) as { code?: string; level?: string; message?: string };
  const msg = e.message ?? String(err);
  if (ctx.offeredKey && ctx.pinnedKey && ctx.offeredKey !== ctx.pinnedKey) {
    return new SshError({ kind: "host-key-changed", host: ctx.host, pinned: ctx.pinnedKey, offered: ctx.offeredKey }, { cause: err });
  }
  if (e.level === "client-authentication" || /All configured authentication methods failed/i.test(msg)) {
    return new SshError({ kind: "auth-failed", host: ctx.host, user: ctx.user, methods: [] }, { cause: err });
  }
  if (e.level === "client-timeout" || e.code === "ETIMEDOUT" || /Timed out while waiting for handshake/i.test(msg)) {
    return new SshError({ kind: "timeout", host: ctx.host, phase: "connect", afterMs: ctx.timeoutMs }, { cause: err });
  }
  if (e.code === "ECONNREFUSED" || /\bConnection refused\b/i.test(msg)) {
    return new SshError({ kind: "refused", host: ctx.host, address: ctx.address }, { cause: err });
  }
  // Everything else at the socket level (EHOSTUNREACH, ENETUNREACH, ECONNRESET, bastion open failures,
  // a peer that closed mid-handshake) means we could not reach a working sshd.
  return new SshError(
    { kind: "unreachable", host: ctx.host, address: ctx.address, cause: e.code ?? msg },
    { cause: err },
  );
}

/** Recognises sudo's refusal under `-n` from its stderr. */
export function isSudoPasswordPrompt(stderr: string): boolean {
  return /^sudo: (a password is required|a terminal is required)/m.test(stderr);
}
