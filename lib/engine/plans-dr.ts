// Plans of the disaster-recovery runs: backup (an etcd snapshot streamed back to Bootdeck), restore (a
// stored snapshot onto every master, then the control plane back through a temporary one), recover (a
// temporary control plane from etcd's current state, then the pivot again) and certificate rotation.
// Like plans.ts (whose step helpers these plans use): every step carries the commands it sends as
// argument vectors (`exec`) and the files it writes (with the asset each comes from), reviewed before
// the run starts, and the actions send exactly those.
import { capabilitiesFor, imagesFor } from "../assets/capabilities";
import { CHECKPOINT_PATHS } from "../assets/checkpoint";
import { ENCRYPTION_CONFIG_ASSET } from "../assets/encryption";
import { isStaticControlPlane, type ClusterDefinition } from "../cluster/definition";
import { deriveCluster, type EffectiveHost } from "../cluster/derive";
import { shellScript } from "../ssh/quote";
import { CONTROL_PLANE_COMPONENTS } from "./actions/kube";
import {
  ETCD_DIRS,
  ETCD_RESTORE_SCRIPT,
  ETCD_STATUS_SCRIPT,
  KUBELET_UP_SCRIPT,
  RESTORE_DIR,
  SELF_HOSTED_RUNNING_SCRIPT,
  SNAPSHOT_PROBE_SCRIPT,
  SNAPSHOT_SAVE_SCRIPT,
  SNAPSHOT_UPLOAD_SCRIPT,
  STOP_CONTROL_PLANE_SCRIPT,
  snapshotDiscardArgv,
  snapshotFetchArgv,
} from "./actions/dr-scripts";
import { bootstrapLeftovers, checkpointFiles, controlPlaneFiles, missingAssets, type HostFile } from "./host-files";
import type { PlannedPhase, PlannedStep, RunPlan } from "./plan";
import { encryptionConfigPath } from "./plans-encryption";
import { checkpointEnable, exec, selfHostedPivotPhase, temporaryControlPlanePhase, filesOf, hostLock, locked, MIN, PlanError, step, type AssetIndex } from "./plans";

/** Where a backup run leaves its snapshot on a master while it streams it back (etcd's data directory, which the etcd container mounts at the same path). */
export const snapshotPath = (runId: string) => `${ETCD_DIRS.data}/bootdeck-snapshot-${runId}.db`;

export type BackupPlanInput = {
  backupId: string;
  trigger: "manual" | "schedule";
  retention: { keepLast: number; keepDays: number };
  /** The cluster's bucket, as shown ("s3://bucket/prefix/clusterId/ at endpoint"): the snapshot is copied there too. */
  bucket?: string;
};

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
            // The other masters are asked only when the ones before them could not give a snapshot.
            exec: masters.flatMap((m, i) => {
              const when = i === 0 ? "always" : "needed";
              return [exec("save", shellScript(SNAPSHOT_SAVE_SCRIPT, [file], "bootdeck-snapshot"), { host: m.name, when }), exec("fetch", snapshotFetchArgv(file), { host: m.name, when }), exec("discard", snapshotDiscardArgv(file), { host: m.name, when })];
            }),
            checks: [
              `the first master whose member is healthy saves the snapshot; its bytes are encrypted with a new data key into the data directory as ${input.backupId}`,
              `its SHA-256 and size must equal the host's; then retention: the newest ${input.retention.keepLast} backups stay, older ones go after ${input.retention.keepDays} days`,
            ],
            params: { backupId: input.backupId, trigger: input.trigger },
            timeoutMs: 20 * MIN,
          }),
        ],
      },
      ...(input.bucket
        ? [
            {
              id: "upload",
              title: "Copy the encrypted snapshot to the cluster's bucket and verify it there",
              steps: [
                step({
                  key: "upload/bucket",
                  phase: "upload",
                  action: "backup-upload",
                  title: "Copy to the bucket",
                  host: null,
                  offsite: [
                    `to ${input.bucket}: the encrypted file as stored (multipart, with progress), then its ETag compared with the one computed here (or the object read back and hashed)`,
                    "beside it the cluster's export (definition, SSH credentials, host-key pins, assets) and the manifest (the snapshot's data key), both sealed with the cluster's backup key",
                    `then retention in the bucket: the newest ${input.retention.keepLast} stay, older ones go after ${input.retention.keepDays} days`,
                  ],
                  params: { backupId: input.backupId },
                  retries: 2,
                  timeoutMs: 60 * MIN,
                }),
              ],
            },
          ]
        : []),
    ],
  };
}

