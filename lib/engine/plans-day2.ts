// Plans of the day-2 runs: adding masters (and workers) to a running cluster, removing hosts, and
// rolling upgrades. Like plans.ts: each step carries the commands it sends (argument vectors, `exec`),
// the files it writes (with the asset each comes from) and the values it acts with (`params`); the
// actions in actions/membership.ts and actions/upgrade.ts send exactly those.
import { createHash } from "node:crypto";
import { capabilitiesFor, imagesFor } from "../assets/capabilities";
import { KUBELET_PATHS } from "../assets/kubelet-unit";
import type { ClusterDefinition } from "../cluster/definition";
import { deriveCluster, effectiveHost, type EffectiveHost } from "../cluster/derive";
import { shellScript } from "../ssh/quote";
import { APISERVER_READYZ_SCRIPT, ETCD_SCRIPT, KUBELET_ROLLBACK_SCRIPT, KUBELET_SAVE_SCRIPT, PULL_IMAGES_SCRIPT, STAGE_DIR, STOP_NODE_SCRIPT, UPGRADE_PREFLIGHT_SCRIPT } from "./actions/day2-scripts";
import { CHECKPOINT_ENABLE_SCRIPT, DOWNLOAD_SCRIPT, REMOVE_SCRIPT, RESET_SCRIPT } from "./actions/host-scripts";
import { DEFAULT_BATCHES, intoBatches } from "./day2/batches";
import { upgradeRefusal } from "./day2/skew";
import { binaryDownloads, checkpointFiles, downloadArgs, kubeletFiles, resetPaths, type Download } from "./host-files";
import type { PlannedApiCall, PlannedExec, PlannedPhase, PlannedStep, RunPlan } from "./plan";
import { assetCall, nodeCall, orderedObjects } from "./plan-objects";
import { alive, exec, filesOf, hostLock, hostPhases, installPhases, joinSends, journal, kubeletStart, locked, MIN, PlanError, selectHosts, step, tokenPhase, type AssetIndex } from "./plans";
import { addressCommand, addressMoves } from "./plans-endpoint";

/** How long a drain may take before it fails with what blocked it. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 5 * MIN;
/** How long an upgraded kubelet has to report its node Ready before the node is rolled back. */
export const KUBELET_READY_TIMEOUT_MS = 4 * MIN;
/** A pause point waits this long for a resume before it gives up (the run then fails, and is retried to go on). */
export const PAUSE_LIMIT_MS = 7 * 24 * 60 * MIN;

const ETCD_MANIFEST = `${KUBELET_PATHS.staticPods}/etcd.yaml`;

/** The etcd members as the running cluster's etcd sees them, read through a master's etcd container. */
const etcdctl = (args: string[]) => shellScript(ETCD_SCRIPT, args, "bootdeck-etcd");

/** The checksum a record step compares: the definition must still be the one the run was planned from. */
export const definitionSha = (def: ClusterDefinition) => createHash("sha256").update(JSON.stringify(def)).digest("hex");

const memberOf = (d: ReturnType<typeof deriveCluster>, name: string) => {
  const m = d.etcdMembers.find((x) => x.name === name);
  if (!m) throw new PlanError(`${name} is not an etcd member of the definition`);
  return { name: m.name, peerUrl: m.peerUrl, clientUrl: m.clientUrl };
};

/** etcd's status, asked on each of these masters in turn (the first that runs etcd answers; the others only when needed). */
const etcdStatusOn = (masters: readonly EffectiveHost[]) => onFirstThatAnswers(masters, "etcd-status", ["status"]);

/** An etcd command for each of these masters: sent to the first that answers (the others only when needed). */
function onFirstThatAnswers(masters: readonly EffectiveHost[], id: string, args: string[]): PlannedExec[] {
  return masters.map((m, i) => exec(id, etcdctl(args), { host: m.name, when: i === 0 ? "always" : "needed" }));
}

