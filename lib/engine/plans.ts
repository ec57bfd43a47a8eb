// Builds run plans from a validated definition. Phases are added here as the engine learns them;
// a plan names exactly what each step sends, so it can be reviewed before it runs: each step carries
// its commands as argument vectors (`exec`) and its files with the asset they come from, and the
// runner's actions send exactly those. Nothing here is rebuilt at run time.
import { capabilitiesFor } from "../assets/capabilities";
import { carriesSystemMasters } from "../assets/certificates";
import { isStaticControlPlane, type ClusterDefinition } from "../cluster/definition";
import { effectiveHost, type EffectiveHost } from "../cluster/derive";
import { createHash } from "node:crypto";
import { shellCommand, shellScript } from "../ssh/quote";
import { CONTROL_PLANE_COMPONENTS, roleOf } from "./actions/kube";
import { FACTS_SCRIPT } from "./actions/facts";
import { REGISTRY_AUTH_FILE, RUNTIME_PATHS } from "../assets/runtime";
import { CHECKPOINT_ENABLE_SCRIPT, DOWNLOAD_SCRIPT, HOST_LOCK_FILE, JOURNAL_SCRIPT, KUBELET_START_SCRIPT, PACKAGES_SCRIPT, PRESENT_SCRIPT, REMOVE_SCRIPT, RESET_SCRIPT, RUNTIME_PACKAGES, RUNTIME_PACKAGES_SCRIPT, RUNTIME_START_SCRIPT, releaseLockArgv } from "./actions/host-scripts";
import { packagePairs, PREFLIGHT_SCRIPT } from "./actions/preflight";
import { binaryDownloads, bootstrapLeftovers, checkpointFiles, controlPlaneFiles, downloadArgs, downloadLeftover, kubeletFiles, missingAssets, resetPaths, runtimeDownloads, runtimeFiles, staticControlPlaneFiles, type HostFile } from "./host-files";
import type { PlannedApiCall, PlannedExec, PlannedPhase, PlannedStep, RunPlan } from "./plan";
import { assetCall, isManifest, nodeCall, orderedObjects, type AssetIndex } from "./plan-objects";
import { endpointFiles, endpointPhase } from "./plans-endpoint";

const asSent = (argv: string[]) => shellCommand(argv);

/** How many kubelet journal lines a failed step fetches. */
export const JOURNAL_LINES = 60;
/** How long phase 5 watches a started kubelet for a crash loop (seconds). */
export const KUBELET_WATCH_S = 5;

export const exec = (id: string, argv: string[], opts: { host?: string; when?: PlannedExec["when"] } = {}): PlannedExec => ({ id, argv, when: opts.when ?? "always", ...(opts.host ? { host: opts.host } : {}) });
/**
 * Starts the kubelet, and restarts it when its binary (the first download: the kubelet) or one
 * of its files differs from what it last ran steadily with: an upgrade swaps the binary and may leave
 * every file as it was.
 */
export const kubeletStart = (def: ClusterDefinition, runId: string, files: readonly HostFile[]): PlannedExec =>
  exec("start", locked(runId, KUBELET_START_SCRIPT, [String(KUBELET_WATCH_S), binaryDownloads(def)[0]!.dest, ...files.map((f) => f.path)]));
/** The read-only journal tail a failed kubelet, control-plane or join step reports. */
export const journal = (host?: string) => exec("journal", shellScript(JOURNAL_SCRIPT, [String(JOURNAL_LINES)], "bootdeck-journal"), { host, when: "needed" });
/** A host answering now: joins and the verification prove the node alive, not only Ready in the API. */
export const ALIVE_ARGV = ["true"];
export const alive = (host?: string) => exec("alive", ALIVE_ARGV, { host, when: "needed" });

export type { AssetIndex } from "./plan-objects";

