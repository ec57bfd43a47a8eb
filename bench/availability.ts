// How an API probe saw an operation: the share of probes answered, how fast, and the longest gap (for
// benchmarks that change a control plane under a client's feet: bench:upgrade, bench:vs-kubeadm).
import { outage, type Probe } from "../test/lab-api";

export type Availability = { answered: number; total: number; share: number; within1sShare: number; longestGapMs: number; summary: string };

/**
 * The longest time no probe got an answer: from the start of the first failed probe of a run of
 * failures to the start of the next answered one (or of the last probe, if none answered after it).
 */
export function longestGapMs(probes: readonly Probe[]): number {
  let longest = 0;
  let failedSince: number | undefined;
  for (const p of probes) {
    if (!p.ok) failedSince ??= p.at;
    else if (failedSince !== undefined) {
      longest = Math.max(longest, p.at - failedSince);
      failedSince = undefined;
    }
  }
  if (failedSince !== undefined) longest = Math.max(longest, probes.at(-1)!.at - failedSince);
  return longest;
}

/** Share answered (HTTP 200 within the probe's limit), within 1 s, the longest gap, failures by kind, and how long answers took. */
export function availability(probes: Probe[], since: number): Availability {
  const o = outage(probes, since);
  const after = probes.filter((p) => p.at >= since);
  // The probe gives no status for a connection refused or reset (fast) or a deadline passed (slow).
  const kind = (p: Probe) => (p.status ? `HTTP ${p.status}` : (p.ms ?? 0) >= 4_900 ? "no answer within 5 s" : "connection refused or reset");
  const byKind = after.filter((p) => !p.ok).reduce<Record<string, number>>((m, p) => ({ ...m, [kind(p)]: (m[kind(p)] ?? 0) + 1 }), {});
  const times = after.filter((p) => p.ok && p.ms !== undefined).map((p) => p.ms!).sort((a, b) => a - b);
  const pct = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  const within1s = times.filter((ms) => ms <= 1_000).length;
  const share = o.answered / Math.max(1, o.total);
  const within1sShare = within1s / Math.max(1, o.total);
  const gap = longestGapMs(after);
  const pctText = (x: number) => `${(100 * x).toFixed(2)} %`;
  const summary = `${o.answered} of ${o.total} answered 200 (${pctText(share)}; within 1 s ${pctText(within1sShare)}); longest gap ${(gap / 1000).toFixed(1)} s; failures ${JSON.stringify(byKind)}${times.length ? `; answers took p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${times.at(-1)} ms` : ""}`;
  return { answered: o.answered, total: o.total, share, within1sShare, longestGapMs: gap, summary };
}
