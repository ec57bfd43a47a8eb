// A server with viewers shuts down at once: SIGTERM's shutdown ends every open run event stream, so
// the HTTP server's close (which waits for open connections, as Next.js's does before it exits) is not
// held by a browser watching a run; the viewer's stream ends cleanly and it resumes elsewhere from its
// Last-Event-ID. Served by a plain node:http server around the real route handler.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import { appendRunEvent } from "../lib/engine/events";
import { createRun, startRun } from "../lib/engine/runs";
import { shutdown } from "../lib/shutdown";
import { GET as events } from "../app/api/runs/[id]/events/route";
import { createActor, signIn, type Signed } from "./http-helpers";
import { createTempDb, type TempDb } from "./temp-db";
import { testKeyPair } from "./ssh-key";

let db: TempDb;
let runId: string;
let signed: Signed;
let server: http.Server;
let port: number;

beforeAll(async () => {
  db = await createTempDb();
  signed = await signIn(await createActor("support"));
  const clusterId = (await createCluster({ definition: exampleDefinition({ name: "viewers", hosts: 2 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
  runId = await createRun({ clusterId, type: "check", plan: { runType: "check", phases: [] } });
  await startRun({ runId });
  server = http.createServer(async (req, res) => {
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    const request = new Request(`http://localhost${req.url}`, { headers: req.headers as Record<string, string>, signal: controller.signal });
    const response = await events(request, { params: Promise.resolve({ id: runId }) });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) Readable.fromWeb(response.body as never).pipe(res);
    else res.end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server?.closeAllConnections();
  await db?.cleanup();
});

describe("shutting down with a viewer on a run's event stream", () => {
  it("ends the stream, and the server closes at once instead of waiting for the viewer", async () => {
    const received: string[] = [];
    const ended = new Promise<void>((resolve) => {
      http.get({ host: "127.0.0.1", port, path: `/api/runs/${runId}/events`, headers: { cookie: signed.cookie } }, (res) => {
        expect(res.statusCode).toBe(200);
        res.on("data", (c: Buffer) => received.push(c.toString()));
        res.on("end", () => resolve());
      });
    });
    await appendRunEvent({ runId, type: "phase.started", data: { phase: "facts" } });
    for (let i = 0; i < 100 && !received.join("").includes("phase.started"); i++) await new Promise((r) => setTimeout(r, 20));
    expect(received.join("")).toMatch(/id: \d+\nevent: phase.started/);
    const t0 = Date.now();
    const closed = new Promise<void>((r) => server.close(() => r()));
    await shutdown({ graceMs: 100 });
    const outcome = await Promise.race([closed.then(() => "closed"), new Promise((r) => setTimeout(() => r("still open after 5 s"), 5_000))]);
    expect(outcome).toBe("closed");
    expect(Date.now() - t0).toBeLessThan(2_000);
    await ended;
    // The last event id the viewer holds is where the next server resumes it.
    expect(received.join("").match(/id: (\d+)/g)?.at(-1)).toMatch(/id: \d+/);
  });
});