export function hostPhases(def: ClusterDefinition, only?: ReadonlySet<string>): PlannedPhase[] {
  const hosts = def.spec.hosts.map((h) => effectiveHost(def, h)).filter((h) => !only || only.has(h.name));
  return [
    {
      id: "facts",
      title: "Connect, pin host keys, gather facts",
      steps: hosts.map((h) => step({ key: `facts/${h.name}`, phase: "facts", action: "facts", title: `Facts of ${h.name}`, host: h.name, exec: [exec("facts", shellScript(FACTS_SCRIPT, [], "bootdeck-facts"))], timeoutMs: 60_000 })),
    },
    {
      id: "preflight",
      title: "Preflight checks (nothing is changed)",
      steps: [
        ...hosts.map((h) =>
          step({ key: `preflight/${h.name}`, phase: "preflight", action: "preflight", title: `Preflight on ${h.name}`, host: h.name, exec: [exec("preflight", shellScript(PREFLIGHT_SCRIPT, [], "bootdeck-preflight"))], dependsOn: [`facts/${h.name}`], timeoutMs: 60_000 }),
        ),
        step({ key: "preflight/cluster", phase: "preflight", action: "preflight-cluster", title: "Clock skew and unique host names across hosts", host: null, dependsOn: hosts.map((h) => `facts/${h.name}`), timeoutMs: 10_000 }),
      ],
    },
  ];
}

/** A "check" run: connect to every host, pin keys, gather facts and run the preflight checks. */
export function buildCheckPlan(def: ClusterDefinition): RunPlan {
  return { runType: "check", phases: hostPhases(def) };
}

export class PlanError extends Error {}

export const MIN = 60_000;

/** A step's commands as sent: each `exec` quoted as the host receives it. */
function sends(execs: PlannedExec[]): Pick<PlannedStep, "exec" | "commands"> {
  return { exec: execs, commands: execs.map((e) => asSent(e.argv)) };
}

export type StepInput = Omit<PlannedStep, "files" | "commands" | "exec" | "api" | "checks" | "offsite" | "dependsOn" | "retries"> &
  Partial<Pick<PlannedStep, "files" | "dependsOn" | "retries" | "api" | "checks" | "offsite">> & { exec?: PlannedExec[] };

export function step({ exec: execs = [], ...s }: StepInput): PlannedStep {
  return { files: [], dependsOn: [], retries: 0, api: [], checks: [], ...s, ...sends(execs) };
}

/** The run's id first: every locked host script takes the host lock for it. */
export const locked = (runId: string, script: string, args: string[], name = "bootdeck") => shellScript(script, [runId, ...args], name);

/** The host lock of a changing run, released on every host it locked when the run ends. */
export function hostLock(runId: string, hosts: readonly string[]): NonNullable<RunPlan["lock"]> {
  return { file: HOST_LOCK_FILE, release: releaseLockArgv(runId), hosts: [...new Set(hosts)] };
}

export function filesOf(files: HostFile[], assets: AssetIndex): PlannedStep["files"] {
  return files.map((f) => {
    const a = assets.get(f.asset);
    if (!a) throw new PlanError(`asset ${f.asset} is missing`);
    return { path: f.path, mode: f.mode, sha256: a.sha256, size: a.size, asset: f.asset, ...(carriesSystemMasters(f.asset) ? { systemMasters: true as const } : {}) };
  });
}

/** Phases 3–5 for the given hosts: packages, binaries, kubelet (and etcd on masters). */
export function installPhases(def: ClusterDefinition, runId: string, hosts: EffectiveHost[], assets: AssetIndex): PlannedPhase[] {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const pairs = packagePairs();
  return [
    {
      id: "packages",
      title: "Install the kubelet's host packages that are missing",
      steps: hosts.map((h) => step({ key: `packages/${h.name}`, phase: "packages", action: "packages", title: `Host packages on ${h.name}`, host: h.name, exec: [exec("packages", locked(runId, PACKAGES_SCRIPT, pairs))], timeoutMs: 15 * MIN, retries: 2 })),
    },
    {
      id: "binaries",
      title: "Install kubelet and kubectl from the binary mirror (checksums verified)",
      steps: hosts.map((h) =>
        step({ key: `binaries/${h.name}`, phase: "binaries", action: "binaries", title: `Binaries on ${h.name}`, host: h.name, exec: binaryDownloads(def).map((b) => exec(`download ${b.dest}`, locked(runId, DOWNLOAD_SCRIPT, downloadArgs(b)))), timeoutMs: 10 * MIN, retries: 2 }),
      ),
    },
    runtimePhase(def, runId, hosts, assets),
    ...endpointPhase(def, runId, hosts, assets),
    {
      id: "kubelet",
      title: "Push the kubelet's unit, settings and credentials (etcd on masters); start it and check it keeps running",
      steps: hosts.map((h) => {
        const files = kubeletFiles(caps, { name: h.name, role: h.role });
        return step({
          key: `kubelet/${h.name}`,
          phase: "kubelet",
          action: "kubelet",
          title: `Kubelet on ${h.name}`,
          host: h.name,
          files: filesOf(files, assets),
          exec: [kubeletStart(def, runId, files), journal()],
          timeoutMs: 3 * MIN,
        });
      }),
    },
  ];
}

