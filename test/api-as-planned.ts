// Checks what a run wrote to the cluster's API against its plan: every write (create, replace, patch,
// delete, cordon, taint, eviction) is one of the plan's calls, with the planned body — or, for an
// object of the asset set, the object whose checksum the plan shows — and each call the plan always
// sends went out. Used by plan-is-what-runs.test.ts.
import { expect } from "vitest";
import { APPLIED_ANNOTATION, objectPath } from "../lib/engine/actions/api-calls";
import type { PlannedApiCall, RunPlan } from "../lib/engine/plan";
import { objectSha, parseObjects, refLabel, refOf, sameRef } from "../lib/engine/plan-objects";
import { getDb } from "../lib/db/client";
import { assetContent } from "../lib/assets/store";
import type { FakeClusterApi } from "./fake-cluster";

type Write = FakeClusterApi["writes"][number];
type Planned = { step: string; call: PlannedApiCall; path: string; collection: string };

/** The run's asset set, decrypted (the test reads what the plan only shows by checksum). */
async function assetsOf(runId: string): Promise<Map<string, string>> {
  const run = await getDb().run.findUniqueOrThrow({ where: { id: runId }, select: { assetSetId: true } });
  const rows = run.assetSetId ? await getDb().asset.findMany({ where: { assetSetId: run.assetSetId }, select: { id: true, path: true, content: true, sensitive: true } }) : [];
  return new Map(rows.map((r) => [r.path, assetContent(r)]));
}

const withoutKeys = (o: Record<string, unknown>, path: string[]): Record<string, unknown> => {
  const [head, ...rest] = path;
  if (!head || !(head in o)) return o;
  if (!rest.length) {
    const { [head]: _, ...others } = o;
    return others;
  }
  const inner = withoutKeys(o[head] as Record<string, unknown>, rest);
  return { ...o, [head]: inner };
};

/** An applied object as rendered: without the annotation apply records and the resourceVersion a replace carries. */
function asRendered(o: Record<string, unknown>): Record<string, unknown> {
  let x = withoutKeys(o, ["metadata", "resourceVersion"]);
  const annotations = (x.metadata as { annotations?: Record<string, string> }).annotations;
  if (annotations && APPLIED_ANNOTATION in annotations) {
    x = withoutKeys(x, ["metadata", "annotations", APPLIED_ANNOTATION]);
    if (!Object.keys((x.metadata as { annotations: object }).annotations).length) x = withoutKeys(x, ["metadata", "annotations"]);
  }
  return x;
}

/** Whether a write's body is what the call plans to send. */
function bodyMatches(call: PlannedApiCall, body: Record<string, unknown>, assets: Map<string, string>): boolean {
  // A Secret's data key set to a file of the asset set.
  if (call.verb === "patch" && call.asset && call.options?.secretDataKey !== undefined)
    return JSON.stringify(body) === JSON.stringify({ data: { [String(call.options.secretDataKey)]: Buffer.from(assets.get(call.asset) ?? "").toString("base64") } });
  const fromAsset = call.asset ? parseObjects(assets.get(call.asset) ?? "").find((o) => sameRef(refOf(o), call.object)) : undefined;
  if (call.verb === "patch" && call.asset) return JSON.stringify(body) === JSON.stringify({ data: (fromAsset as { data?: unknown } | undefined)?.data ?? {} });
  if (call.verb === "patch" && call.rule && call.id === "renew") return Object.keys(body).join() === "stringData" && Object.keys(body.stringData as object).join() === "expiration";
  if (call.verb === "patch") return JSON.stringify(body) === JSON.stringify(call.body);
  // create / apply: the planned object; a rule's field set at run time (a token's expiration) aside.
  let sent = asRendered(body);
  if (call.rule && /stringData\.expiration/.test(call.rule)) {
    const stringData = withoutKeys(sent.stringData as Record<string, unknown>, ["expiration"]);
    sent = Object.keys(stringData).length ? { ...sent, stringData } : withoutKeys(sent, ["stringData"]);
  }
  return call.asset ? objectSha(sent) === call.sha256 && fromAsset !== undefined : JSON.stringify(sent) === JSON.stringify(call.body);
}

function matches(p: Planned, w: Write, assets: Map<string, string>): boolean {
  const body = (w.body ?? {}) as Record<string, unknown>;
  const { call } = p;
  switch (call.verb) {
    case "create":
      return w.method === "POST" && w.path === p.collection && sameRef(refOf(body as never), call.object) && bodyMatches(call, body, assets);
    case "apply":
      return ((w.method === "POST" && w.path === p.collection) || (w.method === "PUT" && w.path === p.path)) && sameRef(refOf(body as never), call.object) && bodyMatches(call, body, assets);
    case "delete":
      return w.method === "DELETE" && w.path === p.path;
    case "cordon":
    case "uncordon":
      return w.method === "PATCH" && w.path === p.path && JSON.stringify(body) === JSON.stringify({ spec: { unschedulable: call.verb === "cordon" ? true : null } });
    case "taint": {
      const taints = (body.spec as { taints?: unknown[] } | undefined)?.taints ?? [];
      return w.method === "PATCH" && w.path === p.path && Object.keys(body).join() === "spec" && taints.some((t) => JSON.stringify(t) === JSON.stringify(call.body));
    }
    case "drain":
      // Evictions are the drain's, decided while it runs: of pods in the API, never anything else.
      return w.method === "POST" && /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/eviction$/.test(w.path) && (body as { kind?: string }).kind === "Eviction";
    case "patch":
      // "*": any object of the collection (the run lists which).
      return w.method === "PATCH" && (call.object.name === "*" ? new RegExp(`^${p.collection}/[^/]+$`).test(w.path) : w.path === p.path) && bodyMatches(call, body, assets);
    case "rewrite":
      // Objects of the kind the run found, each written back to where it is served.
      return w.method === "PUT" && new RegExp(`^${p.collection.replace(/\/namespaces\/[^/]+\//, "/namespaces/[^/]+/")}/[^/]+$`).test(w.path) && (body as { kind?: string }).kind === call.object.kind;
  }
}

/** Every API write of the run is a planned call of the plan; every call it always sends (in the steps that ran) was sent. */
export async function expectApiAsPlanned(plan: RunPlan, api: FakeClusterApi, runId: string, ran: (stepKey: string) => boolean = () => true): Promise<void> {
  const assets = await assetsOf(runId);
  const planned: Planned[] = [];
  for (const s of plan.phases.flatMap((ph) => ph.steps))
    for (const call of s.api ?? []) planned.push({ step: s.key, call, path: await objectPath(api, call.object), collection: await objectPath(api, call.object, false) });
  for (const w of api.writes) {
    const hit = planned.find((p) => matches(p, w, assets));
    expect(hit, `the API was sent ${w.method} ${w.path} ${JSON.stringify(w.body ?? "").slice(0, 200)}, which the plan does not show`).toBeDefined();
  }
  const always = planned.filter((p) => p.call.when === "always" && ran(p.step) && ["create", "apply", "delete", "cordon", "uncordon"].includes(p.call.verb));
  for (const p of always) expect(api.writes.some((w) => matches(p, w, assets)), `${p.step}: ${p.call.id} (${refLabel(p.call.object)}) was planned but not sent`).toBe(true);
}
