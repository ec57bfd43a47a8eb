// Opening a connection that is cancelled or lost mid-handshake: the caller gets one classified error,
// and nothing later (ssh2 reports the lost connection again) reaches the process as an unhandled error.
import net from "node:net";
import { afterEach, expect, it } from "vitest";
import { PassThrough, type Duplex } from "node:stream";
import type { Client } from "ssh2";
import { connectHost, forwardThrough } from "./connection";
import type { HostTarget } from "./types";

const sockets: net.Socket[] = [];
let server: net.Server | undefined;
afterEach(() => {
  for (const s of sockets) s.destroy();
  server?.close();
});

/** A TCP server that accepts and says nothing (an SSH server that never starts its handshake). */
async function silentServer(): Promise<number> {
  server = net.createServer((s) => sockets.push(s));
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return (server!.address() as net.AddressInfo).port;
}

const target = (port: number): HostTarget => ({ id: "h1", address: "127.0.0.1", port, user: "root", auth: { kind: "password", password: "x" }, hostKey: { pinned: undefined } }) as unknown as HostTarget;

it("a connection cancelled mid-handshake rejects once as cancelled, and its lost connection afterwards is not an unhandled error", async () => {
  const port = await silentServer();
  const ac = new AbortController();
  const errors: unknown[] = [];
  const onUncaught = (err: unknown) => errors.push(err);
  process.on("uncaughtException", onUncaught);
  try {
    const pending = connectHost(target(port), { connectTimeoutMs: 5_000, keepaliveIntervalMs: 0, keepaliveCountMax: 3, signal: ac.signal });
    await new Promise((r) => setTimeout(r, 200));
    ac.abort();
    await expect(pending).rejects.toMatchObject({ kind: "cancelled" });
    // The server drops the connection now: ssh2 reports it lost before the handshake.
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 300));
    expect(errors).toEqual([]);
  } finally {
    process.off("uncaughtException", onUncaught);
  }
});

it("a forwarded stream that the host has not opened in time rejects as a connect timeout, and one that opens late is closed", async () => {
  let late: ((err: Error | undefined, stream: Duplex) => void) | undefined;
  const host = { forwardOut: (_a: string, _p: number, _h: string, _port: number, cb: typeof late) => void (late = cb) } as unknown as Client;
  await expect(forwardThrough(host, { id: "10.0.0.250:6443 from master-1", address: "10.0.0.250", port: 6443 }, "master-1", 50)).rejects.toMatchObject({ kind: "timeout", detail: { phase: "connect", afterMs: 50 } });
  const stream = new PassThrough();
  late!(undefined, stream);
  expect(stream.destroyed).toBe(true);
});