/** The container runtime: install, configure, start and check containerd (before the kubelet, which needs it). */
function runtimePhase(def: ClusterDefinition, runId: string, hosts: EffectiveHost[], assets: AssetIndex): PlannedPhase {
  const auth = def.spec.images.auth;
  const source = def.spec.runtime.source === "packages" ? `${RUNTIME_PACKAGES.join(" and ")} from the host's packages` : "containerd and runc from the mirror";
  const files = runtimeFiles(def, [...assets.keys()]);
  const downloads = runtimeDownloads(def);
  // containerd is restarted when any of these differ from what it last ran with.
  const state = [...files.map((f) => f.path), ...(auth ? [REGISTRY_AUTH_FILE] : []), ...downloads.map(downloadLeftover)];
  return {
    id: "runtime",
    title: `Container runtime: ${source}, crictl and the CNI plugins; configure, start and check containerd`,
    steps: hosts.map((h) =>
      step({
        key: `runtime/${h.name}`,
        phase: "runtime",
        action: "runtime",
        title: `Container runtime on ${h.name}`,
        host: h.name,
        files: [
          ...filesOf(files, assets),
          // The registry's pull credentials: written from the stored credential at run time (a secret: no checksum shown).
          ...(auth ? [{ path: REGISTRY_AUTH_FILE, mode: 0o600, sha256: "", size: 0, credential: auth.credential }] : []),
        ],
        exec: [
          ...(def.spec.runtime.source === "packages" ? [exec("packages", locked(runId, RUNTIME_PACKAGES_SCRIPT, RUNTIME_PACKAGES))] : []),
          ...downloads.map((d) => exec(`download ${d.name}`, locked(runId, DOWNLOAD_SCRIPT, downloadArgs(d)))),
          exec("start", locked(runId, RUNTIME_START_SCRIPT, state)),
        ],
        checks: auth ? [`${REGISTRY_AUTH_FILE} (0600): ${RUNTIME_PATHS.config} again with pull credentials for ${def.spec.images.registry} as ${auth.username}, password from credential "${auth.credential}"`] : [],
        timeoutMs: 10 * MIN,
        retries: 2,
      }),
    ),
  };
}

/** Starts (restarting when its files changed) the API server checkpoint on a master. */
export function checkpointEnable(runId: string, caps: ReturnType<typeof capabilitiesFor>, host?: string): PlannedExec {
  return exec("checkpoint", locked(runId, CHECKPOINT_ENABLE_SCRIPT, checkpointFiles(caps).map((f) => f.path)), { host });
}

export function checkAssets(def: ClusterDefinition, assets: AssetIndex, hosts: EffectiveHost[], withControlPlane: boolean): void {
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const needed = hosts.flatMap((h) => kubeletFiles(caps, { name: h.name, role: h.role }));
  needed.push(...runtimeFiles(def, [...assets.keys()]));
  if (hosts.some((h) => h.role === "master")) needed.push(...endpointFiles(def));
  if (withControlPlane) needed.push(...controlPlaneFiles([...assets.keys()]), ...checkpointFiles(caps), { asset: "auth/kubeconfig", path: "", mode: 0 });
  const missing = missingAssets(needed, new Set(assets.keys()));
  if (missing.length) throw new PlanError(`the latest asset set lacks ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ` and ${missing.length - 5} more` : ""}: it is older than the cluster definition; render the assets again`);
}

