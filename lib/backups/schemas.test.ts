// When a backup schedule counts as failing (the cluster page's banner, the fleet list's badge).
import { describe, expect, it } from "vitest";
import { scheduleHealth } from "./schemas";

const now = new Date("2026-12-10T12:00:00Z");
const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
const base = { enabled: true, intervalMinutes: 60, lastStatus: null, lastError: null, lastSuccessAt: null, lastAttemptAt: null, failures: 0, enabledSince: ago(10) };

describe("scheduleHealth", () => {
  it("is off without a schedule, pending before the first attempt", () => {
    expect(scheduleHealth({ ...base, enabled: false }, now).state).toBe("off");
    expect(scheduleHealth(base, now)).toEqual({ state: "pending", message: "every 60 minutes; none taken yet" });
  });

  it("is ok while the last scheduled backup succeeded within two intervals", () => {
    expect(scheduleHealth({ ...base, lastStatus: "succeeded", lastAttemptAt: ago(30), lastSuccessAt: ago(30) }, now).state).toBe("ok");
    expect(scheduleHealth({ ...base, lastStatus: "running", lastAttemptAt: ago(1), lastSuccessAt: ago(70) }, now).state).toBe("ok");
  });

  it("fails on a failed or skipped attempt, with the reason and the count", () => {
    const failed = scheduleHealth({ ...base, lastStatus: "failed", lastError: "no master could take a snapshot", failures: 3, lastAttemptAt: ago(1), lastSuccessAt: ago(200) }, now);
    expect(failed).toEqual({ state: "failing", message: "the last scheduled backup failed (3 attempts in a row): no master could take a snapshot" });
    expect(scheduleHealth({ ...base, lastStatus: "skipped", lastError: "Another run (run_x) is in progress", failures: 1, lastAttemptAt: ago(1) }, now).message).toMatch(/could not start: Another run/);
  });

  it("fails when nothing succeeded for two intervals, even while a run hangs", () => {
    expect(scheduleHealth({ ...base, lastStatus: "running", lastAttemptAt: ago(180), lastSuccessAt: ago(180) }, now)).toEqual({ state: "failing", message: "no backup has succeeded for 3 hours (the schedule runs every 60 minutes)" });
    expect(scheduleHealth({ ...base, enabledSince: ago(130) }, now).message).toBe("no scheduled backup has run for 2 hours");
    expect(scheduleHealth({ ...base, enabledSince: ago(110) }, now).state).toBe("pending");
  });
});
