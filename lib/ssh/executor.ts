import "server-only";
// The executor: one pooled connection per host, bounded concurrency, retries for connection errors only,
// classified errors, redacted streamed output. Callers pass hosts in; nothing here knows the database.
import type { Duplex } from "node:stream";
import type { Client } from "ssh2";
import { DEFAULT_BACKOFF, withRetry, type BackoffOptions } from "./backoff";
import { connectHost, forwardThrough } from "./connection";
import { isSshError, SshError } from "./errors";
import { ChannelOpenError, execOnClient } from "./exec";
import { Redactor } from "./redact";
import { Semaphore } from "./semaphore";
import type { ExecOptions, ExecResult, HostTarget, OutputSink } from "./types";
import { needsWrite, normaliseFiles, parseProbe, planApply, probeArgs, type FileSpec } from "./upload";
import { dirsOf, EMPTY_TAR, openSftp, sftpWriteTemps } from "./upload-sftp";

export type ExecutorOptions = {
  /** Commands in flight across all hosts (default 64). */
  concurrency?: number;
  /** Tar streams in flight across all hosts (default 16). */
  uploadConcurrency?: number;
  /** Channels in flight per connection; OpenSSH's MaxSessions defaults to 10 (default 8). */
  perHostChannels?: number;
  connectTimeoutMs?: number;
  /** Default per-command deadline (default 10 minutes). */
  commandTimeoutMs?: number;
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  retry?: Partial<BackoffOptions>;
  sink?: OutputSink;
  redactor?: Redactor;
};

export type UploadResult = { host: string; step: string; written: number; skipped: number; bytes: number; execs: number };

/**
 * How long a host may take to open a forwarded stream: a connect across the host's own network, done in
 * milliseconds when the far end is there. The caller (the cluster's API tunnel) then tries another host.
 */
const FORWARD_TIMEOUT_MS = 5_000;

type PoolEntry = { client: Promise<Client>; channels: Semaphore };

export class Executor {
  readonly redactor: Redactor;
  private readonly pool = new Map<string, PoolEntry>();
  private readonly commands: Semaphore;
  private readonly uploads: Semaphore;
  private readonly opts: Required<Omit<ExecutorOptions, "sink" | "redactor" | "retry">> & { retry: BackoffOptions };
  private sink?: OutputSink;
  private closed = false;

  constructor(options: ExecutorOptions = {}) {
    this.opts = {
      concurrency: options.concurrency ?? 64,
      uploadConcurrency: options.uploadConcurrency ?? 16,
      perHostChannels: options.perHostChannels ?? 8,
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
      commandTimeoutMs: options.commandTimeoutMs ?? 10 * 60_000,
      keepaliveIntervalMs: options.keepaliveIntervalMs ?? 5_000,
      keepaliveCountMax: options.keepaliveCountMax ?? 3,
      retry: { ...DEFAULT_BACKOFF, ...options.retry },
    };
    this.commands = new Semaphore(this.opts.concurrency);
    this.uploads = new Semaphore(this.opts.uploadConcurrency);
    this.sink = options.sink;
    this.redactor = options.redactor ?? new Redactor();
  }

