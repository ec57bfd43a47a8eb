// A failed run's one-line outcome says what failed: the hosts, and each cluster-wide step with its error.
import { describe, expect, it } from "vitest";
import { summarizeRun, type StepOutcome } from "./summary";

const step = (key: string, status: string, host: string | null, error: string | null = null): StepOutcome => ({ key, status, host, error, title: key === "pivot/cluster" ? "Pivot to the self-hosted control plane" : key });

describe("the run summary", () => {
  it("names the failed hosts", () => {
    const s = summarizeRun({ status: "failed", runHosts: 6, steps: [step("kubelet/worker-3", "failed", "worker-3", "boom"), step("kubelet/worker-1", "done", "worker-1")] });
    expect(s.message).toBe("failed on 1 of 6 hosts: worker-3");
  });

  it("names a failed cluster-wide step and its error instead of 'failed on 0 of 6 hosts'", () => {
    const s = summarizeRun({ status: "failed", runHosts: 6, steps: [step("pivot/cluster", "failed", null, "timed out after 6 min waiting for the self-hosted kube-apiserver\nmore"), step("join/worker-1", "skipped", "worker-1")] });
    expect(s.message).toBe("failed: Pivot to the self-hosted control plane (pivot/cluster): timed out after 6 min waiting for the self-hosted kube-apiserver");
    expect(s.message).not.toMatch(/0 of 6/);
    expect(s.failedSteps).toEqual([{ key: "pivot/cluster", title: "Pivot to the self-hosted control plane", error: "timed out after 6 min waiting for the self-hosted kube-apiserver\nmore" }]);
  });

  it("says both when hosts and a cluster-wide step failed", () => {
    const s = summarizeRun({ status: "failed", runHosts: 6, steps: [step("preflight/worker-2", "failed", "worker-2", "swap"), step("verify/cluster", "failed", null, "not Ready: worker-1")] });
    expect(s.message).toBe("failed on 1 of 6 hosts: worker-2; verify/cluster (verify/cluster): not Ready: worker-1");
  });

  it("counts done steps and says all hosts are done on success", () => {
    const s = summarizeRun({ status: "succeeded", runHosts: 2, steps: [step("a", "done", "h1"), step("b", "done", "h2")] });
    expect(s).toMatchObject({ steps: 2, done: 2, failed: 0, message: "all 2 hosts done" });
  });

  it("says '1 host done' for a run of one host, not 'all 1 hosts done'", () => {
    const s = summarizeRun({ status: "succeeded", runHosts: 1, steps: [step("facts/worker-1", "done", "worker-1"), step("join/worker-1", "done", "worker-1")] });
    expect(s.message).toBe("1 host done");
  });

  it("counts steps, not '0 hosts', for a run of cluster-wide steps only (a backup)", () => {
    expect(summarizeRun({ status: "succeeded", runHosts: 0, steps: [step("snapshot/cluster", "done", null)] }).message).toBe("1 step done");
    expect(summarizeRun({ status: "succeeded", runHosts: 0, steps: [step("a/cluster", "done", null), step("b/cluster", "done", null)] }).message).toBe("all 2 steps done");
  });
});