/** A master's API server checkpoint files, pushed again (the watchdog reads its manifest when it starts it). */
function checkpointSteps(runId: string, masters: readonly EffectiveHost[], caps: ReturnType<typeof capabilitiesFor>, assets: AssetIndex, dependsOn: string[]): PlannedStep[] {
  const files = checkpointFiles(caps);
  if (!files.length) return [];
  return masters.map((m) =>
    step({
      key: `checkpoint/${m.name}`,
      phase: "control-plane",
      action: "push-and-run",
      title: `API server checkpoint on ${m.name}`,
      host: m.name,
      files: filesOf(files, assets),
      exec: [exec("enable", locked(runId, CHECKPOINT_ENABLE_SCRIPT, files.map((f) => f.path)))],
      dependsOn,
      timeoutMs: 3 * MIN,
    }),
  );
}

const manifestFiles = (assets: AssetIndex) => [...assets.keys()].filter((p) => p.startsWith("manifests/")).sort();
const APISERVER_FILES = ["manifests/kube-apiserver-secret.yaml", "manifests/kube-apiserver.yaml"];

/** Kinds an upgrade replaces when their rendered content changed; the rest are only created when missing (a Service's allocated fields, a ServiceAccount's tokens stay). */
const REPLACEABLE = new Set(["DaemonSet", "Deployment", "ConfigMap", "Secret", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "PodDisruptionBudget"]);

function applyStep(key: string, title: string, files: string[], assets: AssetIndex, opts: { wait: "apiservers" | "rollouts"; image?: string; dependsOn?: string[] }): PlannedStep {
  return step({
    key,
    phase: "control-plane",
    action: "apply-objects",
    title,
    host: null,
    // The bootstrap token's Secret has a life of its own (an expiration set when applied, renewed by
    // joins): an upgrade leaves it alone rather than put it back without one.
    api: orderedObjects(assets, files)
      .filter(({ object }) => object.body.type !== "bootstrap.kubernetes.io/token")
      .map(({ asset, object }) => assetCall(REPLACEABLE.has(object.ref.kind) ? "apply" : "create", asset, object)),
    checks: [
      opts.wait === "apiservers" ? `until the kube-apiserver DaemonSet has rolled out and the API server on every master is Running and Ready${opts.image ? ` with ${opts.image}` : ""}` : "until every DaemonSet and Deployment replaced has rolled out",
    ],
    params: { wait: opts.wait, ...(opts.image ? { image: opts.image } : {}) },
    dependsOn: opts.dependsOn ?? [],
    timeoutMs: 15 * MIN,
  });
}

/** A node cordoned, then drained: the Eviction API for every pod but DaemonSet and static ones, disruption budgets respected. */
export function drainCalls(name: string, timeoutMs: number): PlannedApiCall[] {
  return [
    nodeCall("cordon", name),
    nodeCall("drain", name, {
      options: { timeoutSeconds: Math.round(timeoutMs / 1000), ignoreDaemonSets: true, ignoreStaticPods: true, respectDisruptionBudgets: true, retryRefusedEverySeconds: 2 },
      rule: `evict every pod on ${name} but DaemonSet and static pods, as listed while draining; wait until they are gone`,
    }),
  ];
}

function verifyStep(params: { present: string[]; absent?: string[]; version?: string }, dependsOn: string[] = []): PlannedStep {
  return step({
    key: "verify/cluster",
    phase: "verify",
    action: "verify-nodes",
    title: "Verify the cluster",
    host: null,
    checks: [
      `${params.present.join(", ")} registered and Ready${params.version ? ` with kubelet ${params.version}` : ""}`,
      ...(params.absent?.length ? [`${params.absent.join(", ")} no longer registered`] : []),
      "every pod Running and Ready",
    ],
    params: { present: JSON.stringify(params.present), absent: JSON.stringify(params.absent ?? []), ...(params.version ? { version: params.version } : {}) },
    // Not when a host's part failed: that step says why; a verification would only wait and say it again.
    dependsOn,
    timeoutMs: 5 * MIN,
  });
}

// ---------------------------------------------------------------- adding masters (and workers)

