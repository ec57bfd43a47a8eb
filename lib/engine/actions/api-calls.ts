import "server-only";
// The step's planned API calls, sent as planned: each object or patch is the plan's (an object of the
// asset set is taken from it and checked against the planned checksum first), each verb does what the
// plan says it does. Actions look calls up by id or verb, as they look up commands (types.ts).
import { createHash } from "node:crypto";
import type { K8sObject } from "../../assets/yaml-out";
import { apiMessage, type ClusterApiClient } from "../cluster-api";
import type { ObjectRef, PlannedApiCall } from "../plan";
import { objectSha, parseObjects, refLabel, sameRef } from "../plan-objects";
import { DEFAULT_BACKOFF, withRetry } from "../../ssh/backoff";
import type { ActionContext } from "./types";

/** The planned call `id` of this step. */
export function plannedCall(ctx: Pick<ActionContext, "planned">, id: string): PlannedApiCall {
  const c = (ctx.planned.api ?? []).find((x) => x.id === id);
  if (!c) throw new Error(`the plan of ${ctx.planned.key} has no API call "${id}": it was made by another version of Bootdeck; plan the run again`);
  return c;
}

/** The step's planned calls of `verb` (on `name`, when given), in plan order. */
export const plannedCalls = (ctx: Pick<ActionContext, "planned">, verb: PlannedApiCall["verb"], name?: string): PlannedApiCall[] =>
  (ctx.planned.api ?? []).filter((c) => c.verb === verb && (name === undefined || c.object.name === name));

/** The one planned call of `verb` on `name`. */
export function plannedCallOn(ctx: Pick<ActionContext, "planned">, verb: PlannedApiCall["verb"], name: string): PlannedApiCall {
  const c = plannedCalls(ctx, verb, name)[0];
  if (!c) throw new Error(`the plan of ${ctx.planned.key} does not ${verb} ${name}: it was made by another version of Bootdeck; plan the run again`);
  return c;
}

/** What a call sends: the planned body, or — for an object of the asset set — that object, checked against the planned checksum. */
export function callBody(ctx: Pick<ActionContext, "planned" | "resources">, c: PlannedApiCall): Record<string, unknown> {
  // A Secret's one data key set to a file of the asset set (its content, base64).
  if (c.asset && c.options?.secretDataKey !== undefined) {
    const content = ctx.resources.asset(c.asset);
    const sha = createHash("sha256").update(content).digest("hex");
    if (sha !== c.sha256) throw new Error(`${c.asset} in the run's asset set does not match the plan (sha256 ${sha.slice(0, 12)}, planned ${(c.sha256 ?? "").slice(0, 12)}): plan the run again`);
    return { data: { [String(c.options.secretDataKey)]: Buffer.from(content, "utf8").toString("base64") } };
  }
  if (!c.asset) {
    if (!c.body) throw new Error(`${ctx.planned.key}: "${c.id}" has no body`);
    return c.body;
  }
  const o = parseObjects(ctx.resources.asset(c.asset)).find((x) => sameRef({ apiVersion: x.apiVersion, kind: x.kind, name: x.metadata.name, namespace: x.metadata.namespace }, c.object));
  if (!o) throw new Error(`${c.asset} in the run's asset set has no ${refLabel(c.object)}: plan the run again`);
  const sha = objectSha(o);
  if (sha !== c.sha256) throw new Error(`${refLabel(c.object)} in the run's asset set does not match the plan (sha256 ${sha.slice(0, 12)}, planned ${(c.sha256 ?? "").slice(0, 12)}): plan the run again`);
  return o;
}

// ---- where the API serves an object ----

