// The API probe behind the rotation's "API gap": what it counts and what it says about a failure.
import { describe, expect, it } from "vitest";
import { gapText, probeApi } from "./api-probe";

/** An API whose n-th request (from 0) answers as `answer(n)` says: a status, or an error after a delay. */
function scriptedApi(answer: (n: number) => number | { error: string; afterMs: number }) {
  let n = 0;
  return {
    calls: () => n,
    async request() {
      const a = answer(n++);
      if (typeof a === "number") return { status: a, body: "" };
      await new Promise((r) => setTimeout(r, a.afterMs));
      throw new Error(a.error);
    },
  };
}

/** Probes `api` every 5 ms until it has been asked `requests` times, then stops the probe. */
async function probeUntil(api: ReturnType<typeof scriptedApi>, requests: number) {
  const probe = probeApi(api, new AbortController().signal, 5);
  while (api.calls() < requests) await new Promise((r) => setTimeout(r, 5));
  return probe.stop();
}

describe("the API probe", () => {
  it("reports no failure and no gap while every probe answers 200", async () => {
    const p = await probeUntil(scriptedApi(() => 200), 5);
    expect(p.failed).toBe(0);
    expect(p.longestGapS).toBe(0);
    expect(gapText(p)).toMatch(/^API probed \d+ times, 0 failed, longest gap 0\.0 s$/);
  });

  it("says when the first failure came, how long it took and what it met, and counts the gap to the next answer", async () => {
    const api = scriptedApi((n) => (n === 2 ? { error: "no answer from the API at 10.0.0.1:6443 within 2 s", afterMs: 60 } : n === 3 ? 503 : 200));
    const p = await probeUntil(api, 6);
    expect(p.failed).toBe(2);
    expect(p.longestGapS).toBeGreaterThanOrEqual(0.06);
    expect(p.firstFailure).toMatch(/^the first \d+\.\d s in, after \d+\.\d s: no answer from the API at 10\.0\.0\.1:6443 within 2 s$/);
    expect(gapText(p)).toContain("2 failed (the first");
  });

  it("counts a failure that lasts until the probe stops", async () => {
    const p = await probeUntil(scriptedApi((n) => (n < 1 ? 200 : 500)), 4);
    expect(p.failed).toBeGreaterThanOrEqual(3);
    expect(p.longestGapS).toBeGreaterThan(0);
    expect(p.firstFailure).toContain("HTTP 500");
  });
});