/** The temporary control plane's static pods on the first master, then the wait for its API (a bootstrap, a recovery). */
export function temporaryControlPlanePhase(first: string, assets: AssetIndex, title: string, stepTitle: string): PlannedPhase {
  return firstControlPlanePhase(first, filesOf(controlPlaneFiles([...assets.keys()]), assets), title, stepTitle);
}

/** Phase 6: a control plane's static pods on the first master (the temporary one, or a static control plane's own), then the wait for its API. */
function firstControlPlanePhase(first: string, files: PlannedStep["files"], title: string, stepTitle: string): PlannedPhase {
  return {
    id: "control-plane",
    title,
    steps: [
      step({
        key: `control-plane/${first}`,
        phase: "control-plane",
        action: "control-plane",
        title: stepTitle,
        host: first,
        files,
        exec: [journal()],
        checks: ["GET /healthz and GET /api/v1/namespaces/kube-system through the SSH tunnel until both answer 200 (deadline 5 min)"],
        timeoutMs: 7 * MIN,
      }),
    ],
  };
}

/**
 * The whole bootstrap, phases 1–10. A static control plane (controlPlane: static) needs no temporary
 * one: its own static pods start on the first master at once (as kubeadm's init does), the cluster's
 * objects are created through them, the other masters get the same static pods (the Typhoon and Talos
 * model), and no master gets a checkpoint: after any reboot each master's kubelet starts its control
 * plane from its own files. There is no pivot.
 */
export function buildBootstrapPlan(def: ClusterDefinition, runId: string, assets: AssetIndex): RunPlan {
  const hosts = def.spec.hosts.map((h) => effectiveHost(def, h));
  const masters = hosts.filter((h) => h.role === "master");
  const workers = hosts.filter((h) => h.role === "worker");
  const first = masters[0];
  if (!first) throw new PlanError("a bootstrap needs at least one master");
  const staticCp = isStaticControlPlane(def);
  checkAssets(def, assets, hosts, !staticCp);
  if (staticCp) checkStaticAssets(assets);
  const leftovers = bootstrapLeftovers([...assets.keys()]);
  const joinKey = (h: EffectiveHost) => `join/${h.name}`;
  const lastMaster = masters[masters.length - 1] ?? first;
  const caps = capabilitiesFor(def.spec.kubernetes.version);
  const checkpoint = !staticCp;
  return {
    runType: "bootstrap",
    phases: [
      ...hostPhases(def),
      ...installPhases(def, runId, hosts, assets),
      staticCp
        ? firstControlPlanePhase(first.name, filesOf(staticControlPlaneFiles([...assets.keys()]), assets), "The control plane as static pods on the first master; wait for the API", `Static control plane on ${first.name}`)
        : temporaryControlPlanePhase(first.name, assets, "Temporary control plane on the first master; wait for the API", `Bootstrap control plane on ${first.name}`),
      {
        id: "self-hosted",
        title: staticCp ? "Create the cluster's objects (Namespaces, CRDs until served, then the rest)" : "Create the self-hosted objects (Namespaces, CRDs until served, then the rest)",
        steps: [
          step({
            key: "self-hosted/cluster",
            phase: "self-hosted",
            action: "self-hosted",
            title: staticCp ? "Cluster objects (add-ons, RBAC, bootstrap token)" : "Self-hosted control plane objects",
            host: null,
            api: [...selfHostedCalls(assets), ...roleCalls(caps, first.name, "master")],
            checks: ["first: kube-system's default ServiceAccount exists (the bootstrap controller-manager works)", "each kind in turn; after the CustomResourceDefinitions, until they are Established"],
            timeoutMs: 6 * MIN,
          }),
        ],
      },
      staticCp
        ? staticMastersPhase(masters, assets)
        : selfHostedPivotPhase(runId, caps, first.name, assets, leftovers, "Pivot: self-hosted control plane Ready, remove the bootstrap one, check the takeover"),
      {
        id: "join",
        title: "Join the masters one at a time, then the workers; set roles and taints",
        steps: [
          ...masters.map((m, i) =>
            step({
              key: joinKey(m),
              phase: "join",
              action: "join",
              title: `Join master ${m.name}`,
              host: m.name,
              dependsOn: i > 0 ? [joinKey(masters[i - 1] as EffectiveHost)] : [],
              ...joinSends(caps, m, i > 0 && checkpoint ? [checkpointEnable(runId, caps)] : []),
              // The first master got its checkpoint with the pivot.
              ...(i > 0 && checkpoint ? { files: filesOf(checkpointFiles(caps), assets) } : {}),
              timeoutMs: 12 * MIN,
            }),
          ),
          ...workers.map((w) => step({ key: joinKey(w), phase: "join", action: "join", title: `Join worker ${w.name}`, host: w.name, dependsOn: [joinKey(lastMaster)], ...joinSends(caps, w), timeoutMs: 8 * MIN })),
        ],
      },
      {
        id: "verify",
        title: "Verify: nodes Ready, pods Running and Ready",
        steps: [
          step({
            key: "verify/cluster",
            phase: "verify",
            action: "verify",
            title: "Verify the cluster",
            host: null,
            exec: hosts.map((h) => alive(h.name)),
            checks: ["every joined node Ready with its kubelet Lease renewed after this step began; every pod Running and Ready"],
            timeoutMs: 4 * MIN,
          }),
        ],
      },
    ],
    lock: hostLock(runId, hosts.map((h) => h.name)),
  };
}

