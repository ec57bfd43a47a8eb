import "server-only";
// What the day-2 actions share: the planned commands and files of a step sent exactly as planned, and
// the cluster's API for nodes (cordon, drain, delete, readiness) and for applying rendered objects
// (create what is missing, replace what changed, wait for rollouts).
import { isSshError, type ExecResult } from "../../ssh";
import { chooseEvictions, evictionRefusal, podName, unmanaged, type DrainPod } from "../day2/drain";
import type { ObjectRef, PlannedExec } from "../plan";
import { refLabel } from "../plan-objects";
import { plannedCallOn, readObject, retryTransient, sendDelete, sendPatch, unschedulableBody } from "./api-calls";
import type { EngineHost } from "../targets";
import { runLocked, runPlanned as sendPlanned } from "./bootstrap";
import { nodeReady, type NodeLike } from "./kube";
import { type ActionContext, execHost, plannedExec, plannedExecs, WaitAbandoned } from "./types";

const isLocked = (argv: readonly string[]) => argv[0] === "sh" && argv[1] === "-c" && (argv[2] ?? "").startsWith("lock=");

/**
 * Runs a planned command as it was planned: a locked host script through runLocked (a lock left by a
 * run that is over is taken over), any other command as is. A non-zero exit throws with the last lines
 * of stderr, unless `allowFailure`.
 */
export async function runPlanned(ctx: ActionContext, e: PlannedExec, opts: { timeoutMs?: number; allowFailure?: boolean; quiet?: boolean } = {}): Promise<ExecResult> {
  if (isLocked(e.argv)) return runLocked(ctx, e, opts);
  const r = await sendPlanned(ctx, e, { ...opts, allowFailure: true });
  if (r.exitCode !== 0 && !opts.allowFailure) {
    const tail = r.stderrTail.filter((l) => !l.startsWith("journal: ")).slice(-6).join("; ");
    const err = new Error(`${e.id} on ${execHost(ctx, e).name} failed (exit ${r.exitCode})${tail ? `: ${tail}` : ""}`) as Error & { journal?: string[] };
    err.journal = r.stderrTail.filter((l) => l.startsWith("journal: ")).map((l) => l.slice(9));
    throw err;
  }
  return r;
}

/** The step's planned files that go to `host` (all of them when the step has one host), pushed by the idempotent uploader. */
export async function pushPlannedFiles(ctx: ActionContext, host: EngineHost, files = ctx.planned.files): Promise<{ written: number; total: number }> {
  if (!files.length) return { written: 0, total: 0 };
  const specs = files.map((f) => {
    if (!f.asset) throw new Error(`the plan of ${ctx.planned.key} does not say which asset ${f.path} comes from: plan the run again`);
    return { path: f.path, content: ctx.resources.asset(f.asset), mode: f.mode };
  });
  const up = await ctx.executor.upload(host.target, specs, { step: ctx.planned.key, signal: ctx.signal });
  return { written: up.written, total: specs.length };
}

/** The host of the step, or of a param naming one. */
export function hostNamed(ctx: ActionContext, name: string): EngineHost {
  const h = ctx.hosts.find((x) => x.name === name);
  if (!h) throw new Error(`${name} is not a host of this run`);
  return h;
}

export const param = (ctx: Pick<ActionContext, "planned">, name: string): string => {
  const v = ctx.planned.params?.[name];
  if (v === undefined) throw new Error(`the plan of ${ctx.planned.key} lacks "${name}": plan the run again`);
  return v;
};

/** What a command printed, as text. */
export const textOf = (r: Pick<ExecResult, "stdout">): string => r.stdout.toString("utf8");

/**
 * The step's planned move of the API address, where one is planned (a master behind a VIP):
 * `release-address` before something on this master stops serving, `rejoin-address` after. Returns the
 * script's line without its prefix ("address release: keepalived inactive, 3 of its sockets reset"), or undefined.
 */
export async function moveAddress(ctx: ActionContext, id: "release-address" | "rejoin-address"): Promise<string | undefined> {
  const e = plannedExecs(ctx, id)[0];
  return e ? textOf(await runPlanned(ctx, e, { timeoutMs: 60_000 })).trim().replace(/^bootdeck-/, "") : undefined;
}

