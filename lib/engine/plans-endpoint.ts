// The API address's phase of a plan: keepalived on the masters when the definition has Bootdeck
// provision its VIP (lib/assets/endpoint.ts). Shared by the bootstrap and by adding masters.
import { ENDPOINT_PATHS, provisionsVip, ssFilterOf } from "../assets/endpoint";
import type { ClusterDefinition } from "../cluster/definition";
import type { EffectiveHost } from "../cluster/derive";
import { shellCommand, shellScript } from "../ssh/quote";
import { ADDRESS_SCRIPT, ENDPOINT_START_SCRIPT } from "./actions/day2-scripts";
import { PACKAGES_SCRIPT } from "./actions/host-scripts";
import type { PlannedExec, PlannedPhase, PlannedStep } from "./plan";

export type { AssetIndex } from "./plan-objects";
import type { AssetIndex } from "./plan-objects";

/** The files keepalived needs on a master: its configuration and unit. */
export function endpointFiles(def: ClusterDefinition): { asset: string; path: string; mode: number }[] {
  if (!provisionsVip(def)) return [];
  return [
    { asset: "endpoint/keepalived.conf", path: ENDPOINT_PATHS.config, mode: 0o644 },
    { asset: "endpoint/bootdeck-keepalived.service", path: ENDPOINT_PATHS.unit, mode: 0o644 },
  ];
}

export const KEEPALIVED_PACKAGE = "keepalived=keepalived";

/**
 * A master's commands that give the API address up and take part in it again, around a step that stops
 * its API server or its etcd member serving (actions/day2-kube.ts moveAddress runs them). None for a
 * worker or where Bootdeck does not provision the VIP.
 */
export function addressMoves(def: ClusterDefinition, runId: string, host: Pick<EffectiveHost, "role">): { release: PlannedExec[]; rejoin: PlannedExec[] } {
  if (!provisionsVip(def) || host.role !== "master") return { release: [], rejoin: [] };
  const move = (id: string, act: "release" | "rejoin"): PlannedExec => ({ id, argv: addressCommand(def, runId, act), when: "always" });
  return { release: [move("release-address", "release")], rejoin: [move("rejoin-address", "rejoin")] };
}

/** The address script's command on a master (it does nothing where Bootdeck's keepalived is not installed). */
export function addressCommand(def: ClusterDefinition, runId: string, act: "release" | "rejoin" | "leave"): string[] {
  const vip = def.spec.apiEndpoint.host ?? "";
  return shellScript(ADDRESS_SCRIPT, [runId, act, vip, ssFilterOf(vip)], "bootdeck");
}

/** keepalived from the host's packages when missing; then started, restarted only when its files changed. */
export function endpointExecs(runId: string, files: readonly { path: string }[]): PlannedExec[] {
  return [
    { id: "package", argv: shellScript(PACKAGES_SCRIPT, [runId, KEEPALIVED_PACKAGE], "bootdeck"), when: "always" },
    { id: "start", argv: shellScript(ENDPOINT_START_SCRIPT, [runId, ...files.map((f) => f.path)], "bootdeck"), when: "always" },
  ];
}

export function endpointStep(def: ClusterDefinition, runId: string, host: EffectiveHost, assets: AssetIndex): PlannedStep {
  const files = endpointFiles(def).map((f) => {
    const a = assets.get(f.asset);
    if (!a) throw new Error(`asset ${f.asset} is missing: render the assets again`);
    return { path: f.path, mode: f.mode, sha256: a.sha256, size: a.size, asset: f.asset };
  });
  const exec = endpointExecs(runId, files);
  return {
    key: `endpoint/${host.name}`,
    phase: "endpoint",
    action: "endpoint",
    title: `API address on ${host.name}`,
    host: host.name,
    files,
    exec,
    commands: exec.map((e) => shellCommand(e.argv)),
    dependsOn: [],
    timeoutMs: 15 * 60_000,
    retries: 2,
  };
}

/** keepalived on the given masters (none when Bootdeck does not provision the endpoint). */
export function endpointPhase(def: ClusterDefinition, runId: string, hosts: readonly EffectiveHost[], assets: AssetIndex): PlannedPhase[] {
  const masters = hosts.filter((h) => h.role === "master");
  if (!provisionsVip(def) || masters.length === 0) return [];
  return [
    {
      id: "endpoint",
      title: `API address ${def.spec.apiEndpoint.host}: keepalived on the masters (from the hosts' packages), held where an API server answers`,
      steps: masters.map((h) => endpointStep(def, runId, h, assets)),
    },
  ];
}
