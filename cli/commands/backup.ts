// bootdeck backup: etcd snapshots from the command line — take one now (run here, with progress lines),
// list them, set the schedule and retention, and write one out as the plain snapshot etcdutl restores.
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { recordAudit } from "../../lib/audit/record";
import { startBackupRun } from "../../lib/backups/runs";
import { backupPolicyBody } from "../../lib/backups/schemas";
import { backupFileName, getBackupOrThrow, getBackupPolicy, listBackups, openVerifiedBackup, setBackupPolicy } from "../../lib/backups/store";
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

Snapshots are encrypted at rest in the data directory; the dashboard's engine (or bootdeck worker)
takes the scheduled ones.`;


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

const size = (n: number) => (n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

export const backup: Command = {
  async run(argv) {
    const [sub, name, ...rest] = argv;
    if (!sub || sub === "--help") {
      console.log(USAGE);
      return sub ? 0 : 2;
    }
    try {
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
          const { stream } = await openVerifiedBackup(b);
          const out = flag(rest, "--output") ?? (await backupFileName(b));
          await pipeline(stream(), createWriteStream(out, { mode: 0o600 }));
          await recordAudit({ action: "backup.download", username: cliActor(), target: b.id, details: { clusterId: id, revision: b.revision, sha256: b.sha256, via: "cli" } });
          console.log(`${out}: ${size(b.size)}, sha256 ${b.sha256}, etcd revision ${b.revision}`);
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