/** rejoin-address after a step that did not finish: best effort (keepalived's API server check keeps the address from a master whose API server is not ready). */
export async function rejoinAfterFailure(ctx: ActionContext): Promise<string | undefined> {
  try {
    return await moveAddress(ctx, "rejoin-address");
  } catch (err) {
    return `address not rejoined (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** Ends a wait at once when the host no longer answers over SSH (the plan's read-only "alive" command; other errors: keep waiting). */
export async function assertAnswers(ctx: ActionContext, host: EngineHost, what: string): Promise<void> {
  const alive = plannedExec(ctx, "alive", host.name);
  try {
    await sendPlanned(ctx, alive, { quiet: true, timeoutMs: 10_000 });
  } catch (err) {
    if (isSshError(err) && ["unreachable", "timeout", "refused"].includes(err.detail.kind)) throw new WaitAbandoned(`${host.name} stopped answering ${what}: ${err.message}`);
  }
}

// ---- nodes ----

export type NodeView = { name: string; ready: boolean; why: string; kubeletVersion: string; unschedulable: boolean };

export async function readNode(ctx: ActionContext, name: string): Promise<NodeView | undefined> {
  const node = await readObject<NodeLike & { spec?: { unschedulable?: boolean }; status?: { nodeInfo?: { kubeletVersion?: string } } }>(ctx, { apiVersion: "v1", kind: "Node", name });
  if (!node) return undefined;
  const r = nodeReady(node);
  return { name, ready: r.ready, why: r.why, kubeletVersion: node.status?.nodeInfo?.kubeletVersion ?? "", unschedulable: node.spec?.unschedulable === true };
}

/** Marks a node (un)schedulable as planned (`read`: the node as just read); returns whether it changed. */
export async function setUnschedulable(ctx: ActionContext, name: string, value: boolean, read?: NodeView): Promise<boolean> {
  const verb = value ? "cordon" : "uncordon";
  const call = plannedCallOn(ctx, verb, name);
  const node = read ?? (await readNode(ctx, name));
  if (!node) throw new Error(`node ${name} is not registered`);
  if (node.unschedulable === value) return false;
  // The same patch twice is the same node: tried again on a transient failure.
  await retryTransient(ctx, () => sendPatch(ctx, call, unschedulableBody(verb)));
  return true;
}

/**
 * The planned drain: cordons the node and evicts its pods through the Eviction API (PodDisruptionBudgets
 * hold: a refused eviction is tried again every 2 s), then waits until they are gone. Past the planned
 * timeout it fails with every pod that blocked and why. Returns a one-line report.
 */
export async function drainNode(ctx: ActionContext, name: string): Promise<string> {
  const timeoutMs = Number(plannedCallOn(ctx, "drain", name).options?.timeoutSeconds ?? 0) * 1000;
  const api = ctx.resources.api();
  const list = async () => ((await api.getJson<{ items: DrainPod[] }>(`/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${name}`)}`, ctx.signal))?.items ?? []);
  // The cordon and the first listing happen inside the wait too: an API blip (a VIP moving, an API
  // server restarting) is waited out like any other, not a failed drain.
  let first: ReturnType<typeof chooseEvictions> | undefined;
  const evicted = new Set<string>();
  const blocked = new Map<string, string>();
  await ctx.wait(`${name} drained (pods evicted, disruption budgets respected)`, { timeoutMs, intervalMs: 2_000 }, async () => {
    if (!first) {
      const node = await readNode(ctx, name);
      if (!node) throw new WaitAbandoned(`node ${name} is not registered`);
      await setUnschedulable(ctx, name, true, node);
      first = chooseEvictions(await list(), name);
    }
    const { evict } = chooseEvictions(await list(), name);
    for (const p of evict) {
      const ns = p.metadata?.namespace ?? "default";
      const podN = p.metadata?.name ?? "";
      if (evicted.has(p.metadata?.uid ?? podName(p))) continue;
      const r = await api.request(`/api/v1/namespaces/${encodeURIComponent(ns)}/pods/${encodeURIComponent(podN)}/eviction`, {
        method: "POST",
        body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: podN, namespace: ns } },
        signal: ctx.signal,
      });
      if (r.status === 200 || r.status === 201 || r.status === 404) {
        evicted.add(p.metadata?.uid ?? podName(p));
        blocked.delete(podName(p));
      } else blocked.set(podName(p), evictionRefusal(r.status, r.body));
    }
    const left = chooseEvictions(await list(), name).evict.filter((p) => !p.metadata?.deletionTimestamp);
    // A node whose kubelet is gone never confirms its pods ended: they go with its Node object.
    const alive = (await readNode(ctx, name))?.ready === true;
    const terminating = alive ? (await list()).filter((p) => p.metadata?.deletionTimestamp && !p.metadata.ownerReferences?.some((o) => o.kind === "DaemonSet" || o.kind === "Node")) : [];
    if (left.length === 0 && terminating.length === 0) return { ok: true, value: undefined };
    const why = [...blocked.entries()].map(([pod, reason]) => `${pod}: ${reason}`);
    return { ok: false, why: why.length ? `blocked: ${why.join("; ")}` : `${left.length + terminating.length} pods still leaving: ${[...left, ...terminating].slice(0, 6).map(podName).join(", ")}` };
  });
  const lost = unmanaged(first!.evict);
  return `${name} drained: ${evicted.size} pod${evicted.size === 1 ? "" : "s"} evicted${first!.stay.length ? `, ${first!.stay.length} left in place (DaemonSet and static pods)` : ""}${lost.length ? `; ${lost.length} unmanaged pod${lost.length === 1 ? "" : "s"} not recreated elsewhere: ${lost.join(", ")}` : ""}`;
}