/**
 * Adds hosts of the definition to a running cluster, masters among them. Workers join as buildJoinPlan
 * joins them. Each new master's kubelet starts without etcd; then, one master at a time, etcd adds it as
 * a learner (every member healthy first), its etcd pod starts against the running cluster, the learner
 * is promoted once caught up and the members are checked healthy again; its node joins with its role,
 * its API server Ready and its checkpoint installed. No other master's API server changes: each talks
 * to its own etcd member.
 */
export function buildAddNodesPlan(def: ClusterDefinition, runId: string, assets: AssetIndex, names: readonly string[]): RunPlan {
  const all = def.spec.hosts.map((h) => effectiveHost(def, h));
  const hosts = selectHosts(all, names);
  const newMasters = hosts.filter((h) => h.role === "master");
  const running = all.filter((h) => h.role === "master" && !names.includes(h.name));
  if (!running.length) throw new PlanError("the cluster has no running master to join (every master is selected): bootstrap it instead");
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const d = deriveCluster(def);
  const before = d.etcdMembers.filter((m) => !names.includes(m.name)).map((m) => memberOf(d, m.name));
  const install = installPhases(def, runId, hosts, assets).filter((p) => p.id !== "kubelet");
  const kubeletPhase: PlannedPhase = {
    id: "kubelet",
    title: "Push the kubelet's unit, settings and credentials (a new master's etcd certificates, not yet its etcd pod); start it",
    steps: hosts.map((h) =>
      step({
        key: `kubelet/${h.name}`,
        phase: "kubelet",
        action: "push-and-run",
        title: `Kubelet on ${h.name}`,
        host: h.name,
        // A new master's etcd pod waits until etcd has added it as a member (the etcd phase).
        files: filesOf(kubeletFiles(caps, h).filter((f) => f.path !== ETCD_MANIFEST), assets),
        exec: [kubeletStart(def, runId, kubeletFiles(caps, h).filter((f) => f.path !== ETCD_MANIFEST)), journal()],
        timeoutMs: 3 * MIN,
      }),
    ),
  };
  const phases: PlannedPhase[] = [...hostPhases(def, new Set(names))];
  if (newMasters.length)
    phases.push({
      id: "guard",
      title: "etcd: every member healthy, the membership as the definition lists it (nothing is changed)",
      steps: [
        step({
          key: "guard/cluster",
          phase: "guard",
          action: "etcd-guard",
          title: "etcd healthy before adding masters",
          host: null,
          exec: etcdStatusOn(running),
          params: { expected: JSON.stringify(before), joining: JSON.stringify(newMasters.map((m) => memberOf(d, m.name).peerUrl)) },
          timeoutMs: 2 * MIN,
        }),
      ],
    });
  phases.push(...tokenPhase(def, hosts, assets), ...install, kubeletPhase);
  const added: ReturnType<typeof memberOf>[] = [...before];
  if (newMasters.length)
    phases.push({
      id: "etcd",
      title: "etcd: add each new master as a learner, start its member, promote it once caught up; one at a time, quorum checked before and after",
      steps: newMasters.map((m, i) => {
        const member = memberOf(d, m.name);
        added.push(member);
        return step({
          key: `etcd/${m.name}`,
          phase: "etcd",
          action: "etcd-join",
          title: `etcd member ${m.name}`,
          host: m.name,
          files: filesOf([{ asset: `etcd/etcd-${m.name}.yaml`, path: ETCD_MANIFEST, mode: 0o644 }], assets),
          exec: [
            ...onFirstThatAnswers(running, "etcd-add", ["add-learner", m.name, member.peerUrl]),
            ...onFirstThatAnswers(running, "etcd-promote", ["promote", member.peerUrl]),
            ...etcdStatusOn(running),
          ],
          checks: [`wait until ${m.name}'s etcd runs and has caught up with the leader, then promote it (every 2 s, up to 5 min); then every member healthy`],
          params: { name: m.name, peerUrl: member.peerUrl, before: JSON.stringify(added.slice(0, -1)), after: JSON.stringify([...added]) },
          dependsOn: i > 0 ? [`etcd/${newMasters[i - 1]!.name}`] : [],
          timeoutMs: 10 * MIN,
        });
      }),
    });
  const cpFiles = checkpointFiles(caps);
  phases.push({
    id: "join",
    title: "Join: nodes Ready with their roles; a new master's API server Ready and its checkpoint installed",
    steps: hosts.map((h) =>
      step({
        key: `join/${h.name}`,
        phase: "join",
        action: "join",
        title: `Join ${h.role} ${h.name}`,
        host: h.name,
        dependsOn: h.role === "master" ? [`etcd/${h.name}`] : [],
        ...joinSends(caps, h, h.role === "master" && cpFiles.length ? [exec("checkpoint", locked(runId, CHECKPOINT_ENABLE_SCRIPT, cpFiles.map((f) => f.path)))] : []),
        ...(h.role === "master" && cpFiles.length ? { files: filesOf(cpFiles, assets) } : {}),
        timeoutMs: (h.role === "master" ? 12 : 8) * MIN,
      }),
    ),
  });
  phases.push({ id: "verify", title: "Verify: nodes Ready, pods Running and Ready", steps: [verifyStep({ present: all.map((h) => h.name) }, hosts.map((h) => `join/${h.name}`))] });
  return { runType: "join", phases, lock: hostLock(runId, lockedHosts(phases)) };
}