type Resource = { base: string; plural: string; namespaced: boolean };
const CORE = (plural: string, namespaced = true): Resource => ({ base: "/api/v1", plural, namespaced });
const GROUP = (group: string, plural: string, namespaced = true): Resource => ({ base: `/apis/${group}`, plural, namespaced });
/** Kinds the engine writes; any other is looked up through discovery. */
const KNOWN: Record<string, Resource> = {
  "v1/Node": CORE("nodes", false),
  "v1/Namespace": CORE("namespaces", false),
  "v1/Pod": CORE("pods"),
  "v1/ServiceAccount": CORE("serviceaccounts"),
  "v1/Secret": CORE("secrets"),
  "v1/ConfigMap": CORE("configmaps"),
  "v1/Service": CORE("services"),
  "apps/v1/DaemonSet": GROUP("apps/v1", "daemonsets"),
  "apps/v1/Deployment": GROUP("apps/v1", "deployments"),
  "policy/v1/PodDisruptionBudget": GROUP("policy/v1", "poddisruptionbudgets"),
  "rbac.authorization.k8s.io/v1/ClusterRole": GROUP("rbac.authorization.k8s.io/v1", "clusterroles", false),
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": GROUP("rbac.authorization.k8s.io/v1", "clusterrolebindings", false),
  "rbac.authorization.k8s.io/v1/Role": GROUP("rbac.authorization.k8s.io/v1", "roles"),
  "rbac.authorization.k8s.io/v1/RoleBinding": GROUP("rbac.authorization.k8s.io/v1", "rolebindings"),
};

type ApiResourceList = { resources?: { name: string; kind: string; namespaced: boolean }[] };
const discovered = new WeakMap<object, Map<string, ApiResourceList>>();

/** A path segment as RFC 3986 allows it: ":" and "@" stay (as Kubernetes' own clients send RBAC names such as system:coredns), the rest percent-encoded. */
export const pathSegment = (s: string) => encodeURIComponent(s).replace(/%3A/g, ":").replace(/%40/g, "@");

async function resourceOf(api: Pick<ClusterApiClient, "getJson">, ref: ObjectRef): Promise<Resource> {
  const known = KNOWN[`${ref.apiVersion}/${ref.kind}`];
  if (known) return known;
  const base = ref.apiVersion.includes("/") ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  const cache = discovered.get(api) ?? discovered.set(api, new Map()).get(api)!;
  let list = cache.get(base);
  if (!list?.resources?.some((r) => r.kind === ref.kind)) {
    list = (await api.getJson<ApiResourceList>(base)) ?? {};
    cache.set(base, list);
  }
  const r = list.resources?.find((x) => x.kind === ref.kind && !x.name.includes("/"));
  if (!r) throw new Error(`the API does not serve ${ref.apiVersion} ${ref.kind}`);
  return { base, plural: r.name, namespaced: r.namespaced };
}

/** Where the API serves an object (`named: false`: its collection, where it is created). */
export async function objectPath(api: Pick<ClusterApiClient, "getJson">, ref: ObjectRef, named = true): Promise<string> {
  const r = await resourceOf(api, ref);
  const ns = r.namespaced ? `/namespaces/${pathSegment(ref.namespace ?? "default")}` : "";
  return `${r.base}${ns}/${r.plural}${named ? `/${pathSegment(ref.name)}` : ""}`;
}

// ---- the verbs ----

const api = (ctx: Pick<ActionContext, "resources">) => ctx.resources.api();

/** A read that met no answer, or a 429 or 5xx, may succeed a moment later (an API server restarting, etcd electing). */
function transientRead(err: unknown): boolean {
  const msg = err instanceof Error ? err.message : String(err);
  return !/: HTTP (?!429)[1-4]\d\d /.test(msg);
}

/**
 * An idempotent call (a read, a patch that sets a value) tried again with the shared backoff (4
 * attempts) when it meets a transient failure: a step does not fail on one unanswered request while an
 * API server restarts beside it, or the API address moves.
 */
export function retryTransient<T>(ctx: Pick<ActionContext, "signal">, call: () => Promise<T>): Promise<T> {
  return withRetry(call, { ...DEFAULT_BACKOFF, attempts: 4, baseMs: 500, signal: ctx.signal, isRetryable: transientRead });
}

