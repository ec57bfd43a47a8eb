import "server-only";
// Actions of the day-2 runs that change who is in the cluster (plans-day2.ts): etcd's membership with
// its quorum checks, drains, Node deletion, the API address, the control plane's objects applied
// again, and the definition updated once the hosts have changed. Each one gathers facts first and acts
// only when needed, so a resumed or retried step repeats nothing that is done.
import { APISERVER_POD_SELECTOR } from "../../assets/manifests/flags";
import type { ClusterDefinition } from "../../cluster/definition";
import { validateClusterDefinition } from "../../cluster/definition";
import { recordAudit } from "../../audit/record";
import { getDb } from "../../db/client";
import { isSshError } from "../../ssh";
import { learnerLag, membershipProblem, memberStates, parseEtcdStatusOutput, quorumOf, removalRefusal, type EtcdView, type ExpectedMember } from "../day2/etcd";
import type { ObjectRef, PlannedExec } from "../plan";
import { refLabel } from "../plan-objects";
import { sendApply, sendCreate } from "./api-calls";
import { definitionSha } from "../plans-day2";
import { failure } from "./bootstrap";
import { deleteNode, drainNode, hostNamed, param, pushPlannedFiles, readNode, runPlanned, textOf, waitRollout } from "./day2-kube";
import { isMirrorPod, nodeReady, podLine, podReady, type NodeLike, type PodLike } from "./kube";
import { execHost, needHost, plannedExec, plannedExecs, WaitAbandoned, type Action, type ActionContext } from "./types";

const json = <T>(ctx: ActionContext, name: string): T => JSON.parse(param(ctx, name)) as T;

// ---- etcd ----

/** etcd's view, asked on the planned masters in turn; the first that runs etcd answers. */
export async function etcdView(ctx: ActionContext): Promise<{ view: EtcdView; on: string }> {
  const tried: string[] = [];
  for (const e of plannedExecs(ctx, "etcd-status")) {
    const host = execHost(ctx, e).name;
    try {
      const r = await runPlanned(ctx, e, { allowFailure: true, quiet: true, timeoutMs: 60_000 });
      if (r.exitCode === 0) return { view: parseEtcdStatusOutput(r.stdout.toString("utf8")), on: host };
      tried.push(`${host}: ${r.stderrTail.slice(-2).join("; ") || `exit ${r.exitCode}`}`);
    } catch (err) {
      if (!isSshError(err)) throw err;
      tried.push(`${host}: ${err.message}`);
    }
  }
  throw new Error(`no master answered for etcd (${tried.join(" · ")})`);
}

/** Runs the planned etcd command `id` on `preferred` (the master that answered), else on the others. */
async function etcdCommand(ctx: ActionContext, id: string, preferred: string): Promise<string> {
  const execs = plannedExecs(ctx, id).sort((a, b) => Number((b.host ?? "") === preferred) - Number((a.host ?? "") === preferred));
  const errors: string[] = [];
  for (const e of execs) {
    try {
      const r = await runPlanned(ctx, e, { allowFailure: true, timeoutMs: 60_000 });
      if (r.exitCode === 0) return r.stdout.toString("utf8").trim();
      errors.push(`${execHost(ctx, e).name}: ${r.stderrTail.slice(-3).join("; ") || `exit ${r.exitCode}`}`);
      if (r.exitCode !== 3) break; // etcd answered and refused: another master would get the same answer
    } catch (err) {
      if (!isSshError(err)) throw err;
      errors.push(`${execHost(ctx, e).name}: ${err.message}`);
    }
  }
  throw new Error(errors.join(" · "));
}

const healthLine = (view: EtcdView) => {
  const states = memberStates(view);
  const voters = states.filter((s) => !s.learner);
  return `${voters.filter((s) => s.healthy).length} of ${voters.length} members healthy (quorum ${quorumOf(voters.length)})${states.some((s) => s.learner) ? `, ${states.filter((s) => s.learner).length} learner` : ""}`;
};

