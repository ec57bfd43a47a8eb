import { describe, expect, test } from "vitest";
import { runDocumentTitle, runNotification } from "./run-notice";

const run = (status: string, message?: string) => ({
  id: "run_x",
  type: "bootstrap",
  status,
  clusterName: "lab-dev",
  steps: [
    { status: "done", error: null, startedAt: "2026-12-06T10:00:00Z" },
    { status: status === "running" ? "running" : "done", error: null, startedAt: "2026-12-06T10:00:00Z" },
  ],
  summary: message ? { message } : null,
});

describe("the tab's title", () => {
  test("says the state first, so a background tab shows it", () => {
    expect(runDocumentTitle(run("running"))).toBe("▶ 1/2 · Bootstrap cluster · lab-dev — Bootdeck");
    expect(runDocumentTitle(run("needs-decision"))).toBe("? Needs a decision · Bootstrap cluster · lab-dev — Bootdeck");
    expect(runDocumentTitle(run("succeeded"))).toBe("✓ Succeeded · Bootstrap cluster · lab-dev — Bootdeck");
  });
});

describe("the notification", () => {
  test("when the run stops: its result and outcome line", () => {
    expect(runNotification(run("failed", "failed on 1 of 3 hosts: worker-2"))).toEqual({ title: "Bootstrap cluster of lab-dev failed", body: "failed on 1 of 3 hosts: worker-2" });
    expect(runNotification(run("needs-decision"))?.title).toBe("Bootstrap cluster of lab-dev needs a decision");
  });

  test("none while it runs or before it starts", () => {
    expect(runNotification(run("running"))).toBeNull();
    expect(runNotification(run("planned"))).toBeNull();
  });
});