/** A static control plane's asset set: the temporary control plane, the static pods and their secrets (rendered for this mode). */
function checkStaticAssets(assets: AssetIndex): void {
  const paths = [...assets.keys()];
  const staticFiles = staticControlPlaneFiles(paths);
  const missing = missingAssets([...controlPlaneFiles(paths), ...staticFiles, { asset: "auth/kubeconfig", path: "", mode: 0 }], new Set(paths));
  if (missing.length || !staticFiles.some((f) => f.asset.startsWith("static-manifests/")))
    throw new PlanError(`the latest asset set lacks ${missing.slice(0, 5).join(", ") || "the static control plane (static-manifests/)"}: it was rendered for another control-plane mode; render the assets again`);
}

/**
 * A static control plane on every master, Running and Ready (its mirror pods, through the API): the
 * first master's files are there already (the step finds them unchanged and waits), the others' arrive.
 */
function staticMastersPhase(masters: EffectiveHost[], assets: AssetIndex): PlannedPhase {
  return {
    id: "static",
    title: "The control plane as static pods on every master, Running and Ready",
    steps: masters.map((m) =>
      step({
        key: `static/${m.name}`,
        phase: "static",
        action: "static-control-plane",
        title: `Static control plane on ${m.name}`,
        host: m.name,
        files: filesOf(staticControlPlaneFiles([...assets.keys()]), assets),
        checks: [`until kube-apiserver, kube-controller-manager and kube-scheduler of ${m.name} are Running and Ready (deadline 8 min)`],
        timeoutMs: 10 * MIN,
      }),
    ),
  };
}

/**
 * The pivot to a self-hosted control plane (a bootstrap, a restore, a recovery): the self-hosted one
 * Ready, the bootstrap one removed from the first master, the takeover checked; then the API server's
 * checkpoint on the first master.
 */
export function selfHostedPivotPhase(runId: string, caps: ReturnType<typeof capabilitiesFor>, first: string, assets: AssetIndex, leftovers: string[], title: string): PlannedPhase {
  return {
    id: "pivot",
    title,
    steps: [
      pivotStep(runId, first, leftovers, {
        title: "Pivot to the self-hosted control plane",
        more: [checkpointEnable(runId, caps, first)],
        files: filesOf(checkpointFiles(caps), assets).map((f) => ({ ...f, host: first })),
        checks: [`until the self-hosted ${CONTROL_PLANE_COMPONENTS.join(", ")} are Running and Ready and ${first} is Ready`],
      }),
    ],
  };
}

/** The name of a run's pivot marker (a DNS-1123 name whatever characters the run id has). */
export const pivotMarker = (runId: string) => `bootdeck-pivot-${createHash("sha256").update(runId).digest("hex").slice(0, 16)}`;

