// A cluster's state at the top of its page, from its runs and what the live view last saw.
import { describe, expect, it } from "vitest";
import { clusterLifecycle, dayTwoRefusal, type LifecycleFacts } from "./lifecycle";

const facts = (f: Partial<LifecycleFacts>): LifecycleFacts => ({ deployed: true, activeRun: null, lastChange: { type: "bootstrap", status: "succeeded" }, nodes: { ready: 6, total: 6 }, ...f });

describe("a cluster's state", () => {
  it("is not bootstrapped until a run other than a check succeeded, whatever was planned or checked", () => {
    expect(clusterLifecycle(facts({ deployed: false, lastChange: null, nodes: null }))).toMatchObject({ state: "not-bootstrapped", detail: expect.stringContaining("then bootstrap") });
    expect(clusterLifecycle(facts({ deployed: false, lastChange: { type: "bootstrap", status: "failed" }, nodes: null })).state).toBe("not-bootstrapped");
    expect(clusterLifecycle(facts({ deployed: false, activeRun: { id: "run_1", type: "check" } }))).toMatchObject({ state: "not-bootstrapped", activeRun: { id: "run_1" } });
  });

  it("is bootstrapping while its first bootstrap runs, and changing while any run changes a bootstrapped one", () => {
    expect(clusterLifecycle(facts({ deployed: false, activeRun: { id: "run_1", type: "bootstrap" } })).state).toBe("bootstrapping");
    // Hosts that ran a cluster before (reset since) bootstrapped again: bootstrapping too.
    expect(clusterLifecycle(facts({ lastChange: { type: "reset", status: "succeeded" }, activeRun: { id: "run_1", type: "bootstrap" } })).state).toBe("bootstrapping");
    expect(clusterLifecycle(facts({ activeRun: { id: "run_3", type: "rotate-certs" } })).detail).toBe("a certificate rotation is under way");
    expect(clusterLifecycle(facts({ activeRun: { id: "run_2", type: "upgrade" } }))).toMatchObject({ state: "changing", detail: "an upgrade is under way" });
  });

  it("is degraded when nodes were seen not Ready or its last change did not succeed, healthy otherwise", () => {
    expect(clusterLifecycle(facts({ nodes: { ready: 5, total: 6 } }))).toMatchObject({ state: "degraded", detail: "5 of 6 nodes Ready when last seen" });
    expect(clusterLifecycle(facts({ lastChange: { type: "upgrade", status: "failed" } }))).toMatchObject({ state: "degraded", detail: "the last upgrade failed" });
    expect(clusterLifecycle(facts({ lastChange: { type: "join", status: "needs-decision" } })).detail).toBe("the last join needs a decision");
    expect(clusterLifecycle(facts({}))).toMatchObject({ state: "healthy", detail: "6 of 6 nodes Ready when last seen" });
    expect(clusterLifecycle(facts({ nodes: null })).detail).toMatch(/^bootstrapped/);
  });

  it("offers the actions on a running cluster only once it was bootstrapped, saying why not before", () => {
    expect(dayTwoRefusal(clusterLifecycle(facts({ deployed: false, lastChange: null, nodes: null })).state)).toMatch(/^Not bootstrapped yet: .*Bootstrap it first/);
    expect(dayTwoRefusal(clusterLifecycle(facts({ deployed: false, activeRun: { id: "r", type: "bootstrap" } })).state)).toMatch(/^A bootstrap is under way/);
    for (const f of [facts({}), facts({ nodes: { ready: 2, total: 6 } }), facts({ activeRun: { id: "r", type: "upgrade" } })]) expect(dayTwoRefusal(clusterLifecycle(f).state)).toBeUndefined();
  });
});