function needAssets(def: ClusterDefinition, assets: AssetIndex, selfHosted: boolean): void {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const needed: HostFile[] = [{ asset: "auth/kubeconfig", path: "", mode: 0 }];
  const named = (asset: string): HostFile => ({ asset, path: "", mode: 0 });
  if (selfHosted)
    needed.push(...["apiserver", "controller-manager", "scheduler"].map((c) => named(`bootstrap-manifests/bootstrap-${c}.yaml`)), ...controlPlaneFiles([...assets.keys()]), ...checkpointFiles(caps));
  const missing = missingAssets(needed, new Set(assets.keys()));
  if (missing.length) throw new PlanError(`the cluster's asset set lacks ${missing.slice(0, 5).join(", ")}: render the assets again`);
}

/** etcd's members as the definition has them: "name=peerURL,…" (the same names and URLs a restore must keep). */
export const initialCluster = (def: ClusterDefinition) => deriveCluster(def).etcdMembers.map((m) => `${m.name}=${m.peerUrl}`).join(",");

/**
 * The control plane back after etcd came back (restore) or stayed (recover), for a self-hosted
 * cluster: the temporary control plane on the first master as in the bootstrap, then — once the
 * self-hosted control plane's containers run on the masters again — the pivot, the checkpoints, and
 * the verification. bootkube's `recover` did the same from etcd's data.
 */
function controlPlaneBack(def: ClusterDefinition, runId: string, assets: AssetIndex, masters: EffectiveHost[]): PlannedPhase[] {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const first = masters[0]!;
  const leftovers = bootstrapLeftovers([...assets.keys()]);
  const apps = CONTROL_PLANE_COMPONENTS.map((c) => c as string);
  return [
    temporaryControlPlanePhase(first.name, assets, "Temporary control plane on the first master, as in the bootstrap; wait for the API", `Temporary control plane on ${first.name}`),
    {
      id: "self-hosted-up",
      title: "The kubelets run the self-hosted control plane again (read from etcd through the temporary API server)",
      steps: [
        step({
          key: "self-hosted-up/cluster",
          phase: "self-hosted-up",
          action: "self-hosted-up",
          title: "Self-hosted control plane running on the masters",
          host: null,
          exec: masters.map((m) => exec("running", shellScript(SELF_HOSTED_RUNNING_SCRIPT, apps, "bootdeck-running"), { host: m.name })),
          checks: [`until a self-hosted kube-apiserver runs on every master and a kube-controller-manager and a kube-scheduler on one (deadline 10 min)`],
          timeoutMs: 12 * MIN,
        }),
      ],
    },
    selfHostedPivotPhase(runId, caps, first.name, assets, leftovers, "Pivot again: self-hosted control plane Ready, remove the temporary one, check the takeover"),
    ...(masters.length > 1
      ? [
          {
            id: "checkpoint",
            title: "The API server checkpoint on the other masters again",
            steps: masters.slice(1).map((m) =>
              step({ key: `checkpoint/${m.name}`, phase: "checkpoint", action: "checkpoint", title: `Checkpoint on ${m.name}`, host: m.name, files: filesOf(checkpointFiles(caps), assets), exec: [checkpointEnable(runId, caps)], timeoutMs: 3 * MIN }),
            ),
          },
        ]
      : []),
  ];
}

