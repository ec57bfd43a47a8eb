// The disaster the bucket exists for, on a lab of real Kubernetes (a master and a worker) and a real S3
// server (SeaweedFS on loopback): a scheduled backup lands in the bucket, encrypted; the dashboard's
// machine is lost (its database and data directory deleted); a fresh dashboard (another database,
// another master key) given only the bucket and the backup key lists the snapshot, takes the cluster
// over and restores it from the bucket: an object deleted after the snapshot is back, one created after
// it is gone, every node re-registers. Brings up its own lab ("bucket").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { labClusterDefinition, labClusterSecrets } from "../../lab/cluster-yaml";
import { labDown, labUp } from "../../lab/lab";
import { startS3Server, type S3TestServer } from "../../lab/s3-server";
import type { LabState } from "../../lab/state";
import { labKube, type LabKube } from "../../test/lab-kube";
import { configMap, outcome, restoreChecked, runHere, summaryOf, type RecoveryCluster } from "../../test/lab-recovery";
import { createTempDb, type TempDb } from "../../test/temp-db";
import { validateClusterDefinition, type ClusterDefinitionInput } from "../cluster/definition";
import { defaultKubernetesVersion } from "../cluster/versions";
import { createCluster } from "../clusters/repository";
import { listRunEvents } from "../engine/events";
import { executeRun } from "../engine/runner";
import { backupKeyText, clusterBackupKey, parseBackupKey } from "./backup-key";
import { importClusterFromBucket, listRemoteSnapshots } from "./remote";
import { getObjectBuffer, listObjects, type S3Target } from "./s3";
import { reconcileScheduledRuns, startDueBackups } from "../engine/backup-schedule";
import { getBackupPolicy, listBackups, setBackupPolicy } from "./store";
import { setTarget, testStoredTarget } from "./target";

const LAB = "bucket";
let lab: LabState;
let kube: LabKube;
let s3: S3TestServer;
let db: TempDb | undefined;
let target: S3Target;

beforeAll(async () => {
  labDown(LAB, () => undefined);
  [lab, s3] = await Promise.all([labUp({ name: LAB, masters: 1, workers: 1, kubernetesVersions: [defaultKubernetesVersion], log: () => undefined }), startS3Server()]);
  kube = labKube(lab);
  await s3.createBucket("cluster-backups");
  target = { endpoint: s3.endpoint, region: "us-east-1", bucket: "cluster-backups", prefix: "dr/", forcePathStyle: true, ...s3.admin };
  db = await createTempDb();
}, 40 * 60_000);

afterAll(async () => {
  if (!process.env.BOOTDECK_KEEP_LAB) labDown(LAB, () => undefined);
  await db?.cleanup();
  await s3?.stop();
});

describe("restore onto a new dashboard from the bucket", () => {
  let clusterId: string;
  let backupId: string;
  let keyText: string;

  it("bootstraps a master and a worker on the first dashboard", async () => {
    const input = labClusterDefinition(lab, "from-bucket").definition as ClusterDefinitionInput;
    const v = validateClusterDefinition(input);
    if (!v.ok) throw new Error(JSON.stringify(v.errors));
    clusterId = (await createCluster({ definition: v.definition, secrets: labClusterSecrets(lab) })).id;
    expect((await runHere(clusterId, { type: "bootstrap", acceptWarnings: true })).status).toBe("succeeded");
  }, 15 * 60_000);

  it("a scheduled backup is copied to the bucket, verified there, and the bucket reveals nothing", async () => {
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
    await db!.cleanup(); // the database, the data directory with every local snapshot, the master key: gone
    db = await createTempDb();

    const listed = await listRemoteSnapshots(target, parseBackupKey(keyText));
    expect(listed.snapshots.map((s) => [s.clusterId, s.clusterName, s.backupId])).toEqual([[clusterId, "from-bucket", backupId]]);
    await importClusterFromBucket({ target, key: parseBackupKey(keyText), clusterId, backupId, by: "test" });
    expect((await listBackups({ clusterId }))[0]?.copies.local).toBe(false);

    const c: RecoveryCluster = { lab, kube, clusterId, masters: ["master-1"], nodes: 2 };
    const r = await restoreChecked(c, backupId, { deleted: "deleted-after-backup", created: "created-after-backup" });
    const progress = (await listRunEvents({ runId: r.runId, limit: 100_000 })).filter((e) => e.type === "step.progress").map((e) => String(e.data.message));
    expect(progress.some((m) => m.startsWith(`fetching backup ${backupId} from s3://cluster-backups/dr/${clusterId}/`))).toBe(true);
    expect((await listBackups({ clusterId }))[0]?.copies.local).toBe(true);
  }, 30 * 60_000);
});
