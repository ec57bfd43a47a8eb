import { PassThrough, type Duplex } from "node:stream";
import { describe, expect, it } from "vitest";
import type { HostTarget } from "../ssh";
import { ClusterApi, TunnelRoute } from "./cluster-api";

const masters = [{ id: "master-1" }, { id: "master-2" }, { id: "master-3" }];
const ids = (hs: { id: string }[]) => hs.map((h) => h.id);

describe("the masters an API tunnel goes through", () => {
  it("are tried in the cluster's order at first", () => {
    expect(ids(new TunnelRoute().order(masters))).toEqual(["master-1", "master-2", "master-3"]);
  });

  it("start with the one the last tunnel went through", () => {
    const route = new TunnelRoute();
    route.succeeded("master-3");
    expect(ids(route.order(masters))).toEqual(["master-3", "master-1", "master-2"]);
  });

  it("leave a master whose tunnel failed for last, for 30 s, so a cut-off master is not waited out by every request", () => {
    let now = 1_000_000;
    const route = new TunnelRoute(() => now);
    route.succeeded("master-1");
    route.failed("master-1");
    route.succeeded("master-2");
    expect(ids(route.order(masters))).toEqual(["master-2", "master-3", "master-1"]);
    now += 29_000;
    expect(ids(route.order(masters))).toEqual(["master-2", "master-3", "master-1"]);
    now += 2_000;
    expect(ids(route.order(masters))).toEqual(["master-2", "master-1", "master-3"]);
  });

  it("take a failed master back first once a tunnel through it works again", () => {
    const route = new TunnelRoute();
    route.failed("master-1");
    route.failed("master-2");
    expect(ids(route.order(masters))).toEqual(["master-3", "master-1", "master-2"]);
    route.succeeded("master-2");
    expect(ids(route.order(masters))).toEqual(["master-2", "master-3", "master-1"]);
  });
});

describe("a request through the tunnel", () => {
  // A master whose stream opens but carries nothing back (its path to the address hangs), and one whose
  // stream closes at once (an API server that hung up): enough to see which way each request went.
  const hanging = (): Duplex => new PassThrough({ read() {} , write(_c, _e, cb) { cb(); } });
  const hangingUp = (): Duplex => {
    const s = new PassThrough();
    setImmediate(() => s.end());
    return s;
  };

  function apiOver(streams: Record<string, () => Duplex>) {
    const tried: string[] = [];
    const api = new ClusterApi({
      executor: { forward: async (host: HostTarget) => (tried.push(host.id), streams[host.id]!()) },
      via: () => ["master-1", "master-2"].map((id) => ({ id }) as HostTarget),
      endpoint: { host: "10.0.0.250", port: 6443 },
      credentials: { caPem: "", certPem: "", keyPem: "" },
    });
    return { api, tried };
  }

  it("that gets no answer names the master it went through, and the next request goes through another", async () => {
    const { api, tried } = apiOver({ "master-1": hanging, "master-2": hangingUp });
    try {
      await expect(api.request("/readyz", { timeoutMs: 200 })).rejects.toThrow("no answer from the API at 10.0.0.250:6443 (through master-1) within 0.2 s");
      await expect(api.request("/readyz", { timeoutMs: 200 })).rejects.toThrow("disconnected before secure TLS connection was established");
      expect(tried).toEqual(["master-1", "master-2"]);
    } finally {
      await api.close();
    }
  });
  it("sent at once with others on a new client all go through the tunnel (none to a port not yet open)", async () => {
    const { api, tried } = apiOver({ "master-1": hangingUp, "master-2": hangingUp });
    try {
      const answers = await Promise.allSettled([api.request("/readyz", { timeoutMs: 2_000 }), api.request("/metrics", { timeoutMs: 2_000 })]);
      for (const a of answers) expect(a.status === "rejected" && (a.reason as Error).message).toMatch(/disconnected before secure TLS connection was established/);
      expect(tried).toHaveLength(2);
    } finally {
      await api.close();
    }
  });
});
