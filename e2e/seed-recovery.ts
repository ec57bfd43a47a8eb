// Seeds the browser tests' database with a cluster whose backups and certificates need attention (no
// lab, no SSH): an asset set whose leaves end in 20 days, a stored backup (a real encrypted file), and a
// schedule whose last backup failed. Prints the ids (JSON). Run with the e2e environment:
//   node --conditions=react-server --import tsx e2e/seed-recovery.ts
import { saveAssetSet } from "../lib/assets/store";
import { renderAssets } from "../lib/assets/render";
import { openSealedWriter } from "../lib/backups/sealed-file";
import { backupRelPath, dataPath, recordBackup } from "../lib/backups/store";
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import { disconnectDb, getDb } from "../lib/db/client";
import { createRun } from "../lib/engine/runs";
import { newId } from "../lib/ids";
import { testKeyPair } from "../test/ssh-key";

export const SNAPSHOT_BYTES = "etcd snapshot bytes for the browser test";

async function main(): Promise<void> {
  const definition = exampleDefinition({ name: "dr-ui", hosts: 4 });
  const { id: clusterId } = await createCluster({ definition, secrets: { "admin-key": { privateKey: testKeyPair().private } } });
  await saveAssetSet({ clusterId, assets: await renderAssets(definition, { leafValidityDays: 20 }), options: { encryptionAlgorithm: "ECDSA-P256", caValidityDays: 3650, leafValidityDays: 20, importedCa: false } });
  // Bootstrapped (its certificates are on its hosts, so they can run out): a bootstrap that succeeded.
  const bootstrapRunId = await createRun({ clusterId, type: "bootstrap", plan: { runType: "bootstrap", phases: [] } });
  await getDb().run.update({ where: { id: bootstrapRunId }, data: { status: "succeeded", startedAt: new Date(Date.now() - 7_200_000), finishedAt: new Date(Date.now() - 7_000_000), summary: JSON.stringify({ message: "all 4 hosts done" }) } });
  const backupId = newId("bk");
  const w = openSealedWriter(dataPath(backupRelPath(clusterId, backupId)), backupId);
  w.stream.write(SNAPSHOT_BYTES);
  await recordBackup({ id: backupId, clusterId, runId: null, trigger: "manual", sealed: await w.finish(), facts: { member: "master-2", revision: "48213", totalKeys: 1234, etcdVersion: "3.6.0" } });
  // The last scheduled attempt failed; the next one is a day away, so the server's schedule starts no run.
  await getDb().backupPolicy.create({
    data: { clusterId, enabled: true, intervalMinutes: 60, keepLast: 14, keepDays: 30, lastStatus: "failed", lastError: "no master could take a snapshot: master-1: no running etcd container", failures: 2, lastAttemptAt: new Date(), nextDueAt: new Date(Date.now() + 86_400_000), updatedBy: "seed" },
  });
  console.log(JSON.stringify({ clusterId, backupId }));
  await disconnectDb();
}

void main();