/** Adding masters: every member healthy, no stray learner, the membership as the definition lists it. */
async function etcdGuard(ctx: ActionContext) {
  const expected = json<ExpectedMember[]>(ctx, "expected");
  const joining = json<string[]>(ctx, "joining");
  const { view, on } = await etcdView(ctx);
  // A member this run added before it stopped is not a stranger: the etcd step goes on with it.
  const known = [...expected, ...joining.filter((u) => view.members.some((m) => m.peerUrls.includes(u))).map((u) => ({ name: "", peerUrl: u, clientUrl: "" }))];
  const problem = membershipProblem(view, known, { allowLearner: joining.find((u) => view.members.some((m) => m.learner && m.peerUrls.includes(u))) });
  if (problem) return { ok: false as const, error: `refusing to add masters: ${problem}`, hint: "bring the unhealthy member back (its host, its etcd pod's log), then retry" };
  return { ok: true as const, summary: `etcd (asked on ${on}): ${healthLine(view)}` };
}

async function etcdJoin(ctx: ActionContext) {
  const host = needHost(ctx);
  const name = param(ctx, "name");
  const peerUrl = param(ctx, "peerUrl");
  const before = json<ExpectedMember[]>(ctx, "before");
  const after = json<ExpectedMember[]>(ctx, "after");
  const started = Date.now();
  let { view, on } = await etcdView(ctx);
  const existing = view.members.find((m) => m.peerUrls.includes(peerUrl));
  let added = "already a member";
  if (!existing) {
    const problem = membershipProblem(view, before);
    if (problem) return { ok: false as const, error: `refusing to add ${name} to etcd: ${problem}` };
    added = await etcdCommand(ctx, "etcd-add", on);
  }
  const up = await pushPlannedFiles(ctx, host);
  let lag: number | undefined;
  let promoted = !(existing?.learner ?? true);
  if (!promoted)
    await ctx.wait(`${name}'s etcd to catch up with the leader, then its promotion`, { timeoutMs: 5 * 60_000, intervalMs: 2_000 }, async () => {
      ({ view, on } = await etcdView(ctx));
      const m = view.members.find((x) => x.peerUrls.includes(peerUrl));
      if (!m) return { ok: false, why: `${name} is no longer a member (removed meanwhile?)` };
      if (!m.learner) return { ok: true, value: undefined };
      if (!m.name) return { ok: false, why: `${name}'s etcd has not started yet (its pod on ${host.name})` };
      lag = learnerLag(view, peerUrl);
      try {
        await etcdCommand(ctx, "etcd-promote", on);
        return { ok: true, value: undefined };
      } catch (err) {
        return { ok: false, why: `not promoted yet${lag !== undefined ? ` (${lag} entries behind)` : ""}: ${err instanceof Error ? err.message : String(err)}` };
      }
    });
  promoted = true;
  await ctx.wait(`every etcd member healthy with ${name}`, { timeoutMs: 2 * 60_000, intervalMs: 2_000 }, async () => {
    ({ view, on } = await etcdView(ctx));
    const problem = membershipProblem(view, after);
    return problem ? { ok: false, why: problem } : { ok: true, value: undefined };
  });
  return {
    ok: true as const,
    summary: `${name}: ${added.replace(/^bootdeck-etcd /, "")}; etcd pod ${up.written ? "started" : "in place"}; promoted after ${((Date.now() - started) / 1000).toFixed(1)} s; ${healthLine(view)}`,
    data: { promoted },
  };
}

