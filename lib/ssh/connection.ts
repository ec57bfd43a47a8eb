import "server-only";
// Opening one SSH connection (optionally through a bastion), with host-key pinning and classified errors.
import { Client, type ConnectConfig } from "ssh2";
import type { Duplex } from "node:stream";
import { classifyConnectError, SshError } from "./errors";
import { decideHostKey, fingerprint } from "./host-key";
import type { HostTarget } from "./types";

export type ConnectOptions = {
  connectTimeoutMs: number;
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  signal?: AbortSignal;
  /** An already-open stream to the target (a bastion's forwardOut channel). */
  sock?: Duplex;
};

export function connectHost(host: HostTarget, opts: ConnectOptions): Promise<Client> {
  const address = `${host.address}:${host.port ?? 22}`;
  return new Promise<Client>((resolve, reject) => {
    const client = new Client();
    let offered: string | undefined;
    let settled = false;
    let keyError: SshError | undefined;
    const finish = (err: unknown, ok?: Client) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener("abort", onAbort);
      if (ok) return resolve(ok);
      client.end();
      reject(
        keyError ??
          classifyConnectError(err, {
            host: host.id,
            address,
            user: host.user,
            timeoutMs: opts.connectTimeoutMs,
            offeredKey: offered,
            pinnedKey: host.hostKey.pinned,
          }),
      );
    };
    const onAbort = () => finish(new SshError({ kind: "cancelled", host: host.id }));
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener("abort", onAbort, { once: true });

    const config: ConnectConfig = {
      host: host.address,
      port: host.port ?? 22,
      username: host.user,
      readyTimeout: opts.connectTimeoutMs,
      keepaliveInterval: opts.keepaliveIntervalMs,
      keepaliveCountMax: opts.keepaliveCountMax,
      sock: opts.sock as ConnectConfig["sock"],
      hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
        offered = fingerprint(key);
        const decision = decideHostKey(host.hostKey, offered);
        if (!decision.accept) {
          keyError =
            decision.reason === "changed"
              ? new SshError({ kind: "host-key-changed", host: host.id, pinned: host.hostKey.pinned ?? "", offered })
              : new SshError({ kind: "host-key-changed", host: host.id, pinned: "(none: pinning required)", offered });
          return verify(false);
        }
        if (!decision.firstContact || !host.hostKey.onFirstContact) return verify(true);
        // Record the key before any credential is sent.
        Promise.resolve(host.hostKey.onFirstContact(offered)).then(
          () => verify(true),
          (err: unknown) => {
            keyError = new SshError(
              { kind: "unreachable", host: host.id, address, cause: `recording the host key failed: ${String(err)}` },
              { cause: err },
            );
            verify(false);
          },
        );
      },
    } as ConnectConfig;
    switch (host.auth.kind) {
      case "key":
        config.privateKey = host.auth.privateKey;
        config.passphrase = host.auth.passphrase;
        break;
      case "password":
        config.password = host.auth.password;
        break;
      case "agent":
        config.agent = host.auth.socket ?? process.env.SSH_AUTH_SOCK;
        break;
    }
    client.once("ready", () => {
      client.setNoDelay(true);
      finish(undefined, client);
    });
    // Kept for the client's whole life: ssh2 can emit a second error after the first settled this (a
    // connection cancelled mid-handshake is then "lost before handshake"), and an error event with no
    // listener would end the process.
    client.on("error", (err) => finish(err));
    client.once("close", () => finish(new Error("connection closed during handshake")));
    try {
      client.connect(config);
    } catch (err) {
      // ssh2 throws synchronously on a bad key or passphrase.
      const msg = err instanceof Error ? err.message : String(err);
      settled = true;
      opts.signal?.removeEventListener("abort", onAbort);
      reject(new SshError({ kind: "auth-failed", host: host.id, user: host.user, methods: [`${host.auth.kind}: ${msg}`] }, { cause: err }));
    }
  });
}

/** Opens a TCP stream to `target` through an established connection (ssh -J, or ssh -L for the cluster's API). */
export function forwardThrough(bastion: Client, target: Pick<HostTarget, "id" | "address" | "port">, bastionId: string, timeoutMs: number): Promise<Duplex> {
  const address = `${target.address}:${target.port ?? 22}`;
  return new Promise((resolve, reject) => {
    // sshd confirms the channel only once its own TCP connect finished, and a SYN nobody answers is
    // retried by its kernel for about two minutes: past the timeout the caller tries another way, and
    // a stream that opens late is closed.
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(new SshError({ kind: "timeout", host: target.id, phase: "connect", afterMs: timeoutMs }));
    }, timeoutMs);
    bastion.forwardOut("127.0.0.1", 0, target.address, target.port ?? 22, (err, stream) => {
      clearTimeout(timer);
      if (settled) return stream?.destroy();
      settled = true;
      if (err) {
        const refused = /refused/i.test(err.message);
        return reject(
          refused
            ? new SshError({ kind: "refused", host: target.id, address }, { cause: err })
            : new SshError({ kind: "unreachable", host: target.id, address, cause: `via bastion ${bastionId}: ${err.message}` }, { cause: err }),
        );
      }
      resolve(stream);
    });
  });
}