// ---------------------------------------------------------------- removing hosts

export type RemoveOptions = { reset: boolean; drainTimeoutMs: number };

/**
 * Takes hosts out of a running cluster: a quorum guard first (refuses to go below a healthy majority,
 * and says why); each master's etcd member removed, one at a time, members checked healthy after each;
 * then every host cordoned and drained (PodDisruptionBudgets hold; past the timeout it fails with what
 * blocked), its kubelet stopped and its Node deleted; the hosts reset (unless the host is gone: `reset: false`); finally the definition forgets them.
 */
export function buildRemovePlan(def: ClusterDefinition, runId: string, assets: AssetIndex, names: readonly string[], opts: RemoveOptions): RunPlan {
  const all = def.spec.hosts.map((h) => effectiveHost(def, h));
  const hosts = selectHosts(all, names);
  const masters = hosts.filter((h) => h.role === "master");
  const remainingMasters = all.filter((h) => h.role === "master" && !names.includes(h.name));
  const remaining = all.filter((h) => !names.includes(h.name));
  if (!remainingMasters.length) throw new PlanError(`removing ${masters.map((m) => m.name).join(", ")} leaves no master: a cluster keeps at least one (its etcd data lives on the masters)`);
  const firstMaster = all.find((h) => h.role === "master");
  if (def.spec.apiEndpoint.type === "first-master" && firstMaster && names.includes(firstMaster.name))
    throw new PlanError(`${firstMaster.name} is the API endpoint (apiEndpoint type first-master): every kubeconfig points at it; move the cluster to a VIP or DNS endpoint before removing it`);
  const d = deriveCluster(def);
  const members = d.etcdMembers.map((m) => memberOf(d, m.name));
  const phases: PlannedPhase[] = [
    {
      id: "guard",
      title: "Quorum guard: etcd keeps a healthy majority without the masters removed (nothing is changed)",
      steps: [
        step({
          key: "guard/cluster",
          phase: "guard",
          action: "remove-guard",
          title: "Quorum guard",
          host: null,
          exec: masters.length ? etcdStatusOn(remainingMasters) : [],
          checks: masters.length ? [`refuse when removing ${masters.map((m) => m.name).join(", ")} would leave etcd without a healthy majority (say which members are unhealthy)`] : ["workers only: etcd is not touched"],
          params: { removing: JSON.stringify(masters.map((m) => m.name)), expected: JSON.stringify(members) },
          timeoutMs: 2 * MIN,
        }),
      ],
    },
  ];
  let left = [...members];
  if (masters.length)
    phases.push({
      id: "etcd",
      title: "etcd: each master gives up the API address, then its member is removed, one at a time, members healthy after each; its etcd pod stopped",
      steps: masters.map((m, i) => {
        const member = memberOf(d, m.name);
        left = left.filter((x) => x.name !== m.name);
        return step({
          key: `etcd/${m.name}`,
          phase: "etcd",
          action: "etcd-leave",
          title: `Remove etcd member ${m.name}`,
          host: m.name,
          exec: [
            exec("release-address", addressCommand(def, runId, "leave")),
            ...onFirstThatAnswers(remainingMasters, "etcd-remove", ["remove", member.peerUrl]),
            ...etcdStatusOn(remainingMasters),
            exec("stop-etcd", locked(runId, REMOVE_SCRIPT, [ETCD_MANIFEST]), { when: "needed" }),
          ],
          params: { name: m.name, peerUrl: member.peerUrl, after: JSON.stringify(left) },
          dependsOn: i > 0 ? [`etcd/${masters[i - 1]!.name}`] : [],
          timeoutMs: 5 * MIN,
        });
      }),
    });
  phases.push(
    {
      id: "drain",
      title: `Cordon and drain (PodDisruptionBudgets respected; at most ${Math.round(opts.drainTimeoutMs / 1000)} s, then what blocked is reported)`,
      steps: hosts.map((h) =>
        step({
          key: `drain/${h.name}`,
          phase: "drain",
          action: "drain",
          title: `Drain ${h.name}`,
          host: h.name,
          api: drainCalls(h.name, opts.drainTimeoutMs),
          timeoutMs: opts.drainTimeoutMs + 2 * MIN,
        }),
      ),
    },
    {
      id: "remove-node",
      title: "Stop each host's kubelet (and keepalived), then delete its Node",
      steps: hosts.map((h) =>
        step({
          key: `remove-node/${h.name}`,
          phase: "remove-node",
          action: "remove-node",
          title: `Delete node ${h.name}`,
          host: h.name,
          exec: [exec("stop", locked(runId, STOP_NODE_SCRIPT, []))],
          api: [nodeCall("delete", h.name)],
          checks: [`until Node ${h.name} is gone`],
          dependsOn: [`drain/${h.name}`],
          timeoutMs: 3 * MIN,
        }),
      ),
    },
  );
  if (opts.reset)
    phases.push({
      id: "reset",
      title: "Reset the removed hosts: stop their pods, remove Bootdeck's files, the kubelet's state and etcd's data",
      steps: hosts.map((h) =>
        step({ key: `reset/${h.name}`, phase: "reset", action: "reset", title: `Reset ${h.name}`, host: h.name, exec: [exec("reset", locked(runId, RESET_SCRIPT, resetPaths(def, h, [...assets.keys()])))], dependsOn: [`remove-node/${h.name}`], timeoutMs: 3 * MIN }),
      ),
    });
  phases.push(
    {
      id: "record",
      title: "The cluster's definition forgets the removed hosts",
      steps: [
        step({
          key: "record/cluster",
          phase: "record",
          action: "record-definition",
          title: "Update the cluster definition",
          host: null,
          checks: [`remove ${names.join(", ")} from the stored definition (refused if it was edited after this plan)`],
          params: { op: "remove-hosts", hosts: JSON.stringify([...names]), from: definitionSha(def) },
          // Only hosts that are out: every Node deleted (and reset, unless told not to).
          dependsOn: [...hosts.map((h) => `remove-node/${h.name}`), ...(opts.reset ? hosts.map((h) => `reset/${h.name}`) : [])],
          timeoutMs: MIN,
        }),
      ],
    },
    { id: "verify", title: "Verify: the other nodes Ready, the removed ones gone, pods Running and Ready", steps: [verifyStep({ present: remaining.map((h) => h.name), absent: [...names] }, ["record/cluster"])] },
  );
  return { runType: "remove", phases, lock: hostLock(runId, lockedHosts(phases)) };
}