/** Removing masters: the quorum guard. Workers only: nothing to check. */
async function removeGuard(ctx: ActionContext) {
  const removing = json<string[]>(ctx, "removing");
  if (!removing.length) return { ok: true as const, summary: "workers only: etcd is not touched" };
  const { view, on } = await etcdView(ctx);
  const expected = json<ExpectedMember[]>(ctx, "expected");
  // Members this plan removes may already be gone (a retry): judge what is left of the expected ones.
  const present = expected.filter((e) => view.members.some((m) => m.peerUrls.includes(e.peerUrl)));
  const problem = membershipProblem(view, present);
  const stranger = problem && /does not list|learner/.test(problem) ? problem : undefined;
  if (stranger) return { ok: false as const, error: `refusing to remove masters: ${stranger}` };
  const refusal = removalRefusal(
    view,
    removing.filter((n) => view.members.some((m) => m.name === n)),
  );
  if (refusal) return { ok: false as const, error: `quorum guard: ${refusal}`, hint: "remove the unhealthy member on its own first (it is the one that cannot vote), or bring it back" };
  return { ok: true as const, summary: `etcd (asked on ${on}): ${healthLine(view)}; removing ${removing.join(", ")} keeps a healthy majority` };
}

async function etcdLeave(ctx: ActionContext) {
  const host = needHost(ctx);
  const name = param(ctx, "name");
  const peerUrl = param(ctx, "peerUrl");
  const after = json<ExpectedMember[]>(ctx, "after");
  let { view, on } = await etcdView(ctx);
  let removed = "already removed";
  let released = "";
  if (view.members.some((m) => m.peerUrls.includes(peerUrl))) {
    const refusal = removalRefusal(view, [name]);
    if (refusal) return { ok: false as const, error: `quorum guard: ${refusal}` };
    // Best effort: a host that is gone holds no address either.
    try {
      released = textOf(await runPlanned(ctx, plannedExec(ctx, "release-address"), { timeoutMs: 30_000 })).trim().replace(/^bootdeck-/, "");
    } catch (err) {
      released = `address not released (${err instanceof Error ? err.message : String(err)})`;
    }
    // etcd refuses a removal while a remaining member has been connected for less than 5 s ("unhealthy
    // cluster", its strict reconfiguration check): a member that just came back is asked again shortly.
    removed = await ctx.wait(`etcd to accept the removal of ${name}`, { timeoutMs: 2 * 60_000, intervalMs: 2_000 }, async () => {
      try {
        return { ok: true, value: (await etcdCommand(ctx, "etcd-remove", on)).replace(/^bootdeck-etcd /, "") };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (/unhealthy cluster/.test(message)) return { ok: false, why: "etcd refuses for now: a remaining member reconnected less than 5 s ago (unhealthy cluster)" };
        throw new WaitAbandoned(message);
      }
    });
  }
  await ctx.wait(`every etcd member healthy without ${name}`, { timeoutMs: 2 * 60_000, intervalMs: 2_000 }, async () => {
    ({ view, on } = await etcdView(ctx));
    const problem = membershipProblem(view, after);
    return problem ? { ok: false, why: problem } : { ok: true, value: undefined };
  });
  // Its etcd would keep restarting against a cluster that removed it: its pod goes (best effort, the host may be gone).
  let stopped = "its etcd pod stopped";
  try {
    await runPlanned(ctx, plannedExec(ctx, "stop-etcd"), { timeoutMs: 30_000 });
  } catch (err) {
    stopped = `its etcd pod not stopped (${err instanceof Error ? err.message : String(err)}); the reset removes it`;
  }
  return { ok: true as const, summary: `${released ? `${released}; ` : ""}${name} ${removed}; ${stopped}; ${healthLine(view)} on ${after.map((m) => m.name).join(", ")}`, data: { host: host.name } };
}

// ---- nodes ----

async function drain(ctx: ActionContext) {
  const host = needHost(ctx);
  const node = await readNode(ctx, host.name);
  if (!node) return { ok: true as const, summary: `${host.name} is not registered: nothing to drain` };
  try {
    return { ok: true as const, summary: await drainNode(ctx, host.name) };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      ok: false as const,
      error: message,
      hint: /disruption budget/.test(message)
        ? "a PodDisruptionBudget keeps these pods where they are: give the workload room elsewhere (more replicas, other nodes), relax the budget, or allow a longer drain; then retry"
        : "pods did not leave in time: see which above; retry once they can",
    };
  }
}

