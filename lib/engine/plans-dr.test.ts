// The disaster-recovery plans as data: what each step sends, on which host, in which order.
import { describe, expect, it } from "vitest";
import { validateClusterDefinition, type ClusterDefinition } from "../cluster/definition";
import { exampleDefinition } from "../cluster/example";
import { shellCommand } from "../ssh/quote";
import { parseSnapshotReport, SNAPSHOT_SAVE_SCRIPT } from "./actions/dr-scripts";
import { buildBackupPlan, snapshotPath } from "./plans-dr";

function def(hosts = 5): ClusterDefinition {
  const v = validateClusterDefinition(exampleDefinition({ name: "dr", hosts }));
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.definition;
}

describe("backup plan", () => {
  const plan = buildBackupPlan(def(), "run_AAAAAAAAAAAAAAAA", { backupId: "bk_BBBBBBBBBBBBBBBB", trigger: "manual", retention: { keepLast: 14, keepDays: 30 } });
  const step = plan.phases[0]!.steps[0]!;

  it("tries the masters in order: save, fetch and discard on each, as argument vectors", () => {
    expect(plan.runType).toBe("backup");
    expect(step).toMatchObject({ key: "snapshot/cluster", action: "etcd-snapshot", host: null, params: { backupId: "bk_BBBBBBBBBBBBBBBB", trigger: "manual" } });
    const file = snapshotPath("run_AAAAAAAAAAAAAAAA");
    expect(file).toBe("/var/lib/etcd/bootdeck-snapshot-run_AAAAAAAAAAAAAAAA.db");
    expect(step.exec!.map((e) => `${e.host} ${e.id}`)).toEqual(["master-1 save", "master-1 fetch", "master-1 discard", "master-2 save", "master-2 fetch", "master-2 discard", "master-3 save", "master-3 fetch", "master-3 discard"]);
    expect(step.exec![0]!.argv).toEqual(["sh", "-c", SNAPSHOT_SAVE_SCRIPT, "bootdeck-snapshot", file]);
    expect(step.exec![1]!.argv).toEqual(["cat", "--", file]);
    expect(step.exec![2]!.argv).toEqual(["rm", "-f", "--", file]);
  });

  it("shows each command as the host receives it, and what Bootdeck does with the bytes", () => {
    expect(step.commands[0]).toBe(`on master-1: ${shellCommand(step.exec![0]!.argv)}`);
    expect(step.commands.at(-2)).toMatch(/encrypted with a new data key into the data directory as bk_BBBBBBBBBBBBBBBB/);
    expect(step.commands.at(-1)).toMatch(/the newest 14 backups stay, older ones go after 30 days/);
  });
});

describe("the snapshot script's report", () => {
  it("reads etcdutl's status (a revision beyond 2^53 kept as text) and the host's checksum and size", () => {
    const out = `bootdeck-snapshot-status {"hash":3172466034,"revision":18446744073709551000,"totalKey":10234,"totalSize":24301568,"version":"3.6.0"}\nbootdeck-snapshot-file ${"ab".repeat(32)} 24301600\n`;
    expect(parseSnapshotReport(out)).toEqual({ sha256: "ab".repeat(32), size: 24301600, revision: "18446744073709551000", totalKeys: 10234, etcdVersion: "3.6.0" });
  });

  it("refuses a report without a revision or a checksum", () => {
    expect(() => parseSnapshotReport(`bootdeck-snapshot-status \nbootdeck-snapshot-file ${"ab".repeat(32)} 1\n`)).toThrow(/did not report a revision/);
    expect(() => parseSnapshotReport(`bootdeck-snapshot-status {"revision":5}\n`)).toThrow(/checksum and size were not reported/);
  });
});
