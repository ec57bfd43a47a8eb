import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { exampleDefinition } from "../cluster/example";
import { createCluster } from "../clusters/repository";
import { getDb } from "../db/client";
import { appendRunEvent } from "./events";
import type { RunPlan } from "./plan";
import { createRun } from "./runs";
import { JOURNAL_MARKER } from "./schemas";
import { getStepOutput, splitStoredOutput } from "./step-output";
import { testKeyPair } from "../../test/ssh-key";

let db: TempDb;
let clusterId: string;

// Two steps whose keys share a prefix, so a loose match on one key would pick up the other's lines.
const plan: RunPlan = {
  runType: "bootstrap",
  phases: [
    {
      id: "kubelet",
      title: "Kubelet",
      steps: ["worker-1", "worker-10"].map((host) => ({ key: `kubelet/${host}`, phase: "kubelet", action: "kubelet", title: `Kubelet on ${host}`, host, files: [], commands: [], dependsOn: [], timeoutMs: 60_000 })),
    },
  ],
};

beforeAll(async () => {
  db = await createTempDb();
  const key = testKeyPair();
  clusterId = (await createCluster({ definition: exampleDefinition({ name: "outputs", hosts: 2 }), secrets: { "admin-key": { privateKey: key.private } } })).id;
});
afterAll(async () => db?.cleanup());

const out = (runId: string, step: string, ...lines: [stream: "stdout" | "stderr", line: string][]) => appendRunEvent({ runId, type: "step.output", data: { step, lines: lines.map(([stream, line]) => ({ stream, line })) } });

describe("getStepOutput", () => {
  test("every line of the step from the event log, in order, with the run's last seq, a later attempt's note, and the journal after the marker", async () => {
    const runId = await createRun({ clusterId, type: "bootstrap", plan });
    const step = await getDb().step.findFirstOrThrow({ where: { runId, key: "kubelet/worker-1" } });
    await appendRunEvent({ runId, type: "step.started", stepId: step.id, data: { key: step.key, attempt: 1 } });
    await out(runId, "kubelet/worker-1", ["stdout", "one"], ["stderr", "two"]);
    await out(runId, "kubelet/worker-10", ["stdout", "not mine"]);
    await appendRunEvent({ runId, type: "step.started", stepId: step.id, data: { key: step.key, attempt: 2 } });
    await out(runId, "kubelet/worker-1", ["stdout", "three"]);
    const last = await out(runId, "kubelet/worker-1", ["stderr", "token=abcdef0123456789 password: hunter22"]);
    await getDb().step.update({ where: { id: step.id }, data: { status: "failed", output: ["three", "! last", JOURNAL_MARKER, "journal: a", "journal: b"].join("\n") } });

    const o = await getStepOutput({ runId, stepKey: "kubelet/worker-1" });
    expect(o.lastSeq).toBe(last.seq);
    expect(o.status).toBe("failed");
    expect(o.source).toBe("events");
    expect(o.truncated).toBe(false);
    expect(o.lines.map((l) => [l.stream, l.line])).toEqual([
      ["stdout", "one"],
      ["stderr", "two"],
      ["note", "── attempt 2 ──"],
      ["stdout", "three"],
      ["stderr", "token=[REDACTED] password: [REDACTED]"],
    ]);
    expect(o.lines.at(-1)!.seq).toBe(last.seq);
    expect(o.journal).toEqual(["journal: a", "journal: b"]);
  });

  test("keeps the last lines when there are more than the bound, and says so", async () => {
    const runId = await createRun({ clusterId, type: "bootstrap", plan });
    for (let i = 0; i < 12; i++) await out(runId, "kubelet/worker-1", ["stdout", `a${i}`], ["stdout", `b${i}`]);
    const o = await getStepOutput({ runId, stepKey: "kubelet/worker-1", maxLines: 5 });
    expect(o.lines.map((l) => l.line)).toEqual(["b9", "a10", "b10", "a11", "b11"]);
    expect(o.truncated).toBe(true);
    expect((await getStepOutput({ runId, stepKey: "kubelet/worker-1", maxLines: 24 })).truncated).toBe(false);
  });

  test("without lines in the event log the stored tail stands in (stderr from its '! ' prefix)", async () => {
    const runId = await createRun({ clusterId, type: "bootstrap", plan });
    await getDb().step.updateMany({ where: { runId, key: "kubelet/worker-10" }, data: { status: "done", output: "ok\n! warn" } });
    const o = await getStepOutput({ runId, stepKey: "kubelet/worker-10" });
    expect(o).toMatchObject({ source: "tail", journal: [], lines: [{ stream: "stdout", line: "ok" }, { stream: "stderr", line: "warn" }] });
  });

  test("an unknown run or step is not found", async () => {
    const runId = await createRun({ clusterId, type: "bootstrap", plan });
    await expect(getStepOutput({ runId, stepKey: "kubelet/nope" })).rejects.toMatchObject({ status: 404 });
    await expect(getStepOutput({ runId: "run_AAAAAAAAAAAAAAAA", stepKey: "kubelet/worker-1" })).rejects.toMatchObject({ status: 404 });
  });
});

test("splitStoredOutput: the tail, then the journal after its marker", () => {
  expect(splitStoredOutput(null)).toEqual([[], []]);
  expect(splitStoredOutput("a\nb")).toEqual([["a", "b"], []]);
  expect(splitStoredOutput(`a\n${JOURNAL_MARKER}\nj`)).toEqual([["a"], ["j"]]);
});