async function removeNode(ctx: ActionContext) {
  const host = needHost(ctx);
  let stopped = "kubelet stopped";
  try {
    await runPlanned(ctx, plannedExec(ctx, "stop"), { timeoutMs: 60_000 });
  } catch (err) {
    // A host that is gone cannot stop its kubelet, nor register its Node again.
    if (!isSshError(err)) throw err;
    stopped = `kubelet not stopped (${err.message}): the host does not answer`;
  }
  const deleted = await deleteNode(ctx, host.name);
  return { ok: true as const, summary: `${stopped}; node ${host.name} ${deleted ? "deleted" : "was not registered"}` };
}

// ---- applying the control plane's objects ----

async function listPods(ctx: ActionContext, selector: string): Promise<(PodLike & { spec?: { nodeName?: string; containers?: { image?: string }[] } })[]> {
  return (await ctx.resources.api().getJson<{ items: PodLike[] }>(`/api/v1/namespaces/kube-system/pods?labelSelector=${encodeURIComponent(selector)}`, ctx.signal))?.items ?? [];
}

/** Waits until the API server on every master runs `image` (when given), Running and Ready. */
export async function waitApiServers(ctx: ActionContext, image: string | undefined, timeoutMs: number): Promise<string> {
  const masters = ctx.resources.masters.map((m) => m.name);
  let line = "";
  await ctx.wait(`the API server on every master Running and Ready${image ? ` with ${image}` : ""}`, { timeoutMs, intervalMs: 2_000 }, async () => {
    const pods = await listPods(ctx, APISERVER_POD_SELECTOR);
    const nodes = (await ctx.resources.api().getJson<{ items: NodeLike[] }>("/api/v1/nodes", ctx.signal))?.items ?? [];
    const registered = masters.filter((m) => nodes.some((n) => n.metadata?.name === m));
    const missing = registered.filter((m) => !pods.some((p) => p.spec?.nodeName === m && podReady(p) && (!image || p.spec?.containers?.[0]?.image === image)));
    if (missing.length) {
      const seen = pods.filter((p) => missing.includes(p.spec?.nodeName ?? "")).map((p) => `${podLine(p)} ${p.spec?.containers?.[0]?.image ?? ""}`);
      return { ok: false, why: `not yet on ${missing.join(", ")}${seen.length ? ` (seen: ${seen.join("; ")})` : ""}` };
    }
    line = `API server Ready on ${registered.join(", ")}`;
    return { ok: true, value: undefined };
  });
  return line;
}

/** The planned objects in plan order: `apply` replaces what was applied from other content, `create` only creates what is missing; then the rollouts. */
async function applyObjects(ctx: ActionContext) {
  const wait = param(ctx, "wait");
  const image = ctx.planned.params?.image;
  const calls = (ctx.planned.api ?? []).filter((c) => c.verb === "apply" || c.verb === "create");
  const results: string[] = [];
  const rolled: ObjectRef[] = [];
  for (const c of calls) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const r = c.verb === "apply" ? await sendApply(ctx, c) : (await sendCreate(ctx, c)) === "created" ? "created" : "unchanged";
    if (r !== "unchanged") results.push(`${refLabel(c.object)} ${r}`);
    if (c.object.kind === "DaemonSet" || c.object.kind === "Deployment") rolled.push(c.object);
  }
  for (const o of rolled) await waitRollout(ctx, o, 10 * 60_000);
  let health = "";
  if (wait === "apiservers") {
    health = await waitApiServers(ctx, image, 10 * 60_000);
    if (plannedExecs(ctx, "etcd-status").length) {
      const { view } = await etcdView(ctx);
      health += `; etcd: ${healthLine(view)}`;
    }
  }
  return { ok: true as const, summary: `${results.length ? results.join(", ") : `${calls.length} objects unchanged`}${rolled.length ? `; ${rolled.length} workload${rolled.length === 1 ? "" : "s"} rolled out` : ""}${health ? `; ${health}` : ""}` };
}

// ---- the definition ----