/** Deletes a Node object as planned and waits until it is gone (its kubelet must be stopped first, or it registers again). */
export async function deleteNode(ctx: ActionContext, name: string): Promise<boolean> {
  if (!(await sendDelete(ctx, plannedCallOn(ctx, "delete", name)))) return false;
  await ctx.wait(`node ${name} deleted`, { timeoutMs: 60_000, intervalMs: 1_000 }, async () => ((await readNode(ctx, name)) ? { ok: false, why: `${name} is still listed` } : { ok: true, value: undefined }));
  return true;
}

type WorkloadStatus = {
  metadata: { generation?: number };
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; desiredNumberScheduled?: number; updatedNumberScheduled?: number; numberAvailable?: number; numberUnavailable?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number };
};

/** Why a DaemonSet or Deployment has not finished rolling out, or undefined when it has. */
export function rolloutPending(kind: string, w: WorkloadStatus): string | undefined {
  const s = w.status ?? {};
  if ((s.observedGeneration ?? 0) < (w.metadata.generation ?? 0)) return "its controller has not seen the change yet";
  if (kind === "DaemonSet") {
    const want = s.desiredNumberScheduled ?? 0;
    if ((s.updatedNumberScheduled ?? 0) < want) return `${s.updatedNumberScheduled ?? 0} of ${want} pods updated`;
    if ((s.numberAvailable ?? 0) < want || (s.numberUnavailable ?? 0) > 0) return `${s.numberAvailable ?? 0} of ${want} pods available`;
    return undefined;
  }
  const want = w.spec?.replicas ?? 1;
  if ((s.updatedReplicas ?? 0) < want) return `${s.updatedReplicas ?? 0} of ${want} replicas updated`;
  if ((s.replicas ?? 0) > want) return `${(s.replicas ?? 0) - want} old replicas still terminating`;
  if ((s.availableReplicas ?? 0) < want) return `${s.availableReplicas ?? 0} of ${want} replicas available`;
  return undefined;
}

export async function waitRollout(ctx: ActionContext, o: ObjectRef, timeoutMs: number): Promise<void> {
  await ctx.wait(`${refLabel(o)} rolled out`, { timeoutMs, intervalMs: 2_000 }, async () => {
    const w = await readObject<WorkloadStatus>(ctx, o);
    if (!w) return { ok: false, why: "it does not exist" };
    const why = rolloutPending(o.kind, w);
    return why ? { ok: false, why } : { ok: true, value: undefined };
  });
}