  /** Runs argv (quoted through the one helper) on the host; throws a classified SshError on failure. */
  async run(host: HostTarget, argv: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> {
    return this.commands.use(() => this.runNow(host, argv, opts));
  }

  /** Uploads files idempotently: one probe exec, then (only if something differs) one tar stream. */
  async upload(host: HostTarget, files: readonly FileSpec[], opts: Omit<ExecOptions, "stdin"> = {}): Promise<UploadResult> {
    const { changed, result } = await this.probeChanges(host, files, opts);
    if (changed.length === 0) return result;
    const plan = planApply(changed);
    const tar = await plan.tar();
    await this.uploads.use(() => this.run(host, plan.argv, { ...opts, stdin: tar, quiet: true }));
    return { ...result, bytes: tar.length, execs: 2 };
  }

  /** One probe exec: which of the files differ on the host (content, mode or owner). */
  private async probeChanges(host: HostTarget, files: readonly FileSpec[], opts: Omit<ExecOptions, "stdin">) {
    const planned = normaliseFiles(files);
    const probe = await this.run(host, probeArgs(planned), { ...opts, quiet: true });
    const remote = parseProbe(probe.stdout, planned.length);
    const changed = planned.filter((f, i) => needsWrite(f, remote[i] ?? { exists: false }));
    const result: UploadResult = { host: host.id, step: opts.step ?? "", written: changed.length, skipped: planned.length - changed.length, bytes: 0, execs: 1 };
    return { changed, result };
  }

  /**
   * The same upload over SFTP (root logins only). Kept to re-measure against the tar stream; see
   * docs/ssh.md. Costs one exec more (mkdir) plus four SFTP round trips per file.
   */
  async uploadViaSftp(host: HostTarget, files: readonly FileSpec[], opts: Omit<ExecOptions, "stdin"> = {}): Promise<UploadResult> {
    if (host.user !== "root") throw new Error("SFTP uploads need a root login (SFTP cannot use sudo); use upload()");
    const { changed, result } = await this.probeChanges(host, files, opts);
    if (changed.length === 0) return result;
    const plan = planApply(changed);
    await this.run(host, ["mkdir", "-p", "-m", "700", "--", ...dirsOf(plan.temps)], { ...opts, quiet: true });
    const client = await this.client(host, opts.signal);
    const sftp = await openSftp(client);
    try {
      await this.uploads.use(() => sftpWriteTemps(sftp, changed, plan.temps));
    } finally {
      sftp.end();
    }
    await this.run(host, plan.argv, { ...opts, stdin: EMPTY_TAR, quiet: true });
    return { ...result, bytes: changed.reduce((n, f) => n + f.content.length, 0), execs: 3 };
  }

  /** Runs fn for every host with the executor's bounds; collects each host's result or classified error. */
  async forEachHost<T>(
    hosts: readonly HostTarget[],
    fn: (host: HostTarget) => Promise<T>,
  ): Promise<({ host: string; ok: true; value: T } | { host: string; ok: false; error: SshError | Error })[]> {
    return Promise.all(
      hosts.map(async (h) => {
        try {
          return { host: h.id, ok: true as const, value: await fn(h) };
        } catch (err) {
          return { host: h.id, ok: false as const, error: err instanceof Error ? err : new Error(String(err)) };
        }
      }),
    );
  }

  /**
   * A TCP stream from the host to address:port over the host's pooled connection (like ssh -L): how
   * the engine reaches a cluster's API without a route from the dashboard.
   */
  async forward(host: HostTarget, address: string, port: number, signal?: AbortSignal): Promise<Duplex> {
    const client = await this.client(host, signal);
    return forwardThrough(client, { id: `${address}:${port} from ${host.id}`, address, port }, host.id, FORWARD_TIMEOUT_MS);
  }

  /** Opens (or reuses) the host's connection; useful to surface host-key/auth errors before a run. */
  async connect(host: HostTarget, signal?: AbortSignal): Promise<void> {
    await this.client(host, signal);
  }

  /** Drops a host's pooled connection (e.g. after a re-pin) so the next call reconnects. */
  disconnect(hostId: string): void {
    const entry = this.pool.get(hostId);
    this.pool.delete(hostId);
    entry?.client.then((c) => c.end(), () => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.pool.entries()];
    this.pool.clear();
    await Promise.all(entries.map(([, e]) => e.client.then((c) => c.end(), () => undefined)));
  }

  get connectionCount(): number {
    return this.pool.size;
  }

  private async runNow(host: HostTarget, argv: readonly string[], opts: ExecOptions): Promise<ExecResult> {
    this.registerSecrets(host);
    // A channel that cannot open means the pooled connection died under us: reconnect once, since the
    // command never started. Anything after the channel opened is never retried.
    for (let attempt = 1; ; attempt++) {
      const client = await this.client(host, opts.signal);
      const entry = this.pool.get(host.id);
      try {
        return await (entry?.channels ?? new Semaphore(1)).use(() =>
          execOnClient(
            { client, hostId: host.id, address: `${host.address}:${host.port ?? 22}`, user: host.user, sink: this.sink, redactor: this.redactor, defaultTimeoutMs: this.opts.commandTimeoutMs },
            argv,
            opts,
          ),
        );
      } catch (err) {
        if (err instanceof ChannelOpenError) {
          this.disconnect(host.id);
          if (attempt < 2) continue;
          throw new SshError({ kind: "unreachable", host: host.id, address: host.address, cause: err.message }, { cause: err });
        }
        throw err;
      }
    }
  }

  private client(host: HostTarget, signal?: AbortSignal): Promise<Client> {
    if (this.closed) return Promise.reject(new Error("executor is closed"));
    const existing = this.pool.get(host.id);
    if (existing) return existing.client;
    const client = withRetry(() => this.open(host, signal), {
      ...this.opts.retry,
      signal,
      isRetryable: (err) => isSshError(err) && err.retryable,
    });
    const entry: PoolEntry = { client, channels: new Semaphore(this.opts.perHostChannels) };
    this.pool.set(host.id, entry);
    client.then(
      (c) => {
        const drop = () => {
          if (this.pool.get(host.id) === entry) this.pool.delete(host.id);
        };
        c.once("close", drop);
        c.on("error", drop);
      },
      () => {
        if (this.pool.get(host.id) === entry) this.pool.delete(host.id);
      },
    );
    return client;
  }

  private async open(host: HostTarget, signal?: AbortSignal): Promise<Client> {
    const base = {
      connectTimeoutMs: this.opts.connectTimeoutMs,
      keepaliveIntervalMs: this.opts.keepaliveIntervalMs,
      keepaliveCountMax: this.opts.keepaliveCountMax,
      signal,
    };
    if (!host.bastion) return connectHost(host, base);
    const bastion = await this.client(host.bastion, signal);
    const sock = await forwardThrough(bastion, host, host.bastion.id, this.opts.connectTimeoutMs);
    return connectHost(host, { ...base, sock });
  }

  private registerSecrets(host: HostTarget): void {
    for (let h: HostTarget | undefined = host; h; h = h.bastion) {
      if (h.auth.kind === "password") this.redactor.add(h.auth.password);
      if (h.auth.kind === "key") this.redactor.add(h.auth.passphrase);
    }
  }
}
