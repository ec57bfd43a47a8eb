// One node's kubelet upgrade against a recording executor and a scripted API: what it sends, in which
// order, and what it does when the new kubelet does not come back Ready (rolls back, says so, leaves
// the node in service) or is there already (a resumed run: nothing but the uncordon).
import { beforeAll, describe, expect, it } from "vitest";
import { keptPkiFrom } from "../../assets/keep";
import { renderAssets } from "../../assets/render";
import { validateClusterDefinition, type ClusterDefinition } from "../../cluster/definition";
import { exampleDefinition } from "../../cluster/example";
import type { PlannedStep } from "../plan";
import { assetIndexFrom } from "../plan-objects";
import { buildUpgradePlan } from "../plans-day2";
import { upgradeActions } from "./upgrade";
import { WaitAbandoned, type ActionContext } from "./types";

let def: ClusterDefinition;
let step: PlannedStep;
let masterStep: PlannedStep;
let files: Map<string, string>;

beforeAll(async () => {
  const v = validateClusterDefinition(exampleDefinition({ hosts: 4 }));
  if (!v.ok) throw new Error("invalid");
  def = v.definition;
  const before = await renderAssets(def);
  const after = await renderAssets({ ...def, spec: { ...def.spec, kubernetes: { ...def.spec.kubernetes, version: "v1.37.2" } } }, { keep: keptPkiFrom(new Map(before.map((a) => [a.path, a.content]))) });
  files = new Map(after.map((a) => [a.path, a.content]));
  const index = assetIndexFrom(after);
  const plan = buildUpgradePlan(def, "run_AAAAAAAAAAAAAAAA", index, { to: "v1.37.2" });
  step = plan.phases.flatMap((p) => p.steps).find((s) => s.key === "kubelet/worker-1")!;
  masterStep = plan.phases.flatMap((p) => p.steps).find((s) => s.key === "kubelet/master-1")!;
}, 60_000);

type Node = { version: string; ready: boolean; unschedulable: boolean };

/**
 * A fake context for worker-1 (or master-1): `node(n)` answers the n-th read of the Node, `readyz(n)`
 * the n-th /readyz of the master's own API server; every command and API write is recorded.
 */
function fakeContext(opts: { node: (reads: number) => Node; written?: number; master?: boolean; readyz?: (n: number) => string; cordonFailures?: number; uncordonFailures?: number; nodeReadFailures?: (reads: number) => boolean }) {
  let cordonFailures = opts.cordonFailures ?? 0;
  let uncordonFailures = opts.uncordonFailures ?? 0;
  const sent: string[] = [];
  let reads = 0;
  let readyz = 0;
  let unschedulable = opts.node(0).unschedulable;
  const name = opts.master ? "master-1" : "worker-1";
  const step_ = opts.master ? masterStep : step;
  const host = { id: "host_1", name, role: opts.master ? ("master" as const) : ("worker" as const), address: "192.0.2.14", target: { id: name, address: "192.0.2.14", user: "root", auth: { kind: "agent" as const }, hostKey: {} } };
  const api = {
    endpoint: "api:6443",
    async getJson(path: string) {
      if (path.startsWith("/api/v1/nodes/")) {
        if (opts.nodeReadFailures?.(reads)) {
          reads++;
          throw new Error("no answer from the API at api:6443 within 10 s");
        }
        const n = opts.node(reads++);
        return { metadata: { name }, spec: { unschedulable }, status: { nodeInfo: { kubeletVersion: n.version }, conditions: [{ type: "Ready", status: n.ready ? "True" : "False", reason: "KubeletNotReady" }] } };
      }
      if (path === "/api/v1/nodes") return { items: [{ metadata: { name: "master-1" } }] };
      if (path.startsWith("/api/v1/namespaces/kube-system/pods?labelSelector=k8s-app%3Dkube-apiserver"))
        return { items: [{ metadata: { name: "kube-apiserver-x" }, spec: { nodeName: "master-1", containers: [{}] }, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } }] };
      if (path.startsWith("/api/v1/pods")) return { items: [] };
      throw new Error(`unexpected GET ${path}`);
    },
    async request(path: string, o: { method?: string; body?: unknown }) {
      if (o.method === "PATCH") {
        const uncordon = (o.body as { spec: { unschedulable: boolean | null } }).spec.unschedulable !== true;
        if (!uncordon && cordonFailures-- > 0) throw new Error("no answer from the API at api:6443 within 10 s");
        if (uncordon && uncordonFailures-- > 0) throw new Error("no answer from the API at api:6443 within 10 s");
        unschedulable = (o.body as { spec: { unschedulable: boolean | null } }).spec.unschedulable === true;
        sent.push(`api ${unschedulable ? "cordon" : "uncordon"}`);
        return { status: 200, body: "{}" };
      }
      throw new Error(`unexpected ${o.method} ${path}`);
    },
  };
  const ctx = {
    runId: "run_AAAAAAAAAAAAAAAA",
    runType: "upgrade",
    planned: step_,
    host,
    hosts: [host],
    signal: new AbortController().signal,
    emit: async () => undefined,
    executor: {
      async run(_t: unknown, argv: string[]) {
        const e = step_.exec?.find((x) => x.argv === argv || JSON.stringify(x.argv) === JSON.stringify(argv));
        sent.push(`exec ${e?.id ?? argv.join(" ").slice(0, 40)}`);
        const out = e?.id === "rollback" ? "bootdeck-rolled-back to abc\n" : e?.id === "apiserver-ready" ? `${opts.readyz?.(readyz++) ?? "200"}\n` : "";
        return { host: name, step: step_.key, exitCode: 0, stdout: Buffer.from(out), stderrTail: [], durationMs: 1 };
      },
      async upload(_t: unknown, specs: unknown[]) {
        sent.push(`upload ${specs.length}`);
        return { written: opts.written ?? specs.length, unchanged: 0 };
      },
    },
    resources: { api: () => api, asset: (p: string) => files.get(p) ?? "", masters: [{ name: "master-1" }] },
    // As the engine's wait: a check that throws is not done yet, unless it abandons the wait.
    wait: async <T,>(what: string, o: { timeoutMs: number }, check: () => Promise<{ ok: true; value: T } | { ok: false; why: string }>) => {
      for (let i = 0; i < 5; i++) {
        try {
          const r = await check();
          if (r.ok) return r.value;
        } catch (err) {
          if (err instanceof WaitAbandoned) throw err;
        }
      }
      throw new Error(`timed out after ${o.timeoutMs / 60_000} min waiting for ${what}`);
    },
  } as unknown as ActionContext;
  return { ctx, sent };
}

