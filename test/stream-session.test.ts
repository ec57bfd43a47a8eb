// The two Server-Sent Events streams, opened through their route handlers as a signed-in user: each
// ends once the session no longer allows it, and sends nothing after that.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import { getDb } from "../lib/db/client";
import { appendRunEvent } from "../lib/engine/events";
import { createRun } from "../lib/engine/runs";
import { updateUser } from "../lib/auth/users";
import * as runEvents from "../app/api/runs/[id]/events/route";
import * as live from "../app/api/clusters/[id]/live/route";
import { createTempDb, type TempDb } from "./temp-db";
import { call, createActor, signIn, type Actor, type Handler } from "./http-helpers";
import { testKeyPair } from "./ssh-key";

let db: TempDb;
let admin: Actor;
let clusterId: string;
beforeAll(async () => {
  db = await createTempDb();
  admin = await createActor("admin");
  const key = testKeyPair().private;
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "streams" }), secrets: { "admin-key": { privateKey: key } } })).id;
});
afterAll(async () => db?.cleanup());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads the stream into `text` until it ends; `done` resolves with the time it ended. */
function drain(res: Response) {
  const out = { text: "", done: undefined as Promise<number> | undefined };
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  out.done = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Date.now();
      out.text += decoder.decode(value);
    }
  })();
  return out;
}

const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, sleep(ms).then(() => "still open" as const)]);

describe("a stream ends for a user who is no longer allowed", () => {
  test("run events: a disabled user gets no event after the change, and the stream closes", async () => {
    const user = await createActor("support", "watcher");
    const signed = await signIn(user);
    const runId = await createRun({ clusterId, type: "check", plan: { runType: "check", phases: [] } });
    const ac = new AbortController();
    const res = await (runEvents.GET as Handler)(
      new Request(`http://localhost/api/runs/${runId}/events`, { headers: { cookie: signed.cookie }, signal: ac.signal }),
      { params: Promise.resolve({ id: runId }) },
    );
    expect(res.status).toBe(200);
    const stream = drain(res);
    await sleep(1_200);
    expect(stream.text).toContain("event: run.planned");
    await updateUser({ id: user.userId, actorId: admin.userId, disabled: true });
    await appendRunEvent({ runId, type: "run.cancel-requested", data: { secret: "after-disable" } });
    const ended = await within(stream.done!, 7_000);
    ac.abort();
    expect(ended).not.toBe("still open");
    expect(stream.text).not.toContain("after-disable");
  });

  test("live pods and nodes: a signed-out user's stream closes within the idle re-check", async () => {
    const signed = await signIn(admin);
    const ac = new AbortController();
    const res = await call(live.GET as Handler, { method: "GET", path: `/api/clusters/${clusterId}/live`, params: { id: clusterId }, signed });
    expect(res.status).toBe(200);
    const stream = drain(res);
    await sleep(300);
    expect(stream.text).toContain("event: snapshot");
    const signedOutAt = Date.now();
    await getDb().session.deleteMany({ where: { userId: admin.userId } });
    const ended = await within(stream.done!, 7_000);
    ac.abort();
    expect(ended).not.toBe("still open");
    expect((ended as number) - signedOutAt).toBeLessThan(6_500);
  });
});
