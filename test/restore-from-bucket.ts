// The disaster the bucket exists for, on a lab of real Kubernetes and a real S3 server (SeaweedFS on
// loopback): a scheduled backup lands in the bucket, encrypted; the dashboard's machine is lost (its
// database and data directory deleted); a fresh dashboard (another database, another master key) given
// only the bucket and the backup key lists the snapshot, takes the cluster over and restores it from the
// bucket: an object deleted after the snapshot is back, one created after it is gone, every node
// re-registers. It starts from a cluster another lab suite bootstrapped (the crash points'), so that no
// bootstrap is made twice for it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startS3Server, type S3TestServer } from "../lab/s3-server";
import type { LabState } from "../lab/state";
import { labKube, type LabKube } from "./lab-kube";
import { configMap, outcome, restoreChecked, summaryOf, type RecoveryCluster } from "./lab-recovery";
import { listRunEvents } from "../lib/engine/events";
import { executeRun } from "../lib/engine/runner";
import { backupKeyText, clusterBackupKey, parseBackupKey } from "../lib/backups/backup-key";
import { importClusterFromBucket, listRemoteSnapshots } from "../lib/backups/remote";
import { getObjectBuffer, listObjects, type S3Target } from "../lib/backups/s3";
import { reconcileScheduledRuns, startDueBackups } from "../lib/engine/backup-schedule";
import { getBackupPolicy, listBackups, setBackupPolicy } from "../lib/backups/store";
import { setTarget, testStoredTarget } from "../lib/backups/target";

/** The bootstrapped cluster the scenario starts from, and how its dashboard's machine is lost. */
export type BucketScenarioCluster = {
  lab: LabState;
  clusterId: string;
  clusterName: string;
  masters: string[];
  nodes: number;
  /** Deletes the dashboard's database, data directory and master key, and starts an empty one. */
  loseDashboard: () => Promise<void>;
};

/** Registers the scenario's tests; `cluster` is read once they run, after the suite's bootstrap. */
export function restoreFromBucketScenario(cluster: () => BucketScenarioCluster): void {
  let s3: S3TestServer;
  let target: S3Target;
  let kube: LabKube;

  describe("restore onto a new dashboard from the bucket", () => {
    let clusterId: string;
    let backupId: string;
    let keyText: string;

    beforeAll(async () => {
      s3 = await startS3Server();
      await s3.createBucket("cluster-backups");
      target = { endpoint: s3.endpoint, region: "us-east-1", bucket: "cluster-backups", prefix: "dr/", forcePathStyle: true, ...s3.admin };
    }, 5 * 60_000);

    afterAll(async () => {
      await s3?.stop();
    });

    it("a scheduled backup is copied to the bucket, verified there, and the bucket reveals nothing", async () => {
      ({ clusterId } = cluster());
      kube = labKube(cluster().lab);
      await setTarget({ clusterId, body: { ...target, secretAccessKey: target.secretAccessKey }, by: "test" });
      expect(await testStoredTarget(clusterId)).toMatchObject({ ok: true });
      kube.kubectl("apply -f -", { input: configMap("deleted-after-backup") });
      await setBackupPolicy({ clusterId, body: { enabled: true, intervalMinutes: 60, keepLast: 3, keepDays: 7 }, by: "test" });
      const [runId] = await startDueBackups(new Date());
      expect(runId).toBeTruthy();
      expect(await outcome(runId!, await executeRun(runId!, { workerId: "test" }))).toBe("succeeded");
      await reconcileScheduledRuns();
      expect((await getBackupPolicy({ clusterId })).health.state).toBe("ok");
      const [b] = await listBackups({ clusterId });
      backupId = b!.id;
      expect(b).toMatchObject({ trigger: "schedule", copies: { local: true, bucket: { where: expect.stringContaining(`s3://cluster-backups/dr/${clusterId}/`) } } });
      expect(await summaryOf(runId!, "upload/bucket")).toMatch(new RegExp(`^backup ${backupId} copied to s3://cluster-backups/dr/${clusterId}/.* verified \\(the bucket's ETag is the one computed here\\)`));
      const keys = (await listObjects(target, `dr/${clusterId}/`)).map((o) => o.key);
      expect(keys.filter((k) => k.includes(backupId))).toHaveLength(3);
      // The snapshot holds the ConfigMap's name in etcd; no object in the bucket shows it.
      for (const k of keys) expect((await getObjectBuffer(target, k, 256 * 1024 * 1024)).includes(Buffer.from("deleted-after-backup"))).toBe(false);
      keyText = backupKeyText(await clusterBackupKey(clusterId));
    }, 10 * 60_000);

    it("the first dashboard's machine is lost; a fresh one given the bucket and the backup key restores the cluster from it", async () => {
      kube.kubectl("delete configmap deleted-after-backup");
      kube.kubectl("apply -f -", { input: configMap("created-after-backup") });
      await cluster().loseDashboard(); // the database, the data directory with every local snapshot, the master key: gone

      const listed = await listRemoteSnapshots(target, parseBackupKey(keyText));
      expect(listed.snapshots.map((s) => [s.clusterId, s.clusterName, s.backupId])).toEqual([[clusterId, cluster().clusterName, backupId]]);
      await importClusterFromBucket({ target, key: parseBackupKey(keyText), clusterId, backupId, by: "test" });
      expect((await listBackups({ clusterId }))[0]?.copies.local).toBe(false);

      const { lab, masters, nodes } = cluster();
      const c: RecoveryCluster = { lab, kube, clusterId, masters, nodes };
      const r = await restoreChecked(c, backupId, { deleted: "deleted-after-backup", created: "created-after-backup" });
      const progress = (await listRunEvents({ runId: r.runId, limit: 100_000 })).filter((e) => e.type === "step.progress").map((e) => String(e.data.message));
      expect(progress.some((m) => m.startsWith(`fetching backup ${backupId} from s3://cluster-backups/dr/${clusterId}/`))).toBe(true);
      expect((await listBackups({ clusterId }))[0]?.copies.local).toBe(true);
    }, 30 * 60_000);
  });
}