/**
 * The pivot's step (to a self-hosted control plane): whether the bootstrap control plane is
 * still on the first master, a marker written through it, its removal, then until the API answers
 * without it and with the marker, which is removed.
 */
function pivotStep(runId: string, first: string, leftovers: string[], opts: { title: string; more?: PlannedExec[]; files?: PlannedStep["files"]; checks?: string[] }): PlannedStep {
  const marker = { apiVersion: "v1", kind: "ConfigMap", name: pivotMarker(runId), namespace: "kube-system" };
  return step({
    key: "pivot/cluster",
    phase: "pivot",
    action: "pivot",
    title: opts.title,
    host: null,
    dependsOn: [],
    exec: [exec("present", shellScript(PRESENT_SCRIPT, leftovers, "bootdeck-present"), { host: first }), exec("remove", locked(runId, REMOVE_SCRIPT, leftovers), { host: first }), ...(opts.more ?? [])],
    files: opts.files ?? [],
    api: [
      {
        id: "marker",
        verb: "create",
        object: marker,
        body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: marker.name, namespace: marker.namespace }, data: { run: runId } },
        rule: "written through the bootstrap API server while it is still there (the present command says so), read back through the one that takes over",
        when: "needed",
      },
      { id: "marker-delete", verb: "delete", object: marker, when: "always" },
    ],
    checks: [...(opts.checks ?? []), "after the removal: until the API answers without the bootstrap kube-apiserver's pod, with every control-plane pod Running and Ready and the marker readable"],
    timeoutMs: 16 * MIN,
  });
}

/** Every object of the rendered manifests, created when missing, in kind order; the bootstrap token's Secret with its expiration. */
function selfHostedCalls(assets: AssetIndex): PlannedApiCall[] {
  return orderedObjects(assets, [...assets.keys()].filter(isManifest)).map(({ asset, object }) =>
    assetCall("create", asset, object, object.body.type === BOOTSTRAP_TOKEN_TYPE ? { rule: TOKEN_EXPIRATION_RULE } : {}),
  );
}

const BOOTSTRAP_TOKEN_TYPE = "bootstrap.kubernetes.io/token";
const TOKEN_EXPIRATION_RULE = "stringData.expiration is set when it is sent: a day later (RFC 3339)";

/** A node's role: its labels when it lacks one, and (a master) its taint when it lacks it. */
export function roleCalls(caps: ReturnType<typeof capabilitiesFor>, name: string, role: "master" | "worker"): PlannedApiCall[] {
  const wanted = roleOf(role);
  return [
    nodeCall("patch", name, { id: `label Node ${name}`, body: { metadata: { labels: wanted.labels } }, rule: "sent when the node lacks one of these labels", when: "needed" }),
    ...(wanted.taint ? [nodeCall("taint", name, { body: wanted.taint, rule: "added to the node's taints when it lacks it", when: "needed" })] : []),
  ];
}

/** A join proves the node alive now: registered and Ready, its kubelet Lease renewed after the step began, the host answering; then its role. */
export function joinSends(caps: ReturnType<typeof capabilitiesFor>, h: Pick<EffectiveHost, "name" | "role">, more: PlannedExec[] = []): Pick<StepInput, "exec" | "checks" | "api"> {
  return {
    exec: [alive(), journal(), ...more],
    api: roleCalls(caps, h.name, h.role),
    checks: [`until ${h.name} is registered and Ready${h.role === "master" ? " and its kube-apiserver pod Running and Ready" : ""}; then its kubelet Lease renewed after this step began and the host answering`],
  };
}

/**
 * Before workers join a running cluster: the kubelet bootstrap token they authenticate with is valid
 * (it expires a day after it was applied; see lib/assets/token.ts). None when no worker joins.
 */
