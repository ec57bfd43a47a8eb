// A day-2 step's locked host script meets the lock that a finished run left on the host (its release
// never arrived): the lock is taken over — that run's own release, then the planned command again,
// unchanged — and a lock held by a run still going is refused, saying which.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RecordingExecutor } from "../../../test/fake-cluster";
import { testKeyPair } from "../../../test/ssh-key";
import { createTempDb, type TempDb } from "../../../test/temp-db";
import { exampleDefinition } from "../../cluster/example";
import { createCluster } from "../../clusters/repository";
import { getDb } from "../../db/client";
import { ADDRESS_SCRIPT } from "./day2-scripts";
import { locked } from "../plans";
import type { PlannedStep } from "../plan";
import { runPlanned } from "./day2-kube";
import type { ActionContext } from "./types";

let db: TempDb;
let clusterId: string;
const THIS_RUN = "run_thisdaytworun00";

beforeAll(async () => {
  db = await createTempDb();
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "day2-locks", hosts: 3 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } })).id;
});
afterAll(async () => db?.cleanup());

function context(executor: RecordingExecutor) {
  const emitted: { type: string; data: Record<string, unknown> }[] = [];
  const host = { id: "host_m1", name: "master-1", role: "master" as const, address: "192.0.2.11", target: { id: "master-1", address: "192.0.2.11", user: "root", auth: { kind: "agent" as const }, hostKey: {} } };
  const planned = { key: "etcd/master-1", title: "Remove etcd member master-1", host: "master-1", files: [], exec: [{ id: "release-address", argv: locked(THIS_RUN, ADDRESS_SCRIPT, ["leave"]) }], timeoutMs: 60_000 } as unknown as PlannedStep;
  const ctx = { runId: THIS_RUN, runType: "remove", planned, host, hosts: [host], executor, signal: new AbortController().signal, emit: async (type: string, data: Record<string, unknown>) => void emitted.push({ type, data }) } as unknown as ActionContext;
  return { ctx, emitted, argv: planned.exec![0]!.argv };
}

async function runWithStatus(status: string): Promise<string> {
  const id = `run_${status.padEnd(16, "x")}`;
  await getDb().run.create({ data: { id, clusterId, type: "upgrade", status } });
  return id;
}

describe("a locked day-2 command", () => {
  it("takes over the lock a finished run left: that run's release, then the planned command again", async () => {
    const finished = await runWithStatus("failed");
    const executor = new RecordingExecutor();
    executor.locks.set("master-1", finished);
    const { ctx, emitted, argv } = context(executor);
    const r = await runPlanned(ctx, ctx.planned.exec![0]!);
    expect(r.exitCode).toBe(0);
    expect(executor.runs.map((c) => c.argv[3])).toEqual(["bootdeck", "bootdeck-unlock", "bootdeck"]);
    expect(executor.runs[1]!.argv[4]).toBe(finished);
    expect(executor.runs[2]!.argv).toEqual(argv);
    expect(executor.locks.get("master-1")).toBe(THIS_RUN);
    expect(emitted).toEqual([{ type: "host.lock-taken-over", data: expect.objectContaining({ host: "master-1", from: finished, status: "failed" }) }]);
  });

  it("refuses a lock held by a run that is still going, and says which", async () => {
    const going = await runWithStatus("running");
    const executor = new RecordingExecutor();
    executor.locks.set("master-1", going);
    const { ctx } = context(executor);
    await expect(runPlanned(ctx, ctx.planned.exec![0]!)).rejects.toThrow(`master-1 is locked by run ${going}, which is running: wait for it or cancel it`);
    expect(executor.locks.get("master-1")).toBe(going);
  });
});
