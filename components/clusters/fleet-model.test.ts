import { describe, expect, test } from "vitest";
import type { FleetRow } from "@/lib/clusters/fleet";
import { allClusters, attentionReasons, backupState, certState, filterFleet } from "./fleet-model";

const now = Date.parse("2026-12-01T12:00:00Z");
const days = (n: number) => new Date(now + n * 86_400_000).toISOString();
const hours = (n: number) => new Date(now + n * 3_600_000).toISOString();
const row = (name: string, extra: Partial<FleetRow> = {}): FleetRow => ({
  id: `cl_${name}`,
  name,
  kubernetesVersion: "v1.32.9",
  masters: 3,
  workers: 3,
  createdAt: days(-10),
  updatedAt: days(-1),
  busy: false,
  deployed: true,
  nodes: { ready: 6, total: 6, seenAt: days(0) },
  lastRun: { id: `run_${name}`, type: "bootstrap", status: "succeeded", at: days(-1), outcome: "all 6 hosts done" },
  certificates: { notAfter: days(300), assetSetVersion: 1 },
  backup: { lastAt: hours(-3), intervalMinutes: null },
  ...extra,
});

describe("health", () => {
  test("certificates: expired, expiring within 30 days, fine", () => {
    expect(certState(days(-1), now)).toBe("expired");
    expect(certState(days(29), now)).toBe("soon");
    expect(certState(days(31), now)).toBe("ok");
  });

  test("a cluster needs attention for a failed or stopped last run, nodes not Ready, certificates expiring", () => {
    expect(attentionReasons(row("ok"), now)).toEqual([]);
    expect(attentionReasons(row("a", { lastRun: { ...row("a").lastRun!, status: "needs-decision" }, nodes: { ready: 5, total: 6, seenAt: days(0) }, certificates: { notAfter: days(3), assetSetVersion: 2 } }), now)).toEqual([
      "a run needs a decision",
      "1 node not Ready",
      "certificates expire soon",
    ]);
  });
});

describe("the last backup", () => {
  test("without a schedule, a backup over a day old is old", () => {
    expect(backupState({ lastAt: hours(-3), intervalMinutes: null }, now)).toBe("ok");
    expect(backupState({ lastAt: hours(-23), intervalMinutes: null }, now)).toBe("ok");
    expect(backupState({ lastAt: hours(-25), intervalMinutes: null }, now)).toBe("old");
  });

  test("with a schedule, a backup older than its interval (and the time the next one takes) is old", () => {
    expect(backupState({ lastAt: hours(-3), intervalMinutes: 60 }, now)).toBe("old");
    // Every hour: the next one is under way 80 minutes after the last.
    expect(backupState({ lastAt: hours(-80 / 60), intervalMinutes: 60 }, now)).toBe("ok");
    // Every two days: 30 hours is fine, though it would be old without a schedule.
    expect(backupState({ lastAt: hours(-30), intervalMinutes: 2 * 24 * 60 }, now)).toBe("ok");
  });

  test("no backup at all is 'never', not old", () => {
    expect(backupState({ lastAt: null, intervalMinutes: null }, now)).toBe("never");
    expect(backupState({ lastAt: null, intervalMinutes: 60 }, now)).toBe("never");
  });

  test("an old backup needs attention; none at all does not (nothing may run there yet)", () => {
    expect(attentionReasons(row("a", { backup: { lastAt: hours(-30), intervalMinutes: null } }), now)).toEqual(["no backup for over a day"]);
    expect(attentionReasons(row("b", { backup: { lastAt: hours(-7), intervalMinutes: 360 } }), now)).toEqual(["backup overdue"]);
    expect(attentionReasons(row("c", { backup: { lastAt: null, intervalMinutes: null } }), now)).toEqual([]);
  });
});

describe("search and filters", () => {
  const rows = [row("prod-eu"), row("prod-us", { lastRun: { ...row("x").lastRun!, status: "failed" } }), row("staging", { lastRun: null, nodes: null, kubernetesVersion: "v1.31.13" }), row("edge", { busy: true })];
  test("search by name; filter by state and version", () => {
    expect(filterFleet(rows, { ...allClusters, query: "PROD" }, now).map((r) => r.name)).toEqual(["prod-eu", "prod-us"]);
    expect(filterFleet(rows, { ...allClusters, state: "attention" }, now).map((r) => r.name)).toEqual(["prod-us"]);
    expect(filterFleet(rows, { ...allClusters, state: "never-run" }, now).map((r) => r.name)).toEqual(["staging"]);
    expect(filterFleet(rows, { ...allClusters, state: "running" }, now).map((r) => r.name)).toEqual(["edge"]);
    expect(filterFleet(rows, { ...allClusters, version: "v1.31.13" }, now).map((r) => r.name)).toEqual(["staging"]);
  });
});