/** Reads an object (undefined when missing), tried again on a transient failure. */
export async function readObject<T>(ctx: Pick<ActionContext, "resources" | "signal">, ref: ObjectRef): Promise<T | undefined> {
  return retryTransient(ctx, async () => api(ctx).getJson<T>(await objectPath(api(ctx), ref), ctx.signal));
}

async function exists(ctx: Pick<ActionContext, "resources" | "signal">, ref: ObjectRef): Promise<boolean> {
  try {
    return (await readObject(ctx, ref)) !== undefined;
  } catch (e) {
    throw new Error(`reading ${refLabel(ref)}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * `create`: reads the object first and creates it only when it is missing. A create refused because
 * the object appeared meanwhile (409, or 422 "provided IP is already allocated" for a Service with a
 * fixed clusterIP that an earlier attempt created) is read again: present is present. `atRunTime`
 * fills in what the plan's rule leaves to the run (a bootstrap token's expiration).
 */
export async function sendCreate(ctx: Pick<ActionContext, "planned" | "resources" | "signal">, c: PlannedApiCall, atRunTime: (o: Record<string, unknown>) => Record<string, unknown> = (o) => o): Promise<"created" | "present"> {
  if (await exists(ctx, c.object)) return "present";
  const post = async () => api(ctx).request(await objectPath(api(ctx), c.object, false), { method: "POST", body: atRunTime(callBody(ctx, c)), signal: ctx.signal });
  let r;
  try {
    r = await post();
  } catch (err) {
    // No answer: the create may or may not have happened. Read again (that read is retried): present is
    // present; missing, it is sent once more.
    if (ctx.signal.aborted) throw err;
    if (await exists(ctx, c.object)) return "present";
    r = await post();
  }
  if (r.status === 200 || r.status === 201) return "created";
  if ((r.status === 409 || r.status === 422) && (await exists(ctx, c.object).catch(() => false))) return "present";
  throw new Error(`creating ${refLabel(c.object)}: HTTP ${r.status} ${apiMessage(r.body)}`);
}

/** Recorded on objects `apply` writes: the next apply compares it instead of the defaulted live object. */
export const APPLIED_ANNOTATION = "bootdeck.io/applied-sha256";

/**
 * `apply`: creates the object when missing, replaces it when it was applied from other content; leaves it
 * alone otherwise. Its read is retried like any read; a write that got no answer may have happened, so the
 * object is read and compared again (once): the annotation tells whether it landed.
 */
export async function sendApply(ctx: Pick<ActionContext, "planned" | "resources" | "signal">, c: PlannedApiCall, unanswered = 0): Promise<"created" | "replaced" | "unchanged"> {
  const o = callBody(ctx, c) as K8sObject;
  const sha = objectSha(o);
  const annotated = { ...o, metadata: { ...o.metadata, annotations: { ...(o.metadata.annotations as Record<string, string> | undefined), [APPLIED_ANNOTATION]: sha } } };
  const write = async (path: string, method: "POST" | "PUT", body: unknown) => {
    try {
      return await api(ctx).request(path, { method, body, signal: ctx.signal });
    } catch (err) {
      if (ctx.signal.aborted || unanswered > 0) throw err;
      return undefined;
    }
  };
  const live = await readObject<{ metadata: { resourceVersion?: string; annotations?: Record<string, string> } }>(ctx, c.object);
  if (!live) {
    const r = await write(await objectPath(api(ctx), c.object, false), "POST", annotated);
    if (!r) return sendApply(ctx, c, unanswered + 1);
    if (r.status === 201 || r.status === 200) return "created";
    if (r.status !== 409) throw new Error(`creating ${refLabel(c.object)}: HTTP ${r.status} ${apiMessage(r.body)}`);
    return sendApply(ctx, c, unanswered);
  }
  if (live.metadata.annotations?.[APPLIED_ANNOTATION] === sha) return "unchanged";
  const r = await write(await objectPath(api(ctx), c.object), "PUT", { ...annotated, metadata: { ...annotated.metadata, resourceVersion: live.metadata.resourceVersion } });
  if (!r) return sendApply(ctx, c, unanswered + 1);
  if (r.status === 409) return sendApply(ctx, c, unanswered);
  if (r.status !== 200) throw new Error(`replacing ${refLabel(c.object)}: HTTP ${r.status} ${apiMessage(r.body)}`);
  return "replaced";
}

/**
 * `patch` (a JSON merge patch; `atRunTime` fills in what the plan's rule leaves to the run); `taint` and
 * `cordon` are patches too. With `goneIsFine`, a missing object is "gone" instead of an error.
 */
export async function sendPatch(ctx: Pick<ActionContext, "planned" | "resources" | "signal">, c: PlannedApiCall, body: Record<string, unknown> = callBody(ctx, c), opts: { goneIsFine?: boolean } = {}): Promise<"patched" | "gone"> {
  const r = await api(ctx).request(await objectPath(api(ctx), c.object), { method: "PATCH", body, contentType: "application/merge-patch+json", signal: ctx.signal });
  if (r.status === 404 && opts.goneIsFine) return "gone";
  if (r.status !== 200) throw new Error(`${c.id}: HTTP ${r.status} ${apiMessage(r.body)}`);
  return "patched";
}

/**
 * `patch` of `object.name` "*": the planned patch sent to every object of the kind in the namespace
 * that the call's `options.labelSelector` picks, as listed now; one gone since it was listed is left.
 * The list and each patch (a merge patch that sets values, so sending it twice is harmless) are tried
 * again on transient failures. The number patched.
 */
export async function sendPatchEach(ctx: Pick<ActionContext, "planned" | "resources" | "signal">, c: PlannedApiCall): Promise<number> {
  const selector = c.options?.labelSelector;
  if (typeof selector !== "string" || !selector) throw new Error(`${c.id}: the plan names no label selector for ${refLabel(c.object)}`);
  const list = await retryTransient(ctx, async () => api(ctx).getJson<{ items?: { metadata: { name: string } }[] }>(`${await objectPath(api(ctx), c.object, false)}?labelSelector=${encodeURIComponent(selector)}`, ctx.signal));
  let patched = 0;
  for (const o of list?.items ?? []) {
    const one = { ...c, id: `${c.id} (${o.metadata.name})`, object: { ...c.object, name: o.metadata.name } };
    if ((await retryTransient(ctx, () => sendPatch(ctx, one, callBody(ctx, c), { goneIsFine: true }))) === "patched") patched++;
  }
  return patched;
}

/** `delete`: false when the object was gone already. */
export async function sendDelete(ctx: Pick<ActionContext, "planned" | "resources" | "signal">, c: PlannedApiCall, opts: { timeoutMs?: number } = {}): Promise<boolean> {
  const r = await api(ctx).request(await objectPath(api(ctx), c.object), { method: "DELETE", signal: ctx.signal, timeoutMs: opts.timeoutMs });
  if (r.status === 404) return false;
  if (r.status !== 200 && r.status !== 202) throw new Error(`deleting ${refLabel(c.object)}: HTTP ${r.status} ${apiMessage(r.body)}`);
  return true;
}

type Taint = { key: string; value?: string; effect: string };

/** `taint`: the planned taint added to the node's (`current`) when it lacks it; false when it has it. */
export async function sendTaint(ctx: Pick<ActionContext, "planned" | "resources" | "signal">, c: PlannedApiCall, current: readonly Taint[]): Promise<boolean> {
  const t = callBody(ctx, c) as Taint;
  if (current.some((x) => x.key === t.key && x.effect === t.effect)) return false;
  await sendPatch(ctx, c, { spec: { taints: [...current, t] } });
  return true;
}

/** The body a cordon or uncordon sends. */
export const unschedulableBody = (verb: "cordon" | "uncordon") => ({ spec: { unschedulable: verb === "cordon" ? true : null } });