/** The verification: nodes alive now (leases renewed), Ready, pods Running and Ready — on `restarted` hosts, since the run began. */
const verifyPhase = (restarted: EffectiveHost[] = []): PlannedPhase => ({
  id: "verify",
  title: "Verify: every node's kubelet back (lease renewed) and Ready, pods Running and Ready",
  steps: [
    step({
      key: "verify/cluster",
      phase: "verify",
      action: "verify-recovered",
      title: "Verify the cluster",
      host: null,
      checks: [`until every node renews its lease and is Ready and every pod is Running and Ready${restarted.length ? ` (on ${restarted.map((h) => h.name).join(", ")}: Ready since the run began)` : ""} (deadline 5 min)`],
      params: { restartedHosts: restarted.map((h) => h.name).join(",") },
      timeoutMs: 6 * MIN,
    }),
  ],
});

/** The cluster-wide wait for etcd: every member healthy (and, after a restore, at the snapshot's revision or later). */
function etcdHealthyStep(masters: EffectiveHost[], minRevision?: string): PlannedStep {
  return step({
    key: "etcd-healthy/cluster",
    phase: "etcd-healthy",
    action: "etcd-healthy",
    title: `etcd: all ${masters.length} members healthy`,
    host: null,
    // The others are asked only when the ones before them do not answer.
    exec: masters.map((m, i) => exec("status", shellScript(ETCD_STATUS_SCRIPT, [], "bootdeck-etcd-status"), { host: m.name, when: i === 0 ? "always" : "needed" })),
    checks: [`until every member answers healthy${minRevision ? ` at revision ${minRevision} or later` : ""} (asked on the first master that answers; deadline 8 min)`],
    params: { members: String(masters.length), ...(minRevision ? { minRevision } : {}) },
    timeoutMs: 10 * MIN,
  });
}

export type RestoreInput = { backup: { id: string; sha256: string; size: number; revision: string; createdAt: string }; assets: AssetIndex };

/**
 * A restore from a stored snapshot onto every master. Nothing stops until every master holds the
 * snapshot, checked. Then the control plane stops on every master, each member's data is restored by
 * `etcdutl snapshot restore` with the same member names and peer URLs and a new cluster token (members
 * of the old cluster can never join it), etcd starts with the kubelets, and the control plane comes back.
 */
export function buildRestorePlan(def: ClusterDefinition, runId: string, input: RestoreInput): RunPlan {
  const selfHosted = !isStaticControlPlane(def);
  needAssets(def, input.assets, selfHosted);
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const derived = deriveCluster(def);
  const masters = derived.masters;
  const image = imagesFor(caps, def.spec.images.registry).etcd;
  const token = `bootdeck-restore-${runId.slice(4).toLowerCase().replace(/[^a-z0-9]/g, "")}`;
  const snapshot = `${RESTORE_DIR}/snapshot.db`;
  const b = input.backup;
  const cluster = initialCluster(def);
  const phases: PlannedPhase[] = [
    {
      id: "upload",
      title: `Copy backup ${b.id} (etcd revision ${b.revision}) to every master and check it; nothing is stopped yet`,
      steps: masters.map((m) =>
        step({
          key: `upload/${m.name}`,
          phase: "upload",
          action: "snapshot-upload",
          title: `Snapshot onto ${m.name}`,
          host: m.name,
          exec: [exec("probe", shellScript(SNAPSHOT_PROBE_SCRIPT, [snapshot], "bootdeck-probe")), exec("upload", locked(runId, SNAPSHOT_UPLOAD_SCRIPT, [snapshot, b.sha256, String(b.size)]))],
          checks: [`stdin of "upload": backup ${b.id} decrypted (${b.size} bytes, sha256 ${b.sha256}), unless the master holds it already`],
          params: { backupId: b.id },
          retries: 1,
          timeoutMs: 20 * MIN,
        }),
      ),
    },
    {
      id: "stop",
      title: "Stop the control plane on every master (checkpoint watchdog, kubelet, every pod): the API is down from here",
      steps: masters.map((m) =>
        step({ key: `stop/${m.name}`, phase: "stop", action: "host-script", title: `Stop ${m.name}`, host: m.name, files: staticEncryptionConfig(def, input.assets), exec: [exec("stop", locked(runId, STOP_CONTROL_PLANE_SCRIPT, [CHECKPOINT_PATHS.active]))], timeoutMs: 3 * MIN }),
      ),
    },
    {
      id: "etcd-restore",
      title: `Restore each member's data from the snapshot (same names and peer URLs, new cluster token ${token})`,
      steps: derived.etcdMembers.map((em) =>
        step({
          key: `etcd-restore/${em.name}`,
          phase: "etcd-restore",
          action: "host-script",
          title: `Restore etcd on ${em.name}`,
          host: em.name,
          exec: [exec("restore", locked(runId, ETCD_RESTORE_SCRIPT, [image, em.name, cluster, token, em.peerUrl]))],
          timeoutMs: 10 * MIN,
        }),
      ),
    },
    {
      id: "etcd-start",
      title: "Start the kubelets: etcd (a static pod) comes back from the restored data",
      steps: [
        ...masters.map((m) => step({ key: `kubelet-up/${m.name}`, phase: "etcd-start", action: "host-script", title: `Kubelet on ${m.name}`, host: m.name, exec: [exec("start", locked(runId, KUBELET_UP_SCRIPT, []))], timeoutMs: 2 * MIN })),
      ],
    },
    { id: "etcd-healthy", title: "etcd healthy on every member, at the snapshot's revision", steps: [etcdHealthyStep(masters, b.revision)] },
    ...(selfHosted ? controlPlaneBack(def, runId, input.assets, masters) : [apiBackPhase()]),
    verifyPhase(masters),
  ];
  return { runType: "restore", phases, lock: hostLock(runId, masters.map((m) => m.name)) };
}

