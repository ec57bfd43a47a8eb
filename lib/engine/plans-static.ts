// The bootstrap of a static control plane (controlPlane: static): the same flow as the self-hosted
// bootstrap — facts, preflight, packages, binaries, runtime, kubelets, a temporary control plane on the
// first master, the cluster's objects — but the pivot installs the control plane as static pods on
// every master (the Typhoon and Talos model) instead of handing over to workloads, and no checkpoint
// is needed: after any reboot each master's kubelet starts its control plane from its own files.
import { isStaticControlPlane, type ClusterDefinition } from "../cluster/definition";
import { effectiveHost, type EffectiveHost } from "../cluster/derive";
import { shellScript } from "../ssh/quote";
import { PRESENT_SCRIPT, REMOVE_SCRIPT } from "./actions/host-scripts";
import { bootstrapLeftovers, controlPlaneFiles, missingAssets, staticControlPlaneFiles } from "./host-files";
import type { RunPlan } from "./plan";
import { checkAssets, hostPhases, installPhases, PlanError, type AssetIndex } from "./plans";
import { exec, filesOf, locked, step } from "./plans-dr";

const MIN = 60_000;

export function buildStaticBootstrapPlan(def: ClusterDefinition, runId: string, assets: AssetIndex): RunPlan {
  if (!isStaticControlPlane(def)) throw new PlanError("not a static control plane");
  const hosts = def.spec.hosts.map((h) => effectiveHost(def, h));
  const masters = hosts.filter((h) => h.role === "master");
  const workers = hosts.filter((h) => h.role === "worker");
  const first = masters[0];
  if (!first) throw new PlanError("a bootstrap needs at least one master");
  checkAssets(def, assets, hosts, false);
  const paths = [...assets.keys()];
  const staticFiles = staticControlPlaneFiles(paths);
  const missing = missingAssets([...controlPlaneFiles(paths), ...staticFiles, { asset: "auth/kubeconfig", path: "", mode: 0 }], new Set(paths));
  if (missing.length || !staticFiles.some((f) => f.asset.startsWith("static-manifests/")))
    throw new PlanError(`the latest asset set lacks ${missing.slice(0, 5).join(", ") || "the static control plane (static-manifests/)"}: it was rendered for another control-plane mode; render the assets again`);
  const leftovers = bootstrapLeftovers(paths);
  const joinKey = (h: EffectiveHost) => `join/${h.name}`;
  const lastMaster = masters[masters.length - 1] ?? first;
  const staticKey = (m: EffectiveHost) => `pivot/${m.name}`;
  return {
    runType: "bootstrap",
    phases: [
      ...hostPhases(def),
      ...installPhases(def, runId, hosts, assets),
      {
        id: "control-plane",
        title: "Temporary control plane on the first master; wait for the API",
        steps: [
          step({
            key: `control-plane/${first.name}`,
            phase: "control-plane",
            action: "control-plane",
            title: `Bootstrap control plane on ${first.name}`,
            host: first.name,
            files: filesOf(controlPlaneFiles(paths), assets),
            describe: ["GET /healthz and GET /api/v1/namespaces/kube-system through the SSH tunnel until both answer 200 (deadline 5 min)"],
            timeoutMs: 7 * MIN,
          }),
        ],
      },
      {
        id: "self-hosted",
        title: "Create the cluster's objects (Namespaces, CRDs until served, then the rest)",
        steps: [
          step({
            key: "self-hosted/cluster",
            phase: "self-hosted",
            action: "self-hosted",
            title: "Cluster objects (add-ons, RBAC, bootstrap token)",
            host: null,
            describe: [...paths.filter((p) => p.startsWith("manifests/")).map((p) => `create what is missing from ${p}`), `label ${first.name} as master`],
            timeoutMs: 6 * MIN,
          }),
        ],
      },
      {
        id: "pivot",
        title: "Pivot: the control plane as static pods on every master, Ready; remove the temporary one",
        steps: [
          ...masters.map((m) =>
            step({
              key: staticKey(m),
              phase: "pivot",
              action: "static-control-plane",
              title: `Static control plane on ${m.name}`,
              host: m.name,
              files: filesOf(staticFiles, assets),
              describe: [`until kube-apiserver, kube-controller-manager and kube-scheduler of ${m.name} are Running and Ready (deadline 8 min)`],
              timeoutMs: 10 * MIN,
            }),
          ),
          step({
            key: "pivot/cluster",
            phase: "pivot",
            action: "pivot",
            title: "Remove the temporary control plane",
            host: null,
            dependsOn: masters.map(staticKey),
            exec: [exec("present", shellScript(PRESENT_SCRIPT, leftovers, "bootdeck-present"), { host: first.name }), exec("remove", locked(runId, REMOVE_SCRIPT, leftovers), { host: first.name })],
            describe: ["then until the API answers without the temporary API server's pod, with a marker written before"],
            timeoutMs: 16 * MIN,
          }),
        ],
      },
      {
        id: "join",
        title: "Join the masters one at a time, then the workers; set roles and taints",
        steps: [
          ...masters.map((m, i) => step({ key: joinKey(m), phase: "join", action: "join", title: `Join master ${m.name}`, host: m.name, dependsOn: i > 0 ? [joinKey(masters[i - 1] as EffectiveHost)] : [], timeoutMs: 12 * MIN })),
          ...workers.map((w) => step({ key: joinKey(w), phase: "join", action: "join", title: `Join worker ${w.name}`, host: w.name, dependsOn: [joinKey(lastMaster)], timeoutMs: 8 * MIN })),
        ],
      },
      {
        id: "verify",
        title: "Verify: nodes Ready, pods Running and Ready",
        steps: [step({ key: "verify/cluster", phase: "verify", action: "verify", title: "Verify the cluster", host: null, timeoutMs: 4 * MIN })],
      },
    ],
  };
}
