// One node's kubelet upgrade against a recording executor and a scripted API: what it sends, in which
// order, and what it does when the new kubelet does not come back Ready (rolls back, says so, leaves
// the node in service) or is there already (a resumed run: nothing but the uncordon).
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { keptPkiFrom } from "../../assets/keep";
import { renderAssets } from "../../assets/render";
import { validateClusterDefinition, type ClusterDefinition } from "../../cluster/definition";
import { exampleDefinition } from "../../cluster/example";
import type { PlannedStep } from "../plan";
import { buildUpgradePlan } from "../plans-day2";
import { upgradeActions } from "./upgrade";
import type { ActionContext } from "./types";

let def: ClusterDefinition;
let step: PlannedStep;
let files: Map<string, string>;

beforeAll(async () => {
  const v = validateClusterDefinition(exampleDefinition({ hosts: 4 }));
  if (!v.ok) throw new Error("invalid");
  def = v.definition;
  const before = await renderAssets(def, { keyType: "ecdsa" });
  const after = await renderAssets({ ...def, spec: { ...def.spec, kubernetes: { ...def.spec.kubernetes, version: "v1.37.2" } } }, { keyType: "ecdsa", keep: keptPkiFrom(new Map(before.map((a) => [a.path, a.content]))) });
  files = new Map(after.map((a) => [a.path, a.content]));
  const index = new Map(after.map((a) => [a.path, { sha256: createHash("sha256").update(a.content).digest("hex"), size: a.content.length }]));
  const plan = buildUpgradePlan(def, "run_AAAAAAAAAAAAAAAA", index, { to: "v1.37.2" });
  step = plan.phases.flatMap((p) => p.steps).find((s) => s.key === "kubelet/worker-1")!;
}, 60_000);

type Node = { version: string; ready: boolean; unschedulable: boolean };

/** A fake context: `node(n)` answers the n-th read of the Node; every command and API write is recorded. */
function fakeContext(opts: { node: (reads: number) => Node; written?: number }) {
  const sent: string[] = [];
  let reads = 0;
  let unschedulable = opts.node(0).unschedulable;
  const host = { id: "host_w1", name: "worker-1", role: "worker" as const, address: "192.0.2.14", target: { id: "worker-1", address: "192.0.2.14", user: "root", auth: { kind: "agent" as const }, hostKey: {} } };
  const api = {
    endpoint: "api:6443",
    async getJson(path: string) {
      if (path.startsWith("/api/v1/nodes/")) {
        const n = opts.node(reads++);
        return { metadata: { name: "worker-1" }, spec: { unschedulable }, status: { nodeInfo: { kubeletVersion: n.version }, conditions: [{ type: "Ready", status: n.ready ? "True" : "False", reason: "KubeletNotReady" }] } };
      }
      if (path.startsWith("/api/v1/pods")) return { items: [] };
      throw new Error(`unexpected GET ${path}`);
    },
    async request(path: string, o: { method?: string; body?: unknown }) {
      if (o.method === "PATCH") {
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
    planned: step,
    host,
    hosts: [host],
    signal: new AbortController().signal,
    emit: async () => undefined,
    executor: {
      async run(_t: unknown, argv: string[]) {
        const e = step.exec?.find((x) => x.argv === argv || JSON.stringify(x.argv) === JSON.stringify(argv));
        sent.push(`exec ${e?.id ?? argv.join(" ").slice(0, 40)}`);
        return { host: "worker-1", step: step.key, exitCode: 0, stdout: Buffer.from(e?.id === "rollback" ? "bootdeck-rolled-back to abc\n" : ""), stderrTail: [], durationMs: 1 };
      },
      async upload(_t: unknown, specs: unknown[]) {
        sent.push(`upload ${specs.length}`);
        return { written: opts.written ?? specs.length, unchanged: 0 };
      },
    },
    resources: { api: () => api, asset: (p: string) => files.get(p) ?? "" },
    wait: async <T,>(what: string, o: { timeoutMs: number }, check: () => Promise<{ ok: true; value: T } | { ok: false; why: string }>) => {
      for (let i = 0; i < 5; i++) {
        const r = await check();
        if (r.ok) return r.value;
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

  it("rolls a node back when its new kubelet does not come back Ready, and stops with why", async () => {
    const { ctx, sent } = fakeContext({ node: (n) => (n < 2 ? { version: "v1.36.3", ready: true, unschedulable: false } : n < 9 ? { version: "v1.37.2", ready: false, unschedulable: true } : { version: "v1.36.3", ready: true, unschedulable: true }) });
    const r = await upgradeActions["kubelet-upgrade"]!(ctx);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatch(/^timed out after 4 min waiting for worker-1 Ready with kubelet v1\.37\.2; rolled back \(bootdeck-rolled-back to abc\): worker-1 is Ready with kubelet v1\.36\.3 and uncordoned; the upgrade stops here$/);
    expect(r.data?.rolledBack).toBe(true);
    // ("exec true": every 10 s the wait checks the host still answers.)
    expect(sent.filter((x) => x !== "exec true").slice(-4)).toEqual(["exec start", "exec journal", "exec rollback", "api uncordon"]);
  });

  it("does nothing but uncordon a node already on the new version (a resumed run)", async () => {
    const { ctx, sent } = fakeContext({ node: () => ({ version: "v1.37.2", ready: true, unschedulable: true }), written: 0 });
    const r = await upgradeActions["kubelet-upgrade"]!(ctx);
    expect(r).toMatchObject({ ok: true, summary: "worker-1 runs kubelet v1.37.2 already; uncordoned" });
    expect(sent).toEqual([`upload ${step.files.length}`, "api uncordon"]);
  });
});
