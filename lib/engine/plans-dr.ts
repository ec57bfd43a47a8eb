// Plans of the disaster-recovery runs: backup (an etcd snapshot streamed back to Bootdeck), restore (a
// stored snapshot onto every master, then the control plane back through a temporary one), recover (a
// temporary control plane from etcd's current state, then the pivot again) and certificate rotation.
// Like plans.ts: every step carries the commands it sends as argument vectors (`exec`), reviewed
// before the run starts, and the actions send exactly those.
import type { ClusterDefinition } from "../cluster/definition";
import { deriveCluster } from "../cluster/derive";
import { shellCommand, shellScript } from "../ssh/quote";
import { ETCD_DIRS, SNAPSHOT_SAVE_SCRIPT, snapshotDiscardArgv, snapshotFetchArgv } from "./actions/dr-scripts";
import type { PlannedExec, PlannedStep, RunPlan } from "./plan";
import { PlanError } from "./plans";

const MIN = 60_000;

const exec = (id: string, argv: string[], opts: { host?: string; when?: PlannedExec["when"] } = {}): PlannedExec => ({ id, argv, when: opts.when ?? "always", ...(opts.host ? { host: opts.host } : {}) });

type StepInput = Omit<PlannedStep, "files" | "commands" | "exec" | "dependsOn" | "retries"> & Partial<Pick<PlannedStep, "files" | "dependsOn" | "retries">> & { exec?: PlannedExec[]; describe?: string[] };

/** A step whose `commands` show its argument vectors as the host receives them, then what else it does (described). */
function step({ exec: execs = [], describe = [], ...s }: StepInput): PlannedStep {
  return { files: [], dependsOn: [], retries: 0, ...s, exec: execs, commands: [...execs.map((e) => `${e.host && e.host !== s.host ? `on ${e.host}: ` : ""}${shellCommand(e.argv)}`), ...describe] };
}

/** Where a backup run leaves its snapshot on a master while it streams it back (etcd's data directory, which the etcd container mounts at the same path). */
export const snapshotPath = (runId: string) => `${ETCD_DIRS.data}/bootdeck-snapshot-${runId}.db`;

export type BackupPlanInput = { backupId: string; trigger: "manual" | "schedule"; retention: { keepLast: number; keepDays: number } };

/**
 * A backup: on the first master whose etcd member is healthy (the others, in order, when it is not),
 * `etcdctl snapshot save` in its etcd container, the file streamed back over SSH and encrypted on the
 * way to the data directory, its checksum and size compared with the host's, then removed from the host.
 */
export function buildBackupPlan(def: ClusterDefinition, runId: string, input: BackupPlanInput): RunPlan {
  const masters = deriveCluster(def).masters;
  if (!masters.length) throw new PlanError("a backup needs a master");
  const file = snapshotPath(runId);
  return {
    runType: "backup",
    phases: [
      {
        id: "snapshot",
        title: "Snapshot etcd on a healthy member, stream it back, store it encrypted",
        steps: [
          step({
            key: "snapshot/cluster",
            phase: "snapshot",
            action: "etcd-snapshot",
            title: `Snapshot etcd (${masters.map((m) => m.name).join(", then ")})`,
            host: null,
            exec: masters.flatMap((m) => [exec("save", shellScript(SNAPSHOT_SAVE_SCRIPT, [file], "bootdeck-snapshot"), { host: m.name }), exec("fetch", snapshotFetchArgv(file), { host: m.name }), exec("discard", snapshotDiscardArgv(file), { host: m.name })]),
            describe: [
              `the first master whose member is healthy saves the snapshot; its bytes are encrypted with a new data key into the data directory as ${input.backupId}`,
              `its SHA-256 and size must equal the host's; then retention: the newest ${input.retention.keepLast} backups stay, older ones go after ${input.retention.keepDays} days`,
            ],
            params: { backupId: input.backupId, trigger: input.trigger },
            timeoutMs: 20 * MIN,
          }),
        ],
      },
    ],
  };
}