/** Updates the stored definition once the hosts have changed: guarded by the checksum of the definition the run was planned from. */
async function recordDefinition(ctx: ActionContext) {
  const op = param(ctx, "op");
  const run = await getDb().run.findUniqueOrThrow({ where: { id: ctx.runId }, select: { clusterId: true } });
  const cluster = await getDb().cluster.findUniqueOrThrow({ where: { id: run.clusterId }, select: { definition: true, kubernetesVersion: true } });
  const def = JSON.parse(cluster.definition) as ClusterDefinition;
  let next: ClusterDefinition;
  let what: string;
  if (op === "set-version") {
    const version = param(ctx, "version");
    if (def.spec.kubernetes.version === version) return { ok: true as const, summary: `the definition says ${version} already` };
    next = { ...def, spec: { ...def.spec, kubernetes: { ...def.spec.kubernetes, version } } };
    what = `version ${def.spec.kubernetes.version} → ${version}`;
  } else if (op === "remove-hosts") {
    const hosts = json<string[]>(ctx, "hosts");
    if (!def.spec.hosts.some((h) => hosts.includes(h.name))) return { ok: true as const, summary: `the definition no longer lists ${hosts.join(", ")}` };
    next = { ...def, spec: { ...def.spec, hosts: def.spec.hosts.filter((h) => !hosts.includes(h.name)) } };
    what = `${hosts.join(", ")} removed`;
  } else throw new Error(`unknown definition change ${op}`);
  if (definitionSha(def) !== param(ctx, "from")) return { ok: false as const, error: "the cluster's definition was edited after this run was planned: the change is not recorded; edit it by hand or plan again" };
  const valid = validateClusterDefinition(next);
  if (!valid.ok) return { ok: false as const, error: `the updated definition would be invalid: ${valid.errors.map((e) => `${e.path}: ${e.message}`).join("; ")}` };
  const r = await getDb().cluster.updateMany({
    where: { id: run.clusterId, definition: cluster.definition },
    data: { definition: JSON.stringify(valid.definition), kubernetesVersion: valid.definition.spec.kubernetes.version },
  });
  if (r.count !== 1) return { ok: false as const, error: "the cluster's definition changed while it was being updated; retry" };
  await ctx.emit("cluster.definition-changed", { change: what });
  await recordAudit({ action: "cluster.update", username: `run:${ctx.runId}`, target: run.clusterId, details: { change: what, runId: ctx.runId } });
  return { ok: true as const, summary: `definition updated: ${what}` };
}

// ---- checks ----

async function verifyNodes(ctx: ActionContext) {
  const present = json<string[]>(ctx, "present");
  const absent = json<string[]>(ctx, "absent");
  const version = ctx.planned.params?.version;
  let summary = "";
  await ctx.wait(`${present.length} nodes Ready${version ? ` with ${version}` : ""}${absent.length ? `, ${absent.join(", ")} gone` : ""}, every pod Running and Ready`, { timeoutMs: 4 * 60_000, intervalMs: 2_000 }, async () => {
    const nodes = (await ctx.resources.api().getJson<{ items: (NodeLike & { status?: { nodeInfo?: { kubeletVersion?: string } } })[] }>("/api/v1/nodes", ctx.signal))?.items ?? [];
    const pods = (await ctx.resources.api().getJson<{ items: PodLike[] }>("/api/v1/pods", ctx.signal))?.items ?? [];
    const problems: string[] = [];
    for (const n of present) {
      const node = nodes.find((x) => x.metadata?.name === n);
      if (!node) problems.push(`${n} not registered`);
      else if (!nodeReady(node).ready) problems.push(`${n} ${nodeReady(node).why}`);
      else if (version && node.status?.nodeInfo?.kubeletVersion !== version) problems.push(`${n} runs kubelet ${node.status?.nodeInfo?.kubeletVersion}`);
    }
    for (const n of absent) if (nodes.some((x) => x.metadata?.name === n)) problems.push(`${n} still registered`);
    const bad = pods.filter((p) => !podReady(p) && p.status?.phase !== "Succeeded");
    if (problems.length) return { ok: false, why: problems.join("; ") };
    if (bad.length) return { ok: false, why: `pods not Running and Ready: ${bad.slice(0, 8).map(podLine).join("; ")}${bad.length > 8 ? ` and ${bad.length - 8} more` : ""}` };
    summary = `${nodes.length} nodes Ready${version ? ` (kubelet ${version})` : ""}, ${pods.length} pods Running and Ready (${pods.filter(isMirrorPod).length} static)${absent.length ? `; ${absent.join(", ")} gone` : ""}`;
    return { ok: true, value: undefined };
  });
  return { ok: true as const, summary };
}