export function tokenPhase(def: ClusterDefinition, hosts: readonly EffectiveHost[], assets: AssetIndex): PlannedPhase[] {
  if (!hosts.some((h) => h.role === "worker")) return [];
  const token = orderedObjects(assets, [...assets.keys()].filter(isManifest)).find((o) => o.object.body.type === BOOTSTRAP_TOKEN_TYPE);
  if (!token) throw new PlanError("the asset set has no kubelet bootstrap token: render the assets again");
  return [
    {
      id: "token",
      title: "The kubelet bootstrap token is valid (created again or renewed for a day when it has under 2 hours left)",
      steps: [
        step({
          key: "token/cluster",
          phase: "token",
          action: "bootstrap-token",
          title: "Kubelet bootstrap token valid",
          host: null,
          api: [
            assetCall("create", token.asset, token.object, { rule: `created again when it is gone (the tokencleaner removes expired tokens); ${TOKEN_EXPIRATION_RULE}`, when: "needed" }),
            { id: "renew", verb: "patch", object: token.object.ref, body: { stringData: { expiration: "(a day from when it is sent)" } }, rule: "sent when under 2 hours are left: stringData.expiration a day later (RFC 3339)", when: "needed" },
          ],
          checks: ["reads the token's Secret in kube-system and its expiration"],
          timeoutMs: 2 * MIN,
        }),
      ],
    },
  ];
}

/** Adds workers of the definition to a running cluster: their kubelets join with the bootstrap token. */
export function buildJoinPlan(def: ClusterDefinition, runId: string, assets: AssetIndex, names: readonly string[]): RunPlan {
  const all = def.spec.hosts.map((h) => effectiveHost(def, h));
  const first = all.find((h) => h.role === "master");
  const hosts = selectHosts(all, names);
  const masters = hosts.filter((h) => h.role === "master");
  if (masters.length)
    // Masters join through buildAddNodesPlan (plans-day2.ts), which adds their etcd members one at a time.
    throw new PlanError(`${masters.map((m) => m.name).join(", ")} ${masters.length > 1 ? "are masters" : "is a master"}: a worker join cannot add etcd members; plan a join of these hosts, which adds masters one at a time`);
  if (!first) throw new PlanError("the cluster has no master to join");
  checkAssets(def, assets, hosts, false);
  return {
    runType: "join",
    phases: [
      ...hostPhases(def, new Set(hosts.map((h) => h.name))),
      ...tokenPhase(def, hosts, assets),
      ...installPhases(def, runId, hosts, assets),
      { id: "join", title: "Join the workers; set their role", steps: hosts.map((h) => step({ key: `join/${h.name}`, phase: "join", action: "join", title: `Join worker ${h.name}`, host: h.name, ...joinSends(capabilitiesFor(def.spec.kubernetes.version), h), timeoutMs: 8 * MIN })) },
    ],
    lock: hostLock(runId, hosts.map((h) => h.name)),
  };
}

/** Stops the kubelet and removes what Bootdeck installed on the named hosts. */
export function buildResetPlan(def: ClusterDefinition, runId: string, assetPaths: readonly string[], names: readonly string[]): RunPlan {
  const hosts = selectHosts(def.spec.hosts.map((h) => effectiveHost(def, h)), names);
  return {
    runType: "reset",
    phases: [
      {
        id: "reset",
        title: "Stop the kubelet and its pods; remove Bootdeck's files, the kubelet's state and etcd's data",
        steps: hosts.map((h) =>
          step({
            key: `reset/${h.name}`,
            phase: "reset",
            action: "reset",
            title: `Reset ${h.name}`,
            host: h.name,
            exec: [exec("reset", locked(runId, RESET_SCRIPT, resetPaths(def, h, assetPaths)))],
            // Its Node goes too, so a later join waits for a fresh registration (best effort: a cluster reset whole has no API).
            api: assetPaths.includes("auth/kubeconfig") ? [nodeCall("delete", h.name, { rule: "best effort: a cluster reset whole has no API to answer" })] : [],
            timeoutMs: 3 * MIN,
          }),
        ),
      },
    ],
    lock: hostLock(runId, hosts.map((h) => h.name)),
  };
}

export function selectHosts(all: EffectiveHost[], names: readonly string[]): EffectiveHost[] {
  const unknown = names.filter((n) => !all.some((h) => h.name === n));
  if (unknown.length) throw new PlanError(`not hosts of this cluster: ${unknown.join(", ")}`);
  return all.filter((h) => names.includes(h.name));
}
