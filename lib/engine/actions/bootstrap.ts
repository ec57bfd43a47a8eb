import "server-only";
// Phases 3–10 of a bootstrap, and reset. Each action gathers facts, compares and acts only when needed,
// so a resumed run can repeat a step that was in flight without applying anything twice.
import { createHash } from "node:crypto";
import { BOOTSTRAP_TOKEN_RENEW_MS, isBootstrapTokenSecret, withExpiration } from "../../assets/token";
import { getDb } from "../../db/client";
import { isSshError, type ExecResult } from "../../ssh";
import { apiMessage } from "../cluster-api";
import type { ObjectRef, PlannedApiCall, PlannedExec } from "../plan";
import { callBody, objectPath, plannedCall, plannedCallOn, plannedCalls, readObject, sendCreate, sendDelete, sendPatch, sendTaint } from "./api-calls";
import type { EngineHost } from "../targets";
import { LOCKED_EXIT, releaseLockArgv } from "./host-scripts";
import { CONTROL_PLANE_COMPONENTS, controlPlaneMissing, isMirrorPod, nodeReady, podLine, podReady, roleMissing, type NodeLike, type PodLike, type Taint } from "./kube";
import { execHost, needHost, plannedExec, WaitAbandoned, type ActionContext, type ActionOutcome, type Action } from "./types";

const API_WAIT_MS = 5 * 60_000;

/**
 * How a planned command is sent: its deadline, whether its output is logged, and — for the commands that
 * carry data — what its stdin reads (a new stream for each send) and where its stdout's bytes go.
 */
export type SendOptions = { timeoutMs?: number; quiet?: boolean; stdin?: () => NodeJS.ReadableStream; stdoutTo?: NodeJS.WritableStream };

/** Sends one planned command to the host it names (the step's own by default). */
export function runPlanned(ctx: ActionContext, e: PlannedExec, opts: SendOptions & { allowFailure?: boolean } = {}): Promise<ExecResult> {
  return ctx.executor.run(execHost(ctx, e).target, e.argv, {
    step: ctx.planned.key,
    signal: ctx.signal,
    timeoutMs: opts.timeoutMs ?? ctx.planned.timeoutMs,
    quiet: opts.quiet,
    allowFailure: opts.allowFailure,
    ...(opts.stdin ? { stdin: opts.stdin() } : {}),
    ...(opts.stdoutTo ? { stdoutTo: opts.stdoutTo } : {}),
  });
}

/**
 * Sends one of the planned locked host scripts. A host locked by a run this dashboard knows to be over
 * is taken over: that run's own release is sent (the plan's release command with its id), recorded as
 * `host.lock-taken-over`, and the planned command is sent again unchanged. Any other holder is refused
 * with what to do about it. Any other non-zero exit throws with the last lines of stderr, unless
 * `allowFailure`.
 */
export async function runLocked(ctx: ActionContext, e: PlannedExec, opts: SendOptions & { allowFailure?: boolean } = {}): Promise<ExecResult> {
  const host = execHost(ctx, e);
  const exec = () => runPlanned(ctx, e, { ...opts, allowFailure: true });
  let r = await exec();
  if (r.exitCode === LOCKED_EXIT) {
    const holder = r.stderrTail.join("\n").match(/bootdeck-locked-by (run_\S+)/)?.[1] ?? "";
    const other = holder ? await getDb().run.findUnique({ where: { id: holder }, select: { status: true } }) : null;
    if (other && !["running", "planned"].includes(other.status)) {
      await ctx.executor.run(host.target, releaseLockArgv(holder), { step: ctx.planned.key, signal: ctx.signal, quiet: true, timeoutMs: 60_000 });
      await ctx.emit("host.lock-taken-over", { key: ctx.planned.key, host: host.name, from: holder, status: other.status });
      r = await exec();
    }
    if (r.exitCode === LOCKED_EXIT) {
      const now = r.stderrTail.join("\n").match(/bootdeck-locked-by (.+)/)?.[1] ?? holder;
      throw new Error(
        other && holder && now.startsWith(holder)
          ? `${host.name} is locked by run ${holder}, which is ${other.status}: wait for it or cancel it`
          : `${host.name} is locked by ${now.startsWith("run_") ? `run ${now}, which this dashboard does not know (another Bootdeck?); if nothing else manages the host, empty /var/lib/bootdeck/run.lock on it` : now}`,
      );
    }
  }
  if (r.exitCode !== 0 && !opts.allowFailure) {
    const tail = r.stderrTail.filter((l) => !l.startsWith("journal: ")).slice(-6).join("; ");
    const err = new Error(`${ctx.planned.title} failed on ${host.name} (exit ${r.exitCode})${tail ? `: ${tail}` : ""}`);
    (err as Error & { exitCode?: number; journal?: string[] }).exitCode = r.exitCode;
    (err as Error & { journal?: string[] }).journal = r.stderrTail.filter((l) => l.startsWith("journal: ")).map((l) => l.slice(9));
    throw err;
  }
  return r;
}

