// How the lab's probes turn into outage figures: the failover checks and benchmarks read these.
import { describe, expect, it } from "vitest";
import { outage, stalls, type Probe } from "./lab-api";

/** One probe every 100 ms from t = 0 to `endMs`, failing where `fails` says. */
function series(endMs: number, fails: (t: number) => boolean): Probe[] {
  const out: Probe[] = [];
  for (let t = 0; t <= endMs; t += 100) out.push({ at: t, ok: !fails(t), status: fails(t) ? 0 : 200 });
  return out;
}

describe("an outage seen by probes", () => {
  it("settles at the first answer after which every probe answers for the hold time", () => {
    const o = outage(series(20_000, (t) => t >= 500 && t < 2_500), 0);
    expect(o).toMatchObject({ firstFailMs: 500, backMs: 2_500, settledMs: 2_500, laterFailures: [] });
  });

  it("does not settle on an answer between failures, and reports a failure after settling apart", () => {
    const o = outage(series(20_000, (t) => (t >= 500 && t < 2_500) || t === 3_000 || t === 17_000), 0);
    expect(o.settledMs).toBe(3_100);
    expect(o.laterFailures).toEqual([17_000]);
    expect(o.backMs).toBe(17_100); // the last failure decides this one
  });

  it("never settles while the address keeps failing, nor when the probes end too soon to tell", () => {
    expect(outage(series(20_000, (t) => t >= 500 && t % 2_000 === 0), 0).settledMs).toBeUndefined();
    expect(outage(series(3_000, (t) => t < 1_000), 0).settledMs).toBeUndefined();
  });
});

describe("failed probes grouped into stalls", () => {
  it("joins failures less than 1.5 s apart, and splits at a longer answered gap", () => {
    expect(stalls([15_718, 16_654])).toEqual([[15_718, 16_654]]);
    expect(stalls([15_470, 18_008, 19_591])).toEqual([[15_470], [18_008], [19_591]]);
    expect(stalls([10_938, 14_486, 15_709, 16_717])).toEqual([[10_938], [14_486, 15_709, 16_717]]);
    expect(stalls([8_117, 6_788, 7_374, 17_376])).toEqual([[6_788, 7_374, 8_117], [17_376]]);
    expect(stalls([])).toEqual([]);
  });
});
