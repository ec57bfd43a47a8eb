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

describe("a bucket's settings", () => {
  const base = { endpoint: "https://s3.example:9000/", bucket: "dr-backups", accessKeyId: "AKID", secretAccessKey: "s" };
  it("normalize the endpoint and the prefix, and default to us-east-1 and path-style", async () => {
    const { backupTargetBody } = await import("./schemas");
    expect(backupTargetBody.parse({ ...base, prefix: "site-a/etcd" })).toEqual({ ...base, endpoint: "https://s3.example:9000", prefix: "site-a/etcd/", region: "us-east-1", forcePathStyle: true });
    expect(backupTargetBody.parse({ ...base, endpoint: "" }).endpoint).toBe("");
  });

  it("refuse what is not an S3 address, bucket or prefix", async () => {
    const { backupTargetBody } = await import("./schemas");
    for (const endpoint of ["ftp://x", "https://user:pw@s3.example", "https://s3.example/path", "https://s3.example?x=1", "s3.example"]) expect(backupTargetBody.safeParse({ ...base, endpoint }).success, endpoint).toBe(false);
    for (const bucket of ["UPPER", "a", "-dash", "has_underscore"]) expect(backupTargetBody.safeParse({ ...base, bucket }).success, bucket).toBe(false);
    for (const prefix of ["/abs", "a/../b", "a//b", "./x", "a b"]) expect(backupTargetBody.safeParse({ ...base, prefix }).success, prefix).toBe(false);
  });

  it("refuse a long prefix with a bad last character (a pattern that backtracked would hang here)", async () => {
    const { backupTargetBody } = await import("./schemas");
    expect(backupTargetBody.safeParse({ ...base, prefix: `${"a".repeat(190)}$` }).success).toBe(false);
  });
});