describe("a node's kubelet upgrade", () => {
  it("cordons, keeps the old kubelet, swaps, restarts, waits for Ready with the new version, uncordons", async () => {
    const { ctx, sent } = fakeContext({ node: (n) => (n < 2 ? { version: "v1.36.3", ready: true, unschedulable: false } : { version: "v1.37.2", ready: true, unschedulable: false }) });
    const r = await upgradeActions["kubelet-upgrade"]!(ctx);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(sent).toEqual(["api cordon", "exec save", "exec swap kubelet", "exec swap kubectl", `upload ${step.files.length}`, "exec start", "api uncordon"]);
  });

  it("waits out an API that does not answer the cordon at first (a VIP moving), then drains and upgrades", async () => {
    const { ctx, sent } = fakeContext({ cordonFailures: 2, node: (n) => (n < 2 ? { version: "v1.36.3", ready: true, unschedulable: false } : { version: "v1.37.2", ready: true, unschedulable: false }) });
    const r = await upgradeActions["kubelet-upgrade"]!(ctx);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(sent).toEqual(["api cordon", "exec save", "exec swap kubelet", "exec swap kubectl", `upload ${step.files.length}`, "exec start", "api uncordon"]);
  });

  it("does not fail a node that came back because the API missed a request around it (the address moving): its read and its uncordon are tried again", async () => {
    const { ctx, sent } = fakeContext({
      uncordonFailures: 2,
      // The first read of the Node, before anything is done, meets no answer.
      nodeReadFailures: (n) => n === 0,
      node: (n) => (n < 3 ? { version: "v1.36.3", ready: true, unschedulable: false } : { version: "v1.37.2", ready: true, unschedulable: false }),
    });
    const r = await upgradeActions["kubelet-upgrade"]!(ctx);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(sent).toEqual(["api cordon", "exec save", "exec swap kubelet", "exec swap kubectl", `upload ${step.files.length}`, "exec start", "api uncordon"]);
  });

  it("rolls a node back when its new kubelet does not come back Ready, and stops with why", async () => {
    const { ctx, sent } = fakeContext({ node: (n) => (n < 2 ? { version: "v1.36.3", ready: true, unschedulable: false } : n < 9 ? { version: "v1.37.2", ready: false, unschedulable: true } : { version: "v1.36.3", ready: true, unschedulable: true }) });
    const r = await upgradeActions["kubelet-upgrade"]!(ctx);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatch(/^timed out after 4 min waiting for worker-1 Ready with kubelet v1\.37\.2; rolled back \(bootdeck-rolled-back to abc\): worker-1 is Ready with kubelet v1\.36\.3 and uncordoned; the upgrade stops here$/);
    expect(r.data?.rolledBack).toBe(true);
    // ("exec alive": every 10 s the wait checks the host still answers, with the plan's read-only command.)
    expect(sent.filter((x) => x !== "exec alive").slice(-4)).toEqual(["exec start", "exec journal", "exec rollback", "api uncordon"]);
  });

  it("moves on from a master only once its own API server answers /readyz three times in a row and every master's API server is Ready", async () => {
    const codes = ["000", "200", "503", "200", "200", "200"];
    const { ctx, sent } = fakeContext({ master: true, readyz: (n) => codes[n] ?? "200", node: (n) => (n < 2 ? { version: "v1.36.3", ready: true, unschedulable: false } : { version: "v1.37.2", ready: true, unschedulable: false }) });
    // The fake wait gives up after five polls: three in a row must come after the 503.
    const r = await upgradeActions["kubelet-upgrade"]!(ctx);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatch(/^timed out after 4 min waiting for master-1's API server ready \(its \/readyz, with its etcd member, three times in a row\); /);
    const again = fakeContext({ master: true, readyz: (n) => ["000", "200", "200", "200"][n] ?? "200", node: (n) => (n < 2 ? { version: "v1.36.3", ready: true, unschedulable: false } : { version: "v1.37.2", ready: true, unschedulable: false }) });
    expect(await upgradeActions["kubelet-upgrade"]!(again.ctx)).toMatchObject({ ok: true });
    expect(again.sent.filter((x) => x === "exec apiserver-ready")).toHaveLength(4);
    expect(again.sent.slice(-2)).toEqual(["exec apiserver-ready", "api uncordon"]);
    expect(sent).toContain("exec rollback");
  });

  it("does nothing but uncordon a node already on the new version (a resumed run)", async () => {
    const { ctx, sent } = fakeContext({ node: () => ({ version: "v1.37.2", ready: true, unschedulable: true }), written: 0 });
    const r = await upgradeActions["kubelet-upgrade"]!(ctx);
    expect(r).toMatchObject({ ok: true, summary: "worker-1 runs kubelet v1.37.2 already; uncordoned" });
    expect(sent).toEqual([`upload ${step.files.length}`, "api uncordon"]);
  });
});
