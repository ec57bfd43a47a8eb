// Where a cluster stands, in one word and a sentence, for the top of its page: the rules are plain
// data in, state out (unit-tested in lifecycle.test.ts); the facts come from lifecycle-facts.ts.
import type { ClusterView } from "./repository";

export type LifecycleState = "not-bootstrapped" | "bootstrapping" | "changing" | "healthy" | "degraded";

export type Lifecycle = { state: LifecycleState; detail: string; activeRun: { id: string; type: string } | null };

/** GET /api/clusters/:id: the cluster (lib/clusters/repository.ts) and where it stands. */
export type ClusterPageView = ClusterView & { lifecycle: Lifecycle; /** Hosts a bootstrap or join put in the cluster, not reset since. */ members: string[] };

export type LifecycleFacts = {
  /** A run other than a check succeeded on the hosts (deployed.ts). */
  deployed: boolean;
  activeRun: { id: string; type: string } | null;
  /** The newest finished run other than a check. */
  lastChange: { type: string; status: string } | null;
  /** Nodes as the live view last saw them. */
  nodes: { ready: number; total: number } | null;
};

/** What a run of each type is called in a sentence. */
const RUN_NOUN: Record<string, string> = { bootstrap: "bootstrap", join: "join", reset: "reset", backup: "backup", restore: "restore", recover: "recovery", "rotate-certs": "certificate rotation", "rotate-encryption-key": "encryption key rotation", upgrade: "upgrade", remove: "removal", check: "check" };
const noun = (type: string) => RUN_NOUN[type] ?? `${type} run`;
const withArticle = (s: string) => `${/^[aeiou]/.test(s) ? "an" : "a"} ${s}`;

export function clusterLifecycle(f: LifecycleFacts): Lifecycle {
  const activeRun = f.activeRun;
  // A bootstrap of hosts that ran a cluster before (after a reset) is a bootstrap all the same.
  if (activeRun?.type === "bootstrap") return { state: "bootstrapping", detail: "a bootstrap is under way", activeRun };
  if (!f.deployed) {
    if (activeRun) return { state: "not-bootstrapped", detail: `not bootstrapped yet; ${withArticle(noun(activeRun.type))} is under way`, activeRun };
    return { state: "not-bootstrapped", detail: "nothing is installed on its hosts yet: check them, then bootstrap (you review the whole plan before anything runs)", activeRun };
  }
  if (activeRun) return { state: "changing", detail: `${withArticle(noun(activeRun.type))} is under way`, activeRun };
  if (f.nodes && f.nodes.ready < f.nodes.total) return { state: "degraded", detail: `${f.nodes.ready} of ${f.nodes.total} nodes Ready when last seen`, activeRun };
  if (f.lastChange && f.lastChange.status !== "succeeded") return { state: "degraded", detail: `the last ${noun(f.lastChange.type)} ${f.lastChange.status === "needs-decision" ? "needs a decision" : f.lastChange.status}`, activeRun };
  return { state: "healthy", detail: f.nodes ? `${f.nodes.ready} of ${f.nodes.total} nodes Ready when last seen` : "bootstrapped; watch pods and nodes to see them now", activeRun };
}

/**
 * Why the actions on a running cluster (join, remove, upgrade, backup, recover, certificates) do not
 * apply yet, or undefined once it was bootstrapped (or restored onto this dashboard from a bucket). The
 * cluster page disables them with this reason; reset stays. A cluster.yaml imported into this dashboard
 * after another one made the cluster counts as not bootstrapped: it has none of that cluster's PKI (its
 * render would make new CAs), so it is taken over by a restore from the bucket its backups went to.
 */
export function dayTwoRefusal(state: LifecycleState): string | undefined {
  if (state === "not-bootstrapped") return "Not bootstrapped yet: these act on a running cluster. Bootstrap it first.";
  if (state === "bootstrapping") return "A bootstrap is under way: these act on the running cluster once it has finished.";
  return undefined;
}
