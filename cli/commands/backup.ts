// bootdeck backup: etcd snapshots from the command line — take one now (run here, with progress lines),
// list them, set the schedule and retention, and write one out as the plain snapshot etcdutl restores;
// the cluster's bucket (set, test, copy to it), its backup key, and on a new dashboard what a bucket
// holds and taking a cluster over from it.
import { createWriteStream, readFileSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import { recordAudit } from "../../lib/audit/record";
import { startBackupRun } from "../../lib/engine/backup-runs";
import { backupKeyText, clusterBackupKey, parseBackupKey } from "../../lib/backups/backup-key";
import { copyBackupToBucket, fetchAndOpenBackup, importClusterFromBucket, listRemoteSnapshots } from "../../lib/backups/remote";
import { backupPolicyBody, backupTargetBody } from "../../lib/backups/schemas";
import { describeTarget, type S3Target } from "../../lib/backups/s3";
import { backupFileName, getBackupOrThrow, getBackupPolicy, listBackups, setBackupPolicy } from "../../lib/backups/store";
import { getTargetView, removeTarget, setTarget, testStoredTarget } from "../../lib/backups/target";
import { findClusterIdByName } from "../../lib/clusters/repository";
import { disconnectDb } from "../../lib/db/client";
import { AppError } from "../../lib/http/errors";
import { follow } from "./apply";
import type { Command } from "./command";
import { cliActor } from "./terminal";

const USAGE = `Usage:
  bootdeck backup create CLUSTER                 take an etcd snapshot now (runs here, one line per step)
  bootdeck backup list CLUSTER                   stored snapshots, newest first, and the schedule
  bootdeck backup schedule CLUSTER --every 6h [--keep 14] [--keep-days 30]
  bootdeck backup schedule CLUSTER --off         snapshots on demand only
  bootdeck backup download CLUSTER BACKUP-ID [--output FILE]
                                                 the plain snapshot (checked whole first), for etcdutl
  bootdeck backup target CLUSTER [BUCKET-OPTIONS | --remove]
                                                 show, set or remove the S3-compatible bucket every backup is copied to
  bootdeck backup test-target CLUSTER            list the bucket, write and delete a probe object
  bootdeck backup upload CLUSTER BACKUP-ID       copy a stored backup to the bucket now (verified there)
  bootdeck backup export-key CLUSTER             print the cluster's backup key (audited): keep it off this machine
  bootdeck backup remote list BUCKET-OPTIONS --backup-key-file FILE
                                                 on a new dashboard: the snapshots in a bucket that the key opens
  bootdeck backup remote import CLUSTER-ID BUCKET-OPTIONS --backup-key-file FILE [--backup BACKUP-ID]
                                                 take the cluster over from its bucket; then bootdeck restore NAME BACKUP-ID

BUCKET-OPTIONS: --endpoint URL --bucket NAME [--region us-east-1] [--prefix P/] [--virtual-hosted]
                --access-key-id ID --secret-key-file FILE (the secret key alone in the file)

Snapshots are encrypted at rest in the data directory; the dashboard's engine (or bootdeck worker)
takes the scheduled ones. See docs/recovery.md.`;


/** "6h", "30m", "2d", "90" (minutes) → minutes. */
export function parseEvery(text: string): number {
  const m = /^(\d+)\s*(m|min|h|d)?$/.exec(text.trim());
  if (!m) throw new AppError(2, "usage", `--every ${text}: give minutes, hours or days, e.g. 30m, 6h, 1d`);
  const n = Number(m[1]);
  return m[2] === "h" ? n * 60 : m[2] === "d" ? n * 1440 : n;
}

const flag = (argv: string[], name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};

async function clusterId(name: string | undefined): Promise<string> {
  if (!name) throw new AppError(2, "usage", USAGE);
  const id = await findClusterIdByName({ name });
  if (!id) throw new AppError(1, "not_found", `no cluster named "${name}"`);
  return id;
}

const readSecretFile = (file: string | undefined, what: string) => {
  if (!file) throw new AppError(2, "usage", `${what} is required\n\n${USAGE}`);
  try {
    return readFileSync(file, "utf8").trim();
  } catch (err) {
    throw new AppError(1, "bad_file", `cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
};

/** The bucket options; the secret key only when asked for (an update may keep the stored one). */
function bucketOptions(argv: string[], needSecret: boolean) {
  const secretFile = flag(argv, "--secret-key-file");
  return backupTargetBody.parse({
    endpoint: flag(argv, "--endpoint") ?? "",
    region: flag(argv, "--region"),
    bucket: flag(argv, "--bucket"),
    prefix: flag(argv, "--prefix"),
    forcePathStyle: !argv.includes("--virtual-hosted"),
    accessKeyId: flag(argv, "--access-key-id"),
    secretAccessKey: secretFile || needSecret ? readSecretFile(secretFile, "--secret-key-file") : undefined,
  });
}

const fullTarget = (argv: string[]): S3Target => {
  const b = bucketOptions(argv, true);
  return { ...b, secretAccessKey: b.secretAccessKey! };
};

async function remote(argv: string[]): Promise<number> {
  const [what, ...rest] = argv;
  const t = fullTarget(rest);
  const key = parseBackupKey(readSecretFile(flag(rest, "--backup-key-file"), "--backup-key-file"));
  if (what === "list") {
    const r = await listRemoteSnapshots(t, key);
    console.log(`${describeTarget(t)}, prefix "${t.prefix}": ${r.snapshots.length} snapshot${r.snapshots.length === 1 ? "" : "s"} this key opens${r.unreadable.length ? `, ${r.unreadable.length} it does not (other clusters')` : ""}`);
    for (const s of r.snapshots) console.log(`${s.clusterId}  ${s.clusterName.padEnd(16)}  ${s.backupId}  ${s.createdAt}  revision ${s.revision}  ${size(s.size).padStart(10)}  etcd ${s.etcdVersion}  ${s.kubernetesVersion}`);
    return 0;
  }
  if (what === "import") {
    const clusterId = rest[0];
    if (!clusterId || clusterId.startsWith("-")) throw new AppError(2, "usage", USAGE);
    const r = await importClusterFromBucket({ target: t, key, clusterId, backupId: flag(rest, "--backup"), by: cliActor() });
    await recordAudit({ action: "backup.import-cluster", username: cliActor(), target: r.clusterId, details: { bucket: t.bucket, endpoint: t.endpoint, fromBackup: r.fromBackup, backups: r.backups, via: "cli" } });
    console.log(`cluster ${r.name} (${r.clusterId}) taken over from ${describeTarget(t)}: its definition, SSH credentials, host-key pins and assets from beside ${r.fromBackup}, and ${r.backups} snapshot${r.backups === 1 ? "" : "s"} (fetched from the bucket when used).`);
    console.log(`Its schedule is off: turn it on (bootdeck backup schedule ${r.name} --every 6h) once the old dashboard is gone.`);
    console.log(`Restore it: bootdeck restore ${r.name} ${r.fromBackup}`);
    return 0;
  }
  throw new AppError(2, "usage", USAGE);
}

const size = (n: number) => (n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

export const backup: Command = {
  async run(argv) {
    const [sub, name, ...rest] = argv;
    if (!sub || sub === "--help") {
      console.log(USAGE);
      return sub ? 0 : 2;
    }
    try {
      if (sub === "remote") return await remote(argv.slice(1));
      const id = await clusterId(name);
      switch (sub) {
        case "create": {
          const runId = await startBackupRun({ clusterId: id, trigger: "manual" });
          await recordAudit({ action: "backup.create", username: cliActor(), target: runId, details: { clusterId: id, via: "cli" } });
          console.log(`backup run ${runId}`);
          return await follow(runId, rest.includes("--verbose"));
        }
        case "list": {
          const policy = await getBackupPolicy({ clusterId: id });
          console.log(`schedule: ${policy.enabled ? `every ${policy.intervalMinutes} min` : "off"}; keep the newest ${policy.keepLast}, older ones for ${policy.keepDays} days — ${policy.health.state}: ${policy.health.message}`);
          for (const b of await listBackups({ clusterId: id }))
            console.log(`${b.id}  ${b.createdAt}  ${b.trigger.padEnd(8)}  revision ${b.revision}  ${size(b.size).padStart(10)}  ${b.totalKeys} keys  from ${b.member}  sha256 ${b.sha256}`);
          return 0;
        }
        case "schedule": {
          const current = await getBackupPolicy({ clusterId: id });
          const every = flag(rest, "--every");
          const body = backupPolicyBody.parse({
            enabled: !rest.includes("--off"),
            intervalMinutes: every ? parseEvery(every) : current.intervalMinutes,
            keepLast: Number(flag(rest, "--keep") ?? current.keepLast),
            keepDays: Number(flag(rest, "--keep-days") ?? current.keepDays),
          });
          const p = await setBackupPolicy({ clusterId: id, body, by: cliActor() });
          await recordAudit({ action: "backup.policy", username: cliActor(), target: id, details: { ...body, via: "cli" } });
          console.log(p.enabled ? `backups of ${name} every ${p.intervalMinutes} min, next at ${p.nextDueAt}; keep the newest ${p.keepLast}, older ones for ${p.keepDays} days` : `no scheduled backups for ${name}`);
          return 0;
        }
        case "download": {
          const backupId = rest[0];
          if (!backupId) throw new AppError(2, "usage", USAGE);
          const b = await getBackupOrThrow({ clusterId: id, backupId });
          const { stream } = await fetchAndOpenBackup(b, (m) => console.error(m));
          const out = flag(rest, "--output") ?? (await backupFileName(b));
          await pipeline(stream(), createWriteStream(out, { mode: 0o600 }));
          await recordAudit({ action: "backup.download", username: cliActor(), target: b.id, details: { clusterId: id, revision: b.revision, sha256: b.sha256, via: "cli" } });
          console.log(`${out}: ${size(b.size)}, sha256 ${b.sha256}, etcd revision ${b.revision}`);
          return 0;
        }
        case "target": {
          if (rest.includes("--remove")) {
            if (!(await removeTarget(id))) throw new AppError(1, "not_found", `${name} has no backup target`);
            await recordAudit({ action: "backup.target-remove", username: cliActor(), target: id, details: { via: "cli" } });
            console.log(`backups of ${name} stay on this dashboard only (copies in the bucket stay there)`);
            return 0;
          }
          if (rest.length) {
            const body = bucketOptions(rest, false);
            await setTarget({ clusterId: id, body, by: cliActor() });
            const { secretAccessKey, ...shown } = body;
            await recordAudit({ action: "backup.target", username: cliActor(), target: id, details: { ...shown, secretKeyChanged: !!secretAccessKey, via: "cli" } });
          }
          const t = await getTargetView(id);
          if (!t) {
            console.log(`${name} has no backup target: its backups are on this dashboard only`);
            return 0;
          }
          console.log(`${name}: every backup is copied to ${describeTarget(t)} under "${t.prefix}${id}/" (${t.forcePathStyle ? "path-style" : "virtual-hosted"}, access key ${t.accessKeyId})${t.lastTest ? `; last test ${t.lastTest.at}: ${t.lastTest.ok ? "ok" : "FAILED"}: ${t.lastTest.message}` : ""}`);
          return 0;
        }
        case "test-target": {
          const r = await testStoredTarget(id);
          await recordAudit({ action: "backup.target-test", username: cliActor(), target: id, details: { ok: r.ok, problem: r.problem ?? null, via: "cli" } });
          console.log(r.ok ? `ok: ${r.message}` : `${r.problem}: ${r.message}\n${r.hint}`);
          return r.ok ? 0 : 1;
        }
        case "upload": {
          const backupId = rest[0];
          if (!backupId) throw new AppError(2, "usage", USAGE);
          await getBackupOrThrow({ clusterId: id, backupId });
          const r = await copyBackupToBucket({ backupId, progress: (m) => console.log(m) });
          console.log(`${backupId}: copied to ${r.where}, verified (${r.verifiedBy}) in ${r.seconds.toFixed(1)} s${r.expired.length ? `; retention removed ${r.expired.join(", ")} from the bucket` : ""}`);
          return 0;
        }
        case "export-key": {
          const key = await clusterBackupKey(id);
          await recordAudit({ action: "backup.export-key", username: cliActor(), target: id, details: { via: "cli" } });
          console.error(`The backup key of ${name}: with it and the bucket's credentials, anyone can read its backups. Store it away from this machine (a password manager, a safe).`);
          console.log(backupKeyText(key));
          return 0;
        }
        default:
          console.error(USAGE);
          return 2;
      }
    } catch (err) {
      if (err instanceof AppError) {
        console.error(err.status === 2 ? err.message : `bootdeck backup: ${err.message}`);
        return err.status === 2 ? 2 : 1;
      }
      if (err instanceof Error && err.name === "ZodError") {
        console.error(`bootdeck backup: ${err.message}`);
        return 2;
      }
      throw err;
    } finally {
      await disconnectDb();
    }
  },
};
