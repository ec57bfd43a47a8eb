// The API probed while a step restarts what serves it: what the rotation's steps report as the gap.
import type { ClusterApiClient } from "../cluster-api";

export type ProbeSummary = { probes: number; failed: number; longestGapS: number; firstFailure?: string };

/**
 * Probes /readyz every 250 ms (each given 2 s) until stopped: how many probes failed, the longest run
 * of failures, and what the first failure met (when, how long it took, the error), for the summary.
 */
export function probeApi(api: Pick<ClusterApiClient, "request">, signal: AbortSignal, intervalMs = 250): { stop: () => Promise<ProbeSummary> } {
  let stopped = false;
  let probes = 0;
  let failed = 0;
  let downSince: number | undefined;
  let longest = 0;
  let firstFailure: string | undefined;
  const started = Date.now();
  const loop = (async () => {
    while (!stopped && !signal.aborted) {
      const at = Date.now();
      let why: string | undefined;
      try {
        const status = (await api.request("/readyz", { timeoutMs: 2_000 })).status;
        if (status !== 200) why = `HTTP ${status}`;
      } catch (err) {
        why = (err as Error).message;
      }
      probes++;
      if (why === undefined) {
        if (downSince !== undefined) longest = Math.max(longest, at - downSince);
        downSince = undefined;
      } else {
        failed++;
        downSince ??= at;
        firstFailure ??= `the first ${((at - started) / 1000).toFixed(1)} s in, after ${((Date.now() - at) / 1000).toFixed(1)} s: ${why}`;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, intervalMs - (Date.now() - at))));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      if (downSince !== undefined) longest = Math.max(longest, Date.now() - downSince);
      return { probes, failed, longestGapS: longest / 1000, firstFailure };
    },
  };
}

export const gapText = (p: ProbeSummary) =>
  `API probed ${p.probes} times, ${p.failed} failed${p.firstFailure ? ` (${p.firstFailure})` : ""}, longest gap ${p.longestGapS.toFixed(1)} s`;
