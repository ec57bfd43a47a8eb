import { describe, expect, test } from "vitest";
import { forbidden } from "../http/errors";
import { permissionsToRun, retryRefusal, finishedStatus, runRefusal } from "./run-rules";
import { WARNINGS_NEED_DECISION } from "../clusters/host-state";

describe("run rules", () => {
  test("a reset needs host:reset besides run:start", () => {
    expect(permissionsToRun("reset")).toEqual(["run:start", "host:reset"]);
    expect(permissionsToRun("bootstrap")).toEqual(["run:start"]);
  });

  test.each([
    ["admin", "reset", "cancelled", undefined],
    ["lead", "reset", "failed", "retry a host reset"],
    ["lead", "bootstrap", "cancelled", undefined],
    ["support", "bootstrap", "failed", undefined],
    ["support", "check", "failed", undefined],
    ["support", "check", "cancelled", "retry a cancelled run"],
    ["support", "bootstrap", "cancelled", "retry a cancelled run"],
    ["support", "reset", "failed", "retry a host reset"],
    ["nobody", "check", "failed", "retry runs"],
  ])("%s retrying a %s run that %s: %s", (role, type, status, refusal) => {
    expect(retryRefusal(role, { type, status })).toBe(refusal);
  });
});

describe("how a stopped run ends", () => {
  const decision = `preflight on worker-1: warnings ${WARNINGS_NEED_DECISION}: cgroup v1`;
  test("stopped only by warnings that wait for a decision: needs a decision, not failed", () => {
    expect(finishedStatus({ cancelled: false, stopped: true, failedErrors: [decision, decision.replace("worker-1", "master-1")] })).toBe("needs-decision");
  });
  test("a warning on one host and an error on another: failed", () => {
    expect(finishedStatus({ cancelled: false, stopped: true, failedErrors: [decision, "preflight failed on worker-2: swap is on"] })).toBe("failed");
  });
  test("cancelled wins; nothing failed and nothing stopped: succeeded", () => {
    expect(finishedStatus({ cancelled: true, stopped: false, failedErrors: [decision] })).toBe("cancelled");
    expect(finishedStatus({ cancelled: false, stopped: false, failedErrors: [] })).toBe("succeeded");
    expect(finishedStatus({ cancelled: false, stopped: true, failedErrors: [] })).toBe("failed");
  });
  test("support may not retry a run that waits for a decision; admins and leads may", () => {
    expect(retryRefusal("support", { type: "bootstrap", status: "needs-decision" })).toMatch(/decision/);
    expect(retryRefusal("lead", { type: "bootstrap", status: "needs-decision" })).toBeUndefined();
  });
});

describe("what a refused role is told, as a sentence", () => {
  test.each([
    ["bootstrap", "Your role may not start runs"],
    ["join", "Your role may not start runs"],
    ["reset", "Your role may not reset hosts"],
    ["remove", "Your role may not remove hosts"],
    ["backup", "Your role may not take backups"],
    ["restore", "Your role may not restore a cluster from a backup"],
    ["recover", "Your role may not recover a control plane"],
    ["rotate-certs", "Your role may not rotate certificates"],
  ])("planning a %s run: %s", (type, message) => {
    expect(forbidden(runRefusal(type)).message).toBe(message);
  });

  test.each([
    ["support", "backup", "Your role may not retry a backup"],
    ["support", "restore", "Your role may not retry a restore from a backup"],
    ["lead", "recover", "Your role may not retry a control plane recovery"],
    ["lead", "rotate-certs", "Your role may not retry a certificate rotation"],
    ["lead", "reset", "Your role may not retry a host reset"],
    ["support", "remove", "Your role may not retry a host removal"],
    ["support", "check", "Your role may not retry a cancelled run"],
  ])("%s retrying a %s run: %s", (role, type, message) => {
    expect(forbidden(retryRefusal(role, { type, status: "cancelled" })!).message).toBe(message);
  });
});