// ---------------------------------------------------------------- rolling upgrades

export type UpgradeOptions = { to: string; batches?: { masters?: string; workers?: string }; drainTimeoutMs?: number };

/** The new kubelet and kubectl as an upgrade fetches them: into the stage directory, then from there into place. */
function stagedDownloads(defT: ClusterDefinition): { staged: Download; swap: Download }[] {
  const to = defT.spec.kubernetes.version;
  return binaryDownloads(defT).map((b) => {
    const file = `${STAGE_DIR}/${to}/${b.name}`;
    return { staged: { ...b, dest: file }, swap: { ...b, url: `file://${file}` } };
  });
}

/**
 * A rolling upgrade to `to` (a patch, or the next minor): the skew policy first; a preflight of the new
 * version on every host (the mirror serves it, room for it, the kubelet's cgroup rule); the new
 * binaries staged and the new images pulled everywhere; then the control plane — etcd one master at a
 * time, the self-hosted API servers (their DaemonSet rolls one master at a time; every master's API
 * server Ready and etcd healthy before it goes on), controller-manager, scheduler, the checkpoints and
 * the add-ons — and only then the kubelets, in batches (masters first), each node cordoned, drained,
 * its kubelet swapped (checksum-verified), restarted, Ready again with the new version, uncordoned; a
 * node that does not come back is rolled back and the upgrade stops. Each batch starts behind a pause
 * point (pause, resume, abort).
 */