/** The kubelet's journal tail, for a failure's record (best effort; the plan's read-only "journal" command). */
async function journalTail(ctx: ActionContext): Promise<string[]> {
  try {
    const r = await runPlanned(ctx, plannedExec(ctx, "journal"), { quiet: true, timeoutMs: 15_000 });
    return r.stdout.toString("utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

export function failure(error: unknown, extra: Record<string, unknown> = {}): ActionOutcome {
  const message = error instanceof Error ? error.message : String(error);
  const journal = (error as { journal?: string[] }).journal;
  return { ok: false, error: message, data: { ...extra, ...(journal?.length ? { journal } : {}) } };
}

/**
 * The step's planned files that go to `host` (its own by default), each with its content: from the
 * run's asset set, checked against the planned checksum, or — for a file the plan says comes from a
 * stored credential — from `secrets` (by path), which the action builds at run time.
 */
export function plannedFiles(ctx: Pick<ActionContext, "planned" | "resources">, host = ctx.planned.host, secrets: Record<string, string> = {}) {
  return ctx.planned.files
    .filter((f) => (f.host ?? ctx.planned.host) === host)
    .map((f) => {
      if (f.credential) {
        const content = secrets[f.path];
        if (content === undefined) throw new Error(`${ctx.planned.key}: no content for ${f.path} (from credential "${f.credential}")`);
        return { path: f.path, content, mode: f.mode };
      }
      if (!f.asset) throw new Error(`the plan of ${ctx.planned.key} does not name the asset of ${f.path}: it was made by another version of Bootdeck; plan the run again`);
      const content = ctx.resources.asset(f.asset);
      const sha256 = createHash("sha256").update(content).digest("hex");
      if (sha256 !== f.sha256) throw new Error(`${f.asset} in the run's asset set does not match the plan (sha256 ${sha256.slice(0, 12)}, planned ${f.sha256.slice(0, 12)}): plan the run again`);
      return { path: f.path, content, mode: f.mode };
    });
}

type List<T> = { items?: T[] };

/** Which control-plane components are not Running and Ready, with their pods as seen (name, node, state). */
function notReadyWhy(pods: PodLike[], missing: string[]): string {
  const seen = pods.filter((p) => missing.some((m) => (p.metadata?.name ?? "").startsWith(`${m}-`))).map(podLine);
  return `not yet Running and Ready: ${missing.join(", ")}${seen.length ? ` (seen: ${seen.join("; ")})` : ""}`;
}

async function listNodes(ctx: ActionContext): Promise<NodeLike[]> {
  return (await ctx.resources.api().getJson<List<NodeLike>>("/api/v1/nodes", ctx.signal))?.items ?? [];
}

async function listPods(ctx: ActionContext): Promise<PodLike[]> {
  return (await ctx.resources.api().getJson<List<PodLike>>("/api/v1/pods", ctx.signal))?.items ?? [];
}

/** Waits for /healthz and a readable kube-system: the API is serving what the bootstrap needs. */
async function waitForApi(ctx: ActionContext, what: string, timeoutMs = API_WAIT_MS): Promise<void> {
  const api = ctx.resources.api();
  await ctx.wait(what, { timeoutMs, intervalMs: 1_000 }, async () => {
    const health = await api.request("/healthz", { timeoutMs: 5_000, signal: ctx.signal });
    if (health.status !== 200) return { ok: false, why: `/healthz answered ${health.status} ${health.body.slice(0, 120)}` };
    const ns = await api.request("/api/v1/namespaces/kube-system", { timeoutMs: 5_000, signal: ctx.signal });
    if (ns.status !== 200) return { ok: false, why: `kube-system not readable yet (HTTP ${ns.status} ${apiMessage(ns.body)})` };
    return { ok: true, value: undefined };
  });
}

/**
 * A node's liveness mark: its kubelet Lease's renewTime. A mark that changed since a step began proves
 * the kubelet renewed it after that moment, whatever the hosts' clocks say.
 */
async function livenessMark(ctx: ActionContext, node: string): Promise<string | undefined> {
  const lease = await ctx.resources.api().getJson<{ spec?: { renewTime?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${encodeURIComponent(node)}`, ctx.signal);
  return lease?.spec?.renewTime;
}

/** How long a join or verification waits for kubelets to renew their Lease (they do every 10 s). */
const RENEWAL_WAIT_MS = 90_000;

/**
 * Proves nodes alive now: each one's liveness mark changes after `before` was read (at the step's
 * start), and each host answers over SSH. A host that stops answering ends the wait at once.
 */
async function proveAlive(ctx: ActionContext, nodes: { host: EngineHost; before: string | undefined }[]): Promise<void> {
  const pending = new Set(nodes.map((n) => n.host.name));
  let polls = 0;
  await ctx.wait(`kubelet Lease of ${nodes.map((n) => n.host.name).join(", ")} renewed after this step began`, { timeoutMs: RENEWAL_WAIT_MS, intervalMs: 1_000 }, async () => {
    if (polls++ % 5 === 0) await Promise.all(nodes.map((n) => assertReachable(ctx, n.host)));
    for (const n of nodes) {
      if (!pending.has(n.host.name)) continue;
      const now = await livenessMark(ctx, n.host.name);
      if (now !== undefined && now !== n.before) pending.delete(n.host.name);
    }
    return pending.size ? { ok: false, why: `not renewed since the step began: ${[...pending].join(", ")}` } : { ok: true, value: undefined };
  });
  await Promise.all(nodes.map((n) => assertReachable(ctx, n.host)));
}

export const bootstrapActions: Record<string, Action> = {
  /** Phase 3: install the kubelet's host packages that are missing. */
  async packages(ctx) {
    try {
      const r = await runLocked(ctx, plannedExec(ctx, "packages"));
      const out = r.stdout.toString("utf8");
      return { ok: true, summary: out.includes("bootdeck-packages present") ? "all host packages present" : `installed ${out.match(/installing:(.*)/)?.[1]?.trim() ?? "missing packages"}` };
    } catch (err) {
      return failure(err);
    }
  },

  /** Phase 4: kubelet and kubectl from the mirror, checksum-verified, executable. */
  async binaries(ctx) {
    const done: string[] = [];
    try {
      for (const e of (ctx.planned.exec ?? []).filter((x) => x.id.startsWith("download "))) {
        const r = await runLocked(ctx, e);
        done.push(`${e.id.slice("download ".length)} ${r.stdout.toString("utf8").includes("present") ? "already in place" : "installed"}`);
      }
      return { ok: true, summary: done.join(", ") };
    } catch (err) {
      return failure(err);
    }
  },

  /** Phase 5: the kubelet's files (and etcd's on masters), then start it and check it keeps running. */
  async kubelet(ctx) {
    const host = needHost(ctx);
    try {
      const up = await ctx.executor.upload(host.target, plannedFiles(ctx), { step: ctx.planned.key, signal: ctx.signal });
      const r = await runLocked(ctx, plannedExec(ctx, "start"));
      const state = r.stdout.toString("utf8").match(/bootdeck-kubelet (.*)/)?.[1] ?? "";
      return { ok: true, summary: `${up.written} of ${ctx.planned.files.length} files changed; kubelet ${state}`, data: { filesWritten: up.written } };
    } catch (err) {
      const journal = (err as { journal?: string[] }).journal?.length ? undefined : await journalTail(ctx);
      return failure(err, journal ? { journal } : {});
    }
  },

  /** Phase 6: the bootstrap control plane's secrets and static pods on the first master; wait for the API. */
  async "control-plane"(ctx) {
    const host = needHost(ctx);
    try {
      const up = await ctx.executor.upload(host.target, plannedFiles(ctx), { step: ctx.planned.key, signal: ctx.signal });
      const started = Date.now();
      await waitForApi(ctx, `kube-apiserver (healthz, kube-system) at ${ctx.resources.api().endpoint} via ${host.name}`);
      return { ok: true, summary: `${up.written} of ${ctx.planned.files.length} files changed; API healthy after ${((Date.now() - started) / 1000).toFixed(1)} s` };
    } catch (err) {
      return failure(err, { journal: await journalTail(ctx) });
    }
  },

  /** Phase 7: create the self-hosted objects (Namespaces, CRDs until served, then the rest); each is read first. */
  async "self-hosted"(ctx) {
    const calls = plannedCalls(ctx, "create");
    let created = 0;
    let present = 0;
    let crdsPending: string[] = [];
    // Kinds in the plan's order (Namespaces, CRDs, RBAC, …); the objects of one kind go in parallel. Each
    // object is read first and created only when missing, so a resumed step applies nothing twice.
    // The bootstrap controller-manager must be working first (it makes service accounts):
    // kube-system's default account shows it.
    await waitForServiceAccounts(ctx, [{ apiVersion: "v1", kind: "ServiceAccount", name: "default", namespace: "kube-system" }]);
    const groups: PlannedApiCall[][] = [];
    for (const c of calls) {
      const last = groups[groups.length - 1];
      if (last && last[0]?.object.kind === c.object.kind) last.push(c);
      else groups.push([c]);
    }
    for (const group of groups) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const kind = group[0]?.object.kind;
      if (kind !== "CustomResourceDefinition" && kind !== "Namespace" && crdsPending.length) {
        const pending = crdsPending;
        await ctx.wait(`custom resource definitions served (${pending.join(", ")})`, { timeoutMs: 60_000, intervalMs: 1_000 }, async () => {
          for (const name of pending) {
            const crd = await ctx.resources.api().getJson<{ status?: { conditions?: { type: string; status: string }[] } }>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, ctx.signal);
            if (crd?.status?.conditions?.find((c) => c.type === "Established")?.status !== "True") return { ok: false, why: `${name} not Established yet` };
          }
          return { ok: true, value: undefined };
        });
        crdsPending = [];
      }
      const results = await Promise.all(group.map((c) => sendCreate(ctx, c, tokenExpiration(new Date())).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))))));
      const error = results.find((r): r is Error => r instanceof Error);
      if (error) return failure(error);
      const made = results.filter((r) => r === "created").length;
      created += made;
      present += results.length - made;
      if (kind === "CustomResourceDefinition") crdsPending = group.map((c) => c.object.name);
      await ctx.emit("step.progress", { key: ctx.planned.key, message: `${kind}: ${made} created, ${results.length - made} already present` });
    }
    // The scheduler places control-plane pods by the master role; the first master gets it now.
    const first = ctx.resources.firstMaster.name;
    await setRole(ctx, first);
    return { ok: true, summary: `${created} objects created, ${present} already present (of ${calls.length}); ${first} labelled as master` };
  },

  /**
   * Before workers join a running cluster: the kubelet bootstrap token's Secret is there and valid for
   * a while yet — created again when the tokencleaner removed it after it expired, renewed when it has
   * less than BOOTSTRAP_TOKEN_RENEW_MS left.
   */
  async "bootstrap-token"(ctx) {
    const create = plannedCalls(ctx, "create")[0];
    if (!create) return { ok: true, summary: "this profile's kubelets join without a bootstrap token" };
    const name = create.object.name;
    const now = new Date();
    const until = withExpiration({}, now).stringData.expiration;
    try {
      const current = await readObject<{ data?: Record<string, string> }>(ctx, create.object);
      if (!current) {
        await sendCreate(ctx, create, tokenExpiration(now));
        return { ok: true, summary: `${name} was gone (expired and cleaned up): created again, valid until ${until}` };
      }
      const expiration = current.data?.expiration ? Buffer.from(current.data.expiration, "base64").toString("utf8") : undefined;
      const left = expiration ? Date.parse(expiration) - now.getTime() : Number.POSITIVE_INFINITY;
      if (left >= BOOTSTRAP_TOKEN_RENEW_MS) return { ok: true, summary: `${name} valid until ${expiration ?? "it is removed (no expiration)"}` };
      await sendPatch(ctx, plannedCall(ctx, "renew"), { stringData: { expiration: until } });
      return { ok: true, summary: `${name} renewed: valid until ${until} (was ${expiration})` };
    } catch (err) {
      return failure(err);
    }
  },

  /**
   * Phase 8: wait for the self-hosted control plane (Running and Ready), every registered node Ready,
   * then remove the bootstrap control plane and check the self-hosted API server answers with the same
   * objects. The gap — how long the API did not answer — is measured when this attempt removed the
   * bootstrap control plane; an attempt that began after an earlier one removed it reports it unknown.
   */
  async pivot(ctx) {
    const first = ctx.resources.firstMaster;
    const api = ctx.resources.api();
    const marker = plannedCall(ctx, "marker");
    try {
      // Whether an earlier attempt already removed the bootstrap control plane is read from the host
      // (its manifests), never from the API: a mirror pod can lag behind a kubelet's registration, and
      // removing the bootstrap control plane before the self-hosted one started kills the cluster.
      const probe = await runPlanned(ctx, plannedExec(ctx, "present"), { quiet: true, timeoutMs: 30_000 });
      const bootstrapGone = !probe.stdout.toString("utf8").includes("present");
      if (!bootstrapGone) {
        await ctx.wait(`self-hosted control plane started (${CONTROL_PLANE_COMPONENTS.join(", ")}) and ${first.name} Ready`, { timeoutMs: 8 * 60_000, intervalMs: 2_000 }, async () => {
          const pods = await listPods(ctx);
          // Sharing the port, the self-hosted API server is Ready before the bootstrap one leaves.
          const missing = controlPlaneMissing(pods, CONTROL_PLANE_COMPONENTS);
          if (missing.length) return { ok: false, why: notReadyWhy(pods, missing) };
          const node = (await listNodes(ctx)).find((n) => n.metadata?.name === first.name);
          const ready = node ? nodeReady(node) : { ready: false, why: "not registered" };
          if (!ready.ready) return { ok: false, why: `${first.name} ${ready.why} — is the pod network (CNI) up?` };
          return { ok: true, value: undefined };
        });
        // A marker object written through the bootstrap API server must be read back through the self-hosted one.
        await sendCreate(ctx, marker);
      }
      const rm = await runLocked(ctx, plannedExec(ctx, "remove"));
      await ctx.emit("step.progress", { key: ctx.planned.key, message: `removed the bootstrap control plane from ${first.name}: ${rm.stdout.toString("utf8").trim()}` });
      // The gap: from removal until the API answers without a bootstrap apiserver pod and with the marker.
      const removedAt = Date.now();
      let firstDown: number | undefined;
      let lastDown: number | undefined;
      await ctx.wait(`the self-hosted kube-apiserver to take over on ${first.name}`, { timeoutMs: 6 * 60_000, intervalMs: 1_000 }, async () => {
        let health;
        try {
          health = await api.request("/healthz", { timeoutMs: 3_000, signal: ctx.signal });
        } catch (e) {
          health = { status: 0, body: e instanceof Error ? e.message : String(e) };
        }
        if (health.status !== 200) {
          firstDown ??= Date.now();
          lastDown = Date.now();
          return { ok: false, why: `API not answering (${health.status || health.body})` };
        }
        const pods = await listPods(ctx);
        if (pods.some((p) => (p.metadata?.name ?? "").startsWith("bootstrap-kube-apiserver"))) return { ok: false, why: "the bootstrap kube-apiserver's pod is still listed" };
        const missing = controlPlaneMissing(pods, CONTROL_PLANE_COMPONENTS);
        if (missing.length) return { ok: false, why: notReadyWhy(pods, missing) };
        const cm = await api.request(await objectPath(api, marker.object), { timeoutMs: 3_000 });
        if (cm.status === 404 && bootstrapGone) return { ok: true, value: undefined }; // resumed after the marker was removed
        if (cm.status !== 200) return { ok: false, why: `the pivot marker is not readable (HTTP ${cm.status})` };
        return { ok: true, value: undefined };
      });
      await sendDelete(ctx, plannedCall(ctx, "marker-delete")).catch(() => undefined);
      const checkpoint = await installCheckpoint(ctx, first);
      if (bootstrapGone)
        return {
          ok: true,
          summary: `self-hosted control plane answering; API gap unknown: an earlier attempt removed the bootstrap control plane before this one began${checkpoint}`,
          data: { apiGapS: null },
        };
      const gapS = firstDown && lastDown ? (lastDown - firstDown) / 1000 : 0;
      return { ok: true, summary: `self-hosted control plane took over ${((Date.now() - removedAt) / 1000).toFixed(1)} s after the bootstrap one was removed; API gap ${gapS.toFixed(1)} s${checkpoint}`, data: { apiGapS: gapS } };
    } catch (err) {
      return failure(err);
    }
  },

  /**
   * Phase 9: the host's node registered and Ready (its kubelet joined with the bootstrap token), then its
   * role; and alive now: the host answers, and its kubelet renewed its Lease after the step began (a
   * node the API still shows Ready within its grace period is not enough).
   */
  async join(ctx) {
    const host = needHost(ctx);
    let polls = 0;
    try {
      await assertReachable(ctx, host);
      const before = await livenessMark(ctx, host.name).catch(() => undefined);
      await ctx.wait(`${host.name} to register and be Ready`, { timeoutMs: 5 * 60_000, intervalMs: 2_000 }, async () => {
        // Every 10 s, the host itself: a host that went away mid-join fails now, not at the deadline.
        if (polls++ % 5 === 4) await assertReachable(ctx, host);
        const node = (await listNodes(ctx)).find((n) => n.metadata?.name === host.name);
        if (!node) return { ok: false, why: `${host.name} has not registered (is its kubelet running and can it reach ${ctx.resources.api().endpoint}?)` };
        const r = nodeReady(node);
        return r.ready ? { ok: true, value: undefined } : { ok: false, why: `${host.name} ${r.why}` };
      });
      const patched = await setRole(ctx, host.name);
      if (host.role === "master") {
        await ctx.wait(`the control plane on ${host.name} Running and Ready`, { timeoutMs: 5 * 60_000, intervalMs: 2_000 }, async () => {
          const pods = (await listPods(ctx)).filter((p) => p.spec?.nodeName === host.name);
          const missing = controlPlaneMissing(pods, ["kube-apiserver"]);
          return missing.length ? { ok: false, why: `${missing.join(", ")} not Running and Ready on ${host.name}` } : { ok: true, value: undefined };
        });
      }
      await proveAlive(ctx, [{ host, before }]);
      const checkpoint = host.role === "master" && host.name !== ctx.resources.firstMaster.name ? await installCheckpoint(ctx, host) : "";
      return { ok: true, summary: `${host.name} Ready and alive (kubelet Lease renewed, host answering)${patched ? `, role ${host.role} set` : ""}${checkpoint}` };
    } catch (err) {
      return failure(err, { journal: await journalTail(ctx) });
    }
  },

  /** Phase 10: every joined node Ready and alive now, every pod Running and Ready; a summary. */
  async verify(ctx) {
    let summary = "";
    const joinSteps = await getDb().step.findMany({ where: { runId: ctx.runId, phase: "join" }, select: { status: true, host: { select: { name: true } } } });
    // The hosts this run joined (a host that failed earlier is reported by its own step, not here).
    const joined = joinSteps.length ? joinSteps.filter((s) => s.status === "done").map((s) => s.host?.name ?? "") : ctx.hosts.map((h) => h.name);
    const hosts = ctx.hosts.filter((h) => joined.includes(h.name));
    try {
      const before = await Promise.all(hosts.map(async (host) => ({ host, before: await livenessMark(ctx, host.name).catch(() => undefined) })));
      await ctx.wait("every node Ready and every pod Running and Ready", { timeoutMs: 3 * 60_000, intervalMs: 2_000 }, async () => {
        const [nodes, pods] = await Promise.all([listNodes(ctx), listPods(ctx)]);
        const notReady = joined.filter((n) => {
          const node = nodes.find((x) => x.metadata?.name === n);
          return !node || !nodeReady(node).ready;
        });
        const bad = pods.filter((p) => !podReady(p) && p.status?.phase !== "Succeeded");
        if (notReady.length) return { ok: false, why: `not Ready: ${notReady.join(", ")}` };
        if (bad.length) return { ok: false, why: `pods not Running and Ready: ${bad.slice(0, 8).map(podLine).join("; ")}${bad.length > 8 ? ` and ${bad.length - 8} more` : ""}` };
        const mirrors = pods.filter(isMirrorPod).length;
        summary = `${nodes.length} nodes Ready, ${pods.length} pods Running and Ready (${mirrors} static)`;
        return { ok: true, value: undefined };
      });
      await proveAlive(ctx, before);
      return { ok: true, summary: `${summary}; ${hosts.length} hosts answering, kubelet Leases renewed` };
    } catch (err) {
      return failure(err);
    }
  },

  /** Reset: stop the kubelet and its pods, remove what Bootdeck installed. */
  async reset(ctx) {
    const host = needHost(ctx);
    try {
      const r = await runLocked(ctx, plannedExec(ctx, "reset"));
      // Its Node object goes too (now that no kubelet re-registers it), so that a later join waits for
      // a fresh registration instead of a stale Ready. Best effort: a cluster reset whole has no API.
      let node = "";
      const del = plannedCalls(ctx, "delete", host.name)[0];
      if (del) {
        try {
          node = (await sendDelete(ctx, del, { timeoutMs: 5_000 })) ? "; Node object deleted" : "";
        } catch (e) {
          node = `; Node object not deleted (${e instanceof Error ? e.message : String(e)})`;
        }
      }
      return { ok: true, summary: `${r.stdout.toString("utf8").trim() || "reset"}${node}` };
    } catch (err) {
      if (isSshError(err)) throw err;
      return failure(err);
    }
  },
};

/** The API server's checkpoint on a master, when the plan has one for it: its files, then the planned enable command. "" otherwise. */
export async function installCheckpoint(ctx: ActionContext, host: EngineHost): Promise<string> {
  const enable = (ctx.planned.exec ?? []).find((e) => e.id === "checkpoint" && (e.host ?? ctx.planned.host) === host.name);
  if (!enable) return "";
  const files = plannedFiles(ctx, host.name);
  const up = await ctx.executor.upload(host.target, files, { step: ctx.planned.key, signal: ctx.signal });
  await runLocked(ctx, enable);
  return `; API server checkpoint on ${host.name} (${up.written} of ${files.length} files changed)`;
}

async function waitForServiceAccounts(ctx: ActionContext, accounts: ObjectRef[]): Promise<void> {
  await ctx.wait(`service accounts made by the controller-manager (${accounts.map((a) => a.name).join(", ")})`, { timeoutMs: 3 * 60_000, intervalMs: 1_000 }, async () => {
    for (const a of accounts) {
      const sa = await readObject<{ secrets?: unknown[] }>(ctx, a);
      if (!sa) return { ok: false, why: `${a.namespace}/${a.name} does not exist yet (is kube-controller-manager running?)` };
    }
    return { ok: true, value: undefined };
  });
}

/** Ends a wait at once when the host no longer answers over SSH (the plan's read-only "alive" command; other errors: keep waiting). */
async function assertReachable(ctx: ActionContext, host: EngineHost): Promise<void> {
  try {
    await runPlanned(ctx, plannedExec(ctx, "alive", host.name), { quiet: true, timeoutMs: 10_000 });
  } catch (err) {
    if (isSshError(err) && ["unreachable", "timeout", "refused"].includes(err.detail.kind)) throw new WaitAbandoned(`${host.name} stopped answering over SSH: ${err.message}`);
  }
}

/** Gives a node its role's labels and taint through the API, as planned, when it lacks them (kubelets may not self-label their role). */
async function setRole(ctx: ActionContext, name: string): Promise<boolean> {
  const label = plannedCallOn(ctx, "patch", name);
  const taint = plannedCalls(ctx, "taint", name)[0];
  const node = await ctx.wait(`${name} registered, to set its role`, { timeoutMs: 3 * 60_000, intervalMs: 2_000 }, async () => {
    const n = await readObject<NodeLike>(ctx, label.object);
    return n ? { ok: true, value: n } : { ok: false, why: `${name} has not registered yet` };
  });
  const missing = roleMissing(node, { labels: (callBody(ctx, label) as { metadata: { labels: Record<string, string> } }).metadata.labels, taint: taint ? (callBody(ctx, taint) as Taint) : undefined });
  if (missing.labels) await sendPatch(ctx, label);
  if (taint && missing.taint) await sendTaint(ctx, taint, node.spec?.taints ?? []);
  return missing.labels || missing.taint;
}

/** The bootstrap token's Secret as created at `now`: valid for a day (the render has no clock: see token.ts). */
const tokenExpiration = (now: Date) => (o: Record<string, unknown>) => (isBootstrapTokenSecret(o) ? withExpiration(o as { stringData?: Record<string, string> }, now) : o);
