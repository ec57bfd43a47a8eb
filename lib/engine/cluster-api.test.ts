import { describe, expect, it } from "vitest";
import { TunnelRoute } from "./cluster-api";

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