// ---- plain host steps ----

/** Pushes the step's files, then runs its planned commands in order ("needed" ones only on failure: the journal). */
async function pushAndRun(ctx: ActionContext) {
  const host = needHost(ctx);
  const up = await pushPlannedFiles(ctx, host);
  const out: string[] = [];
  try {
    for (const e of (ctx.planned.exec ?? []).filter((x) => x.when === "always")) {
      const r = await runPlanned(ctx, e);
      const last = r.stdout.toString("utf8").trim().split("\n").pop() ?? "";
      if (last) out.push(last.replace(/^bootdeck-/, ""));
    }
  } catch (err) {
    return failure(err, { journal: await neededLines(ctx, "journal") });
  }
  return { ok: true as const, summary: `${up.written} of ${up.total} files changed${out.length ? `; ${out.join("; ")}` : ""}` };
}

/** A read-only command planned as "needed" (the kubelet's journal), run for a failure's record; [] when absent or failing. */
export async function neededLines(ctx: ActionContext, id: string): Promise<string[]> {
  const e: PlannedExec | undefined = plannedExecs(ctx, id)[0];
  if (!e) return [];
  try {
    const r = await runPlanned(ctx, e, { allowFailure: true, quiet: true, timeoutMs: 15_000 });
    return r.stdout.toString("utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

/** The API address on a master: keepalived installed from packages when missing, its files, started. */
async function endpoint(ctx: ActionContext) {
  const host = needHost(ctx);
  try {
    const pkg = await runPlanned(ctx, plannedExec(ctx, "package"), { timeoutMs: 15 * 60_000 });
    const up = await pushPlannedFiles(ctx, host);
    // The script restarts keepalived only when its files differ from what it runs with.
    const r = await runPlanned(ctx, plannedExec(ctx, "start"));
    const installed = pkg.stdout.toString("utf8").includes("present") ? "keepalived present" : "keepalived installed";
    return { ok: true as const, summary: `${installed}; ${up.written} of ${up.total} files changed; ${r.stdout.toString("utf8").trim().split("\n").pop()?.replace(/^bootdeck-endpoint /, "") ?? ""}` };
  } catch (err) {
    return failure(err);
  }
}

export const membershipActions: Record<string, Action> = {
  "etcd-guard": etcdGuard,
  "etcd-join": etcdJoin,
  "remove-guard": removeGuard,
  "etcd-leave": etcdLeave,
  drain,
  "remove-node": removeNode,
  "apply-objects": applyObjects,
  "record-definition": recordDefinition,
  "verify-nodes": verifyNodes,
  "push-and-run": pushAndRun,
  endpoint,
  /** Runs the step's planned commands in order (staging downloads, image pulls). */
  async "run-execs"(ctx) {
    needHost(ctx);
    const out: string[] = [];
    try {
      for (const e of (ctx.planned.exec ?? []).filter((x) => x.when === "always")) {
        const r = await runPlanned(ctx, e);
        const lines = r.stdout.toString("utf8").trim().split("\n").filter(Boolean);
        out.push(`${e.id}: ${lines.length > 1 ? `${lines.length} done` : (lines[0] ?? "done").replace(/^bootdeck-/, "")}`);
      }
      return { ok: true, summary: out.join("; ") };
    } catch (err) {
      return failure(err);
    }
  },
};

export { hostNamed };