/**
 * A static control plane's API servers read the encryption configuration from each master's files: a
 * restore or recovery writes the set's (with the keys etcd may hold then: plan-run-dr.ts) before they start.
 * A self-hosted one's comes with its temporary control plane and checkpoints.
 */
function staticEncryptionConfig(def: ClusterDefinition, assets: AssetIndex): PlannedStep["files"] {
  if (!isStaticControlPlane(def) || !assets.has(ENCRYPTION_CONFIG_ASSET)) return [];
  return filesOf([{ asset: ENCRYPTION_CONFIG_ASSET, path: encryptionConfigPath(def, [...assets.keys()]), mode: 0o600 }], assets);
}

/** Static control plane: the kubelets run it from their manifests; the API answers once etcd does. */
function apiBackPhase(): PlannedPhase {
  return {
    id: "api",
    title: "The API servers answer again (static pods)",
    steps: [step({ key: "api/cluster", phase: "api", action: "api-healthy", title: "API answers", host: null, checks: ["GET /healthz and GET /api/v1/namespaces/kube-system through the SSH tunnel until both answer 200 (deadline 8 min)"], timeoutMs: 10 * MIN })],
  };
}

/**
 * Recover: for a self-hosted control plane that did not come back (no API server, etcd intact). The
 * kubelets on the masters are started if they are not, etcd must be healthy (otherwise only a restore
 * helps), then a temporary control plane from etcd's current state and the pivot again.
 */
export function buildRecoverPlan(def: ClusterDefinition, runId: string, input: { assets: AssetIndex }): RunPlan {
  const selfHosted = !isStaticControlPlane(def);
  needAssets(def, input.assets, selfHosted);
  const masters = deriveCluster(def).masters;
  return {
    runType: "recover",
    phases: [
      {
        id: "kubelet",
        title: "The kubelet runs on every master (etcd and the static pods)",
        steps: masters.map((m) =>
          step({ key: `kubelet-up/${m.name}`, phase: "kubelet", action: "host-script", title: `Kubelet on ${m.name}`, host: m.name, files: staticEncryptionConfig(def, input.assets), exec: [exec("start", locked(runId, KUBELET_UP_SCRIPT, []))], timeoutMs: 2 * MIN }),
        ),
      },
      { id: "etcd-healthy", title: "etcd healthy on every member (its current state is what comes back)", steps: [etcdHealthyStep(masters)] },
      ...(selfHosted ? controlPlaneBack(def, runId, input.assets, masters) : [apiBackPhase()]),
      verifyPhase(),
    ],
    lock: hostLock(runId, masters.map((m) => m.name)),
  };
}
