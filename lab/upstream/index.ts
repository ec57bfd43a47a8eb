// `bootdeck lab binaries`: the upstream components a lab cluster of a Kubernetes version runs, built
// once and cached. Test bed only.
import { versionProfiles } from "../../lib/cluster/versions";
import { cacheSize, cachedComponent, ensureComponent, type BuiltComponent, type Log } from "./build";
import { componentKey, componentsForCluster, conformanceComponent, promtoolComponent, registryComponent, seaweedfsComponent, type Component } from "./components";

/** The Kubernetes versions the lab runs: every profile's default version. */
export const realVersions = (): string[] => versionProfiles.map((p) => p.defaultVersion);

/** The version whose conformance suite the README's test command runs a subset of (the bootstrap suite's first cluster). */
export const conformanceTestVersion = (): string => realVersions().at(-1)!;

/** What the test suites build besides clusters: the S3 server of the backup tests, promtool for /metrics, a conformance suite. */
const testTools = (): Component[] => [seaweedfsComponent(), promtoolComponent(), conformanceComponent(conformanceTestVersion())];

export type Wanted = { versions: readonly string[]; testTools?: boolean };

/** Every component a lab cluster of these versions needs, the registry included, by cache key. */
function wantedComponents({ versions, testTools: withTools }: Wanted): Map<string, Component> {
  const wanted = new Map<string, Component>();
  for (const v of versions) for (const c of componentsForCluster(v)) wanted.set(componentKey(c), c);
  for (const c of [registryComponent(), ...(withTools ? testTools() : [])]) wanted.set(componentKey(c), c);
  return wanted;
}

/** The components of these versions not in the cache yet (what a first run on a new machine builds). */
export function missingBinaries(want: Wanted): string[] {
  return [...wantedComponents(want)].filter(([, c]) => !cachedComponent(c)).map(([key]) => key);
}

/** Builds (or finds cached) everything for the given Kubernetes versions; one line per component. */
export async function ensureBinaries(want: Wanted, log: Log): Promise<Map<string, BuiltComponent>> {
  const wanted = wantedComponents(want);
  const started = Date.now();
  const built = new Map<string, BuiltComponent>();
  let i = 0;
  for (const [key, c] of wanted) {
    i++;
    const t = Date.now();
    const b = await ensureComponent(c, (l) => log(`[${i}/${wanted.size}] ${l}`));
    built.set(key, b);
    log(`[${i}/${wanted.size}] ${key}: ${b.cached ? "cached" : `built in ${((Date.now() - t) / 1000).toFixed(0)} s`} (${Object.keys(b.binaries).sort().join(", ")})`);
  }
  const fresh = [...built.values()].filter((b) => !b.cached).length;
  log(`${built.size} components ready (${fresh} built) in ${((Date.now() - started) / 1000).toFixed(1)} s; cache ${(cacheSize() / 2 ** 30).toFixed(2)} GiB`);
  return built;
}
