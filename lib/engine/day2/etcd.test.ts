// etcd's membership as etcdctl reports it (JSON as etcdctl 3.6 prints it; member ids are uint64s past
// 2^53, compared exactly), judged for day-2 changes.
import { describe, expect, it } from "vitest";
import { learnerLag, membershipProblem, memberStates, parseEtcdStatusOutput, removalRefusal } from "./etcd";

const ID = { m1: "10501334649042878790", m2: "12601434649042878791", m3: "17777334649042878799", m4: "9223372036854775809" };
const url = (n: number, port: number) => `https://10.0.0.${10 + n}:${port}`;
const member = (n: 1 | 2 | 3 | 4, learner = false, started = true) => ({ ID: `@${ID[`m${n}`]}@`, ...(started ? { name: `master-${n}`, clientURLs: [url(n, 2379)] } : {}), peerURLs: [url(n, 2380)], ...(learner ? { isLearner: true } : {}) });
const status = (n: 1 | 2 | 3 | 4, extra: Record<string, unknown> = {}) => ({ Endpoint: url(n, 2379), Status: { header: { cluster_id: "@1@", member_id: `@${ID[`m${n}`]}@`, revision: 42, raft_term: 3 }, version: "3.6.8", dbSize: 2048, leader: `@${ID.m1}@`, raftIndex: 900, raftTerm: 3, raftAppliedIndex: 900, dbSizeInUse: 1024, ...extra } });
/** JSON as etcdctl prints it: the ids as bare numbers. */
const raw = (v: unknown) => JSON.stringify(v).replace(/"@(\d+)@"/g, "$1");

function output(members: unknown[], statuses: unknown[], health: unknown[], errors: string[] = []): string {
  return ["--- members", raw({ header: { cluster_id: "@1@" }, members }), "", "--- status", raw(statuses), "", ...errors.map((e) => `error: ${e}`), "--- health", JSON.stringify(health), ""].join("\n");
}

const expected = [1, 2, 3].map((n) => ({ name: `master-${n}`, peerUrl: url(n, 2380), clientUrl: url(n, 2379) }));
const healthy = (n: number) => ({ endpoint: url(n, 2379), health: true, took: "2ms" });

describe("etcd's membership as day-2 runs judge it", () => {
  it("reads member ids exactly and finds every member healthy", () => {
    const view = parseEtcdStatusOutput(output([member(1), member(2), member(3)], [status(1), status(2), status(3)], [healthy(1), healthy(2), healthy(3)]));
    expect(view.members.map((m) => m.id)).toEqual([BigInt(ID.m1).toString(16), BigInt(ID.m2).toString(16), BigInt(ID.m3).toString(16)]);
    expect(memberStates(view).every((s) => s.healthy)).toBe(true);
    expect(membershipProblem(view, expected)).toBeUndefined();
    expect(removalRefusal(view, ["master-3"])).toBeUndefined();
  });

  it("names an unreachable member and refuses to lose the healthy majority, saying why", () => {
    const view = parseEtcdStatusOutput(
      output([member(1), member(2), member(3)], [status(1), status(3)], [healthy(1), healthy(3), { endpoint: url(2, 2379), health: false, error: "context deadline exceeded" }], [`Failed to get the status of endpoint ${url(2, 2379)} (context deadline exceeded)`]),
    );
    expect(membershipProblem(view, expected)).toBe(`etcd is not healthy: master-2 does not answer (Failed to get the status of endpoint ${url(2, 2379)} (context deadline exceeded))`);
    expect(removalRefusal(view, ["master-3"])).toMatch(/^removing master-3 leaves 2 members of which 1 is healthy \(master-2 does not answer .*\): a majority of 2 needs 2; remove the unhealthy member first or bring it back$/);
    // Removing the unhealthy one keeps a healthy majority.
    expect(removalRefusal(view, ["master-2"])).toBeUndefined();
  });

  it("refuses any change when today's members have no healthy majority", () => {
    const view = parseEtcdStatusOutput(output([member(1), member(2), member(3)], [status(1)], [healthy(1)]));
    expect(removalRefusal(view, ["master-2"])).toMatch(/^etcd has 1 healthy of 3 members .*: it needs 2 to commit any change/);
  });

  it("follows a learner from added to caught up, and flags one nobody is adding", () => {
    const added = parseEtcdStatusOutput(output([member(1), member(2), member(3), member(4, true, false)], [status(1), status(2), status(3)], [healthy(1), healthy(2), healthy(3)]));
    expect(memberStates(added).find((s) => s.learner)).toMatchObject({ healthy: false, why: "has not started" });
    expect(membershipProblem(added, expected)).toMatch(/master-4|not healthy/);
    const started = parseEtcdStatusOutput(output([member(1), member(2), member(3), member(4, true)], [status(1), status(2), status(3), status(4, { raftAppliedIndex: 850, isLearner: true })], [healthy(1), healthy(2), healthy(3)]));
    expect(learnerLag(started, url(4, 2380))).toBe(50);
    expect(membershipProblem(started, expected, { allowLearner: url(4, 2380) })).toBeUndefined();
    expect(membershipProblem(started, expected)).toMatch(/^etcd has a learner that is not being added: master-4/);
  });

  it("says when etcd's members differ from the definition", () => {
    const view = parseEtcdStatusOutput(output([member(1), member(2)], [status(1), status(2)], [healthy(1), healthy(2)]));
    expect(membershipProblem(view, expected)).toBe("etcd lacks members the cluster definition lists: master-3");
  });
});