export function buildUpgradePlan(def: ClusterDefinition, runId: string, assets: AssetIndex, opts: UpgradeOptions): RunPlan {
  const from = def.spec.kubernetes.version;
  const to = opts.to;
  const refusal = upgradeRefusal(from, to);
  if (refusal) throw new PlanError(refusal);
  const defT: ClusterDefinition = { ...def, spec: { ...def.spec, kubernetes: { ...def.spec.kubernetes, version: to } } };
  const capsT = capabilitiesFor(to);
  const imagesT = imagesFor(capsT, def.spec.images.registry);
  const all = def.spec.hosts.map((h) => effectiveHost(def, h));
  const masters = all.filter((h) => h.role === "master");
  const workers = all.filter((h) => h.role === "worker");
  const d = deriveCluster(def);
  const members = d.etcdMembers.map((m) => memberOf(d, m.name));
  const downloads = stagedDownloads(defT);
  const kubelet = binaryDownloads(defT).find((b) => b.name === "kubelet");
  if (!kubelet) throw new PlanError(`${to} has no kubelet download`);
  const drainTimeoutMs = opts.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
  const masterImages = [imagesT.apiserver, imagesT.controllerManager, imagesT.scheduler, imagesT.etcd, imagesT.proxy, imagesT.coredns, imagesT.pause].filter((x): x is string => !!x);
  const workerImages = [imagesT.proxy, imagesT.coredns, imagesT.pause].filter((x): x is string => !!x);
  const [factsPhase] = hostPhases(def);
  if (!factsPhase) throw new PlanError("no facts phase");

  const phases: PlannedPhase[] = [
    factsPhase,
    {
      id: "preflight",
      title: `Preflight of ${to} on every host and the version skew policy (nothing is changed)`,
      steps: [
        ...all.map((h) =>
          step({
            key: `preflight/${h.name}`,
            phase: "preflight",
            action: "upgrade-preflight",
            title: `Preflight of ${to} on ${h.name}`,
            host: h.name,
            exec: [exec("preflight", shellScript(UPGRADE_PREFLIGHT_SCRIPT, [kubelet.url, kubelet.sumsUrl], "bootdeck-upgrade-preflight"))],
            params: { from, to, allowCgroupV1: String(def.spec.kubernetes.allowCgroupV1) },
            dependsOn: [`facts/${h.name}`],
            timeoutMs: MIN,
          }),
        ),
        step({
          key: "preflight/cluster",
          phase: "preflight",
          action: "upgrade-check",
          title: "Version skew, nodes and etcd",
          host: null,
          exec: etcdStatusOn(masters),
          checks: [`the API servers run ${from} (or ${to} from an earlier attempt), no kubelet is newer than an API server, every node is Ready, every etcd member healthy`],
          params: { from, to, expected: JSON.stringify(members) },
          timeoutMs: 2 * MIN,
        }),
      ],
    },
    {
      id: "stage",
      title: `Stage ${to}: the kubelet and kubectl downloaded and verified beside the running ones; the new images pulled`,
      steps: all.map((h) =>
        step({
          key: `stage/${h.name}`,
          phase: "stage",
          action: "run-execs",
          title: `Stage ${to} on ${h.name}`,
          host: h.name,
          exec: [
            ...downloads.map((x) => exec(`stage ${x.staged.name}`, locked(runId, DOWNLOAD_SCRIPT, downloadArgs(x.staged)))),
            exec("pull", shellScript(PULL_IMAGES_SCRIPT, h.role === "master" ? masterImages : workerImages, "bootdeck-pull")),
          ],
          dependsOn: ["preflight/cluster", `preflight/${h.name}`],
          timeoutMs: 15 * MIN,
          retries: 2,
        }),
      ),
    },
    {
      id: "etcd",
      title: "etcd: each master's member on the new version, one at a time; every member healthy after each",
      steps: masters.map((m, i) => {
        // Behind a VIP, a master gives the address up while its etcd member (here) or its kubelet (below)
        // restarts: its API server uses only that member, and requests reaching it meanwhile hang.
        const address = addressMoves(def, runId, m);
        const moves = address.release.length > 0;
        return step({
          key: `etcd/${m.name}`,
          phase: "etcd",
          action: "etcd-upgrade",
          title: `etcd on ${m.name}`,
          host: m.name,
          files: filesOf([{ asset: `etcd/etcd-${m.name}.yaml`, path: ETCD_MANIFEST, mode: 0o644 }], assets),
          exec: [...address.release, ...etcdStatusOn([m, ...masters.filter((x) => x.name !== m.name)]), ...address.rejoin],
          checks: [
            ...(moves ? [`before: ${m.name} gives up the API address`] : []),
            `wait until ${m.name}'s etcd pod is Running and Ready with ${imagesT.etcd} and every member healthy`,
            ...(moves ? [`after: ${m.name} takes part in the address again`] : []),
          ],
          params: { member: m.name, image: imagesT.etcd, expected: JSON.stringify(members) },
          dependsOn: i > 0 ? [`etcd/${masters[i - 1]!.name}`] : [],
          timeoutMs: 10 * MIN,
        });
      }),
    },
  ];
  const manifests = manifestFiles(assets);
  const cm = manifests.filter((f) => f.startsWith("manifests/kube-controller-manager"));
  const sched = manifests.filter((f) => f.startsWith("manifests/kube-scheduler"));
  const addons = manifests.filter((f) => !APISERVER_FILES.includes(f) && !cm.includes(f) && !sched.includes(f));
  const apiserver = applyStep("control-plane/kube-apiserver", `kube-apiserver ${to} on every master`, APISERVER_FILES, assets, { wait: "apiservers", image: imagesT.apiserver });
  const cmStep = applyStep("control-plane/kube-controller-manager", `kube-controller-manager ${to}`, cm, assets, { wait: "rollouts", dependsOn: [apiserver.key] });
  const schedStep = applyStep("control-plane/kube-scheduler", `kube-scheduler ${to}`, sched, assets, { wait: "rollouts", dependsOn: [cmStep.key] });
  const checkpoints = checkpointSteps(runId, masters, capsT, assets, [schedStep.key]);
  const addonStep = applyStep("control-plane/add-ons", `Add-ons of ${to} (kube-proxy, CoreDNS, flannel, their settings)`, addons, assets, { wait: "rollouts", dependsOn: [schedStep.key] });
  const record = step({
    key: "record/cluster",
    phase: "control-plane",
    action: "record-definition",
    title: `The cluster's version is ${to}`,
    host: null,
    checks: [`set spec.kubernetes.version to ${to} in the stored definition (its control plane runs it; refused if the definition was edited after this plan)`],
    params: { op: "set-version", version: to, from: definitionSha(def) },
    dependsOn: [addonStep.key, ...checkpoints.map((c) => c.key)],
    timeoutMs: MIN,
  });
  phases.push({ id: "control-plane", title: `Control plane ${to}: API servers, controller-manager, scheduler, checkpoints, add-ons`, steps: [apiserver, cmStep, schedStep, ...checkpoints, addonStep, record] });

  const b = { ...DEFAULT_BATCHES, ...opts.batches };
  const batches = [...intoBatches(masters, b.masters), ...intoBatches(workers, b.workers)];
  const steps: PlannedStep[] = [];
  let previous: string[] = [record.key];
  batches.forEach((batch, k) => {
    const gate = step({
      key: `gate/batch-${k + 1}`,
      phase: "kubelets",
      action: "upgrade-gate",
      title: `Pause point before batch ${k + 1} of ${batches.length} (${batch.map((h) => h.name).join(", ")})`,
      host: null,
      checks: ["go on unless a pause was asked for; while paused, wait for resume (or abort)"],
      dependsOn: previous,
      timeoutMs: PAUSE_LIMIT_MS,
    });
    steps.push(gate);
    for (const h of batch) {
      const files = kubeletFiles(capsT, h);
      const address = addressMoves(def, runId, h);
      const moves = address.release.length > 0;
      steps.push(
        step({
          key: `kubelet/${h.name}`,
          phase: "kubelets",
          action: "kubelet-upgrade",
          title: `Kubelet ${to} on ${h.name}`,
          host: h.name,
          files: filesOf(files, assets),
          exec: [
            ...address.release,
            exec("save", locked(runId, KUBELET_SAVE_SCRIPT, [KUBELET_BIN, `${STAGE_DIR}/${to}/kubelet`, ...files.map((f) => f.path)])),
            ...downloads.map((x) => exec(`swap ${x.swap.name}`, locked(runId, DOWNLOAD_SCRIPT, downloadArgs(x.swap)))),
            kubeletStart(defT, runId, files),
            ...(h.role === "master" ? [exec("apiserver-ready", shellScript(APISERVER_READYZ_SCRIPT, [String(def.spec.apiEndpoint.port)], "bootdeck-readyz"))] : []),
            ...address.rejoin,
            exec("rollback", locked(runId, KUBELET_ROLLBACK_SCRIPT, [KUBELET_BIN]), { when: "needed" }),
            journal(),
            // While the new kubelet comes up: the host still answering (a host gone ends the wait at once).
            alive(),
          ],
          api: [...drainCalls(h.name, drainTimeoutMs), nodeCall("uncordon", h.name, { rule: "once Ready with the new kubelet, or rolled back and Ready with the old one" })],
          checks: [
            `before: cordon and drain ${h.name} (disruption budgets respected, at most ${Math.round(drainTimeoutMs / 1000)} s)${moves ? `; then ${h.name} gives up the API address` : ""}`,
            `after: until ${h.name} is Ready with kubelet ${to} (at most ${KUBELET_READY_TIMEOUT_MS / 60_000} min)${h.role === "master" ? ", its own API server answers /readyz (with its etcd member) three times in a row and the API server on every master is Ready" : ""}, then uncordon it; otherwise roll it back to ${from} and stop the upgrade${moves ? `; either way ${h.name} takes part in the address again` : ""}`,
          ],
          params: { from, to, readyTimeoutMs: String(KUBELET_READY_TIMEOUT_MS) },
          dependsOn: [gate.key],
          timeoutMs: drainTimeoutMs + KUBELET_READY_TIMEOUT_MS * 2 + 5 * MIN,
        }),
      );
    }
    previous = batch.map((h) => `kubelet/${h.name}`);
  });
  phases.push({ id: "kubelets", title: `Kubelets ${to} in batches (masters ${b.masters} at a time, then workers ${b.workers} at a time), each behind a pause point`, steps });
  phases.push({ id: "verify", title: `Verify: every node Ready with kubelet ${to}, pods Running and Ready`, steps: [verifyStep({ present: all.map((h) => h.name), version: to }, all.map((h) => `kubelet/${h.name}`))] });
  return { runType: "upgrade", phases, lock: hostLock(runId, lockedHosts(phases)) };
}

export const KUBELET_BIN = "/usr/local/bin/kubelet";

/** Every host a step or command of the plan runs on: the run's end releases the host lock there (a host it never locked is left as it is). */
function lockedHosts(phases: PlannedPhase[]): string[] {
  return phases.flatMap((p) => p.steps.flatMap((st) => [st.host, ...(st.exec ?? []).map((e) => e.host)])).filter((h): h is string => !!h);
}
