import "server-only";
// Actions of a rolling upgrade (plans-day2.ts buildUpgradePlan): the preflight of the new version, the
// skew policy against what runs, etcd one master at a time, the pause points between batches, and each
// node's kubelet: cordon, drain, swap (checksum-verified), restart, Ready with the new version,
// uncordon — or back to the old kubelet when it does not come back, which stops the upgrade.
import { getDb } from "../../db/client";
import { capabilitiesFor } from "../../assets/capabilities";
import { APISERVER_POD_SELECTOR } from "../../assets/manifests/flags";
import { membershipProblem, memberStates, type ExpectedMember } from "../day2/etcd";
import { runningSkewProblem } from "../day2/skew";
import { failure } from "./bootstrap";
import { assertAnswers, drainNode, moveAddress, param, pushPlannedFiles, readNode, rejoinAfterFailure, runPlanned, setUnschedulable, textOf } from "./day2-kube";
import { podLine, podReady, type NodeLike, type PodLike } from "./kube";
import { etcdView, neededLines, waitApiServers } from "./membership";
import type { EngineHost } from "../targets";
import { needHost, plannedExec, type Action, type ActionContext, type ActionOutcome } from "./types";

/** Minimum free space for the new kubelet and kubectl, staged and installed (kB). */
const MIN_FREE_KB = 400 * 1024;

const tagOf = (image: string) => image.slice(image.lastIndexOf(":") + 1);

/** Read-only: the mirror serves the new kubelet, there is room for it, the cgroup rule of the new version holds. */
async function upgradePreflight(ctx: ActionContext): Promise<ActionOutcome> {
  const host = needHost(ctx);
  const to = param(ctx, "to");
  const r = await runPlanned(ctx, plannedExec(ctx, "preflight"), { quiet: true });
  const kv = Object.fromEntries(
    r.stdout
      .toString("utf8")
      .split("\n")
      .map((l) => l.split("=") as [string, string])
      .filter((x) => x.length >= 2),
  );
  const errors: string[] = [];
  const notes: string[] = [];
  if (kv.binary !== "ok") errors.push(`the binary mirror does not serve kubelet ${to}`);
  if (kv.sums !== "ok") errors.push(`the binary mirror publishes no checksum for kubelet ${to}`);
  if (Number(kv.free_kb) < MIN_FREE_KB || Number(kv.stage_free_kb) < MIN_FREE_KB) errors.push(`less than ${MIN_FREE_KB / 1024} MiB free for the new binaries (${Math.round(Number(kv.free_kb) / 1024)} MiB)`);
  if (kv.cgroup === "tmpfs" && capabilitiesFor(to).cgroupV1Refused) {
    if (param(ctx, "allowCgroupV1") === "true") notes.push("cgroup v1: allowed by the definition (kubelet told failCgroupV1: false)");
    else errors.push(`${host.name} runs cgroup v1, which the kubelet of ${to} refuses; move the host to cgroup v2 or set spec.kubernetes.allowCgroupV1`);
  }
  if (errors.length) return { ok: false, error: `preflight of ${to} failed on ${host.name}: ${errors.join("; ")}` };
  return { ok: true, summary: `kubelet ${kv.kubelet || "(none)"} now; ${to} served by the mirror; ${Math.round(Number(kv.free_kb) / 1024)} MiB free${notes.length ? `; ${notes.join("; ")}` : ""}` };
}

/** The version skew policy against what runs, every node Ready, etcd healthy. */
async function upgradeCheck(ctx: ActionContext): Promise<ActionOutcome> {
  const from = param(ctx, "from");
  const to = param(ctx, "to");
  const api = ctx.resources.api();
  const pods = (await api.getJson<{ items: (PodLike & { spec?: { nodeName?: string; containers?: { image?: string }[] } })[] }>(`/api/v1/namespaces/kube-system/pods?labelSelector=${encodeURIComponent(APISERVER_POD_SELECTOR)}`, ctx.signal))?.items ?? [];
  const nodes = (await api.getJson<{ items: (NodeLike & { status?: { nodeInfo?: { kubeletVersion?: string } } })[] }>("/api/v1/nodes", ctx.signal))?.items ?? [];
  const apiservers = Object.fromEntries(pods.map((p) => [p.spec?.nodeName ?? p.metadata?.name ?? "?", tagOf(p.spec?.containers?.[0]?.image ?? "")]));
  const kubelets = Object.fromEntries(nodes.map((n) => [n.metadata?.name ?? "?", n.status?.nodeInfo?.kubeletVersion ?? ""]));
  const skew = runningSkewProblem({ from, to, apiservers, kubelets });
  if (skew) return { ok: false, error: `version skew: ${skew}` };
  const hosts = ctx.hosts.map((h) => h.name);
  const notReady = hosts.filter((h) => {
    const n = nodes.find((x) => x.metadata?.name === h);
    return !n || n.status?.conditions?.find((c) => c.type === "Ready")?.status !== "True";
  });
  if (notReady.length) return { ok: false, error: `not every node is Ready (${notReady.join(", ")}): an upgrade drains nodes one batch at a time and needs the others to take their pods; fix them first` };
  const { view, on } = await etcdView(ctx);
  const problem = membershipProblem(view, JSON.parse(param(ctx, "expected")) as ExpectedMember[]);
  if (problem) return { ok: false, error: `refusing to upgrade: ${problem}` };
  const versions = [...new Set(Object.values(apiservers))].join(", ");
  return { ok: true, summary: `API servers ${versions}; kubelets ${[...new Set(Object.values(kubelets))].join(", ")}; ${nodes.length} nodes Ready; etcd (asked on ${on}) ${memberStates(view).length} members healthy` };
}

/** One master's etcd member on the new image: its static pod replaced, Running and Ready with it, every member healthy. */
async function etcdUpgrade(ctx: ActionContext): Promise<ActionOutcome> {
  const host = needHost(ctx);
  const image = param(ctx, "image");
  const expected = JSON.parse(param(ctx, "expected")) as ExpectedMember[];
  const wanted = tagOf(image).replace(/-\d+$/, "");
  const started = Date.now();
  try {
    // This master's API server uses only its own member: the address leaves before the member restarts.
    const released = await moveAddress(ctx, "release-address");
    const up = await pushPlannedFiles(ctx, host);
    await ctx.wait(`etcd on ${host.name} Running and Ready with ${image}`, { timeoutMs: 5 * 60_000, intervalMs: 2_000 }, async () => {
      const pod = await ctx.resources.api().getJson<PodLike & { spec?: { containers?: { image?: string }[] } }>(`/api/v1/namespaces/kube-system/pods/etcd-${encodeURIComponent(host.name)}`, ctx.signal);
      if (!pod) return { ok: false, why: `no etcd pod of ${host.name} listed yet` };
      if (pod.spec?.containers?.[0]?.image !== image) return { ok: false, why: `${host.name}'s etcd pod still runs ${pod.spec?.containers?.[0]?.image}` };
      return podReady(pod) ? { ok: true, value: undefined } : { ok: false, why: podLine(pod) };
    });
    let line = "";
    await ctx.wait(`every etcd member healthy, ${host.name}'s on ${wanted}`, { timeoutMs: 3 * 60_000, intervalMs: 2_000 }, async () => {
      const { view } = await etcdView(ctx);
      const problem = membershipProblem(view, expected);
      if (problem) return { ok: false, why: problem };
      const m = view.members.find((x) => x.name === host.name);
      const st = view.statuses.find((s) => s.memberId === m?.id);
      if (st?.version !== wanted) return { ok: false, why: `${host.name}'s etcd reports ${st?.version ?? "no version"}` };
      line = view.statuses.map((s) => `${view.members.find((x) => x.id === s.memberId)?.name ?? s.endpoint} ${s.version}`).join(", ");
      return { ok: true, value: undefined };
    });
    const rejoined = await moveAddress(ctx, "rejoin-address");
    return { ok: true, summary: [released, `${up.written ? "etcd pod replaced" : "etcd pod in place"}; healthy after ${((Date.now() - started) / 1000).toFixed(1)} s; members: ${line}`, rejoined].filter(Boolean).join("; ") };
  } catch (err) {
    await rejoinAfterFailure(ctx);
    return failure(err);
  }
}

/** The pause state of a run: a pause asked for after the last resume. */
export async function pausedBy(runId: string): Promise<{ by: string; at: Date } | undefined> {
  const last = await getDb().runEvent.findFirst({ where: { runId, type: { in: ["run.pause-requested", "run.resumed"] } }, orderBy: { seq: "desc" }, select: { type: true, data: true, createdAt: true } });
  if (last?.type !== "run.pause-requested") return undefined;
  const data = JSON.parse(last.data ?? "{}") as { by?: string };
  return { by: data.by ?? "someone", at: last.createdAt };
}

/** A pause point: goes on at once unless a pause was asked for; then waits for resume (or abort). */
async function upgradeGate(ctx: ActionContext): Promise<ActionOutcome> {
  const paused = await pausedBy(ctx.runId);
  if (!paused) return { ok: true, summary: "no pause asked for" };
  const since = Date.now();
  await ctx.wait(`the upgrade to be resumed (paused by ${paused.by})`, { timeoutMs: Math.max(60_000, ctx.planned.timeoutMs - 60_000), intervalMs: 2_000 }, async () =>
    (await pausedBy(ctx.runId)) ? { ok: false, why: "paused" } : { ok: true, value: undefined },
  );
  return { ok: true, summary: `paused by ${paused.by}, resumed after ${((Date.now() - since) / 60_000).toFixed(1)} min` };
}

/** One node's kubelet upgraded, or rolled back when it does not come back Ready (which stops the upgrade). */
async function kubeletUpgrade(ctx: ActionContext): Promise<ActionOutcome> {
  const host = needHost(ctx);
  const to = param(ctx, "to");
  const from = param(ctx, "from");
  const readyTimeoutMs = Number(param(ctx, "readyTimeoutMs"));
  const started = Date.now();
  const node = await readNode(ctx, host.name);
  if (!node) return { ok: false, error: `${host.name} is not registered: it cannot be upgraded in place` };
  if (node.kubeletVersion === to && node.ready) {
    // Done before (a resumed run): its files checked again, its node back in service.
    const up = await pushPlannedFiles(ctx, host);
    if (up.written === 0) {
      const uncordoned = await setUnschedulable(ctx, host.name, false);
      // An attempt stopped between releasing the address and taking part again.
      const rejoined = await moveAddress(ctx, "rejoin-address");
      return { ok: true, summary: [`${host.name} runs kubelet ${to} already${uncordoned ? "; uncordoned" : ""}`, rejoined].filter(Boolean).join("; ") };
    }
  }
  let drained = "";
  let released: string | undefined;
  try {
    drained = await drainNode(ctx, host.name);
    // A master's kubelet restart may restart its API server and etcd: the address leaves first.
    released = await moveAddress(ctx, "release-address");
    await runPlanned(ctx, plannedExec(ctx, "save"));
    for (const e of (ctx.planned.exec ?? []).filter((x) => x.id.startsWith("swap "))) await runPlanned(ctx, e);
    await pushPlannedFiles(ctx, host);
  } catch (err) {
    // Nothing is swapped yet, or the host stopped answering: the node stays cordoned for whoever looks at it.
    await rejoinAfterFailure(ctx);
    return failure(err);
  }
  let reason: string | undefined;
  try {
    await runPlanned(ctx, plannedExec(ctx, "start"));
  } catch (err) {
    reason = `kubelet ${to} did not keep running on ${host.name}: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (!reason) {
    let polls = 0;
    try {
      await ctx.wait(`${host.name} Ready with kubelet ${to}`, { timeoutMs: readyTimeoutMs, intervalMs: 2_000 }, async () => {
        if (polls++ % 5 === 4) await assertAnswers(ctx, host, "while its kubelet restarted");
        const n = await readNode(ctx, host.name);
        if (!n) return { ok: false, why: `${host.name} is not registered` };
        if (n.kubeletVersion !== to) return { ok: false, why: `${host.name} reports kubelet ${n.kubeletVersion}` };
        return n.ready ? { ok: true, value: undefined } : { ok: false, why: `${host.name} ${n.why}` };
      });
      // A master's kubelet may restart its static and self-hosted control-plane containers: the next
      // node waits until this master serves again, so the API address never lands on a half-started one.
      if (host.role === "master") await controlPlaneBack(ctx, host);
    } catch (err) {
      reason = err instanceof Error ? err.message : String(err);
    }
  }
  if (reason) return rollback(ctx, reason, from);
  const rejoined = await moveAddress(ctx, "rejoin-address");
  await setUnschedulable(ctx, host.name, false);
  const address = [released, rejoined].filter(Boolean).join(", ");
  return { ok: true, summary: `${from} → ${to} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${drained}; kubelet swapped and Ready; uncordoned${address ? `; ${address}` : ""}`, data: { upgradeS: (Date.now() - started) / 1000 } };
}

/** This master's API server answers /readyz three polls in a row (its etcd member with it), then every master's API server is Ready. */
async function controlPlaneBack(ctx: ActionContext, host: EngineHost): Promise<void> {
  let streak = 0;
  await ctx.wait(`${host.name}'s API server ready (its /readyz, with its etcd member, three times in a row)`, { timeoutMs: 4 * 60_000, intervalMs: 2_000 }, async () => {
    const code = textOf(await runPlanned(ctx, plannedExec(ctx, "apiserver-ready"), { quiet: true, timeoutMs: 20_000 })).trim().split("\n")[0] ?? "";
    streak = code === "200" ? streak + 1 : 0;
    return streak >= 3 ? { ok: true, value: undefined } : { ok: false, why: code === "200" ? `answered ${streak} time${streak === 1 ? "" : "s"} in a row` : `/readyz answers ${code === "000" ? "nothing" : `HTTP ${code}`}` };
  });
  await waitApiServers(ctx, undefined, 4 * 60_000);
}

async function rollback(ctx: ActionContext, reason: string, from: string): Promise<ActionOutcome> {
  const host = needHost(ctx);
  const journal = await neededLines(ctx, "journal");
  try {
    const r = await runPlanned(ctx, plannedExec(ctx, "rollback"));
    let version = "";
    await ctx.wait(`${host.name} Ready again with its previous kubelet`, { timeoutMs: 3 * 60_000, intervalMs: 2_000 }, async () => {
      const n = await readNode(ctx, host.name);
      if (!n?.ready || n.kubeletVersion === param(ctx, "to")) return { ok: false, why: n ? `${host.name} ${n.ready ? `reports ${n.kubeletVersion}` : n.why}` : "not registered" };
      version = n.kubeletVersion;
      return { ok: true, value: undefined };
    });
    await setUnschedulable(ctx, host.name, false);
    await rejoinAfterFailure(ctx);
    return {
      ok: false,
      error: `${reason}; rolled back (${r.stdout.toString("utf8").trim().split("\n").pop() ?? ""}): ${host.name} is Ready with kubelet ${version || from} and uncordoned; the upgrade stops here`,
      hint: "read the kubelet's journal below; fix the cause, then retry the run: it goes on from this node",
      data: { journal, rolledBack: true },
    };
  } catch (err) {
    await rejoinAfterFailure(ctx);
    return { ok: false, error: `${reason}; the rollback failed too: ${err instanceof Error ? err.message : String(err)} (${host.name} stays cordoned)`, data: { journal } };
  }
}

export const upgradeActions: Record<string, Action> = {
  "upgrade-preflight": upgradePreflight,
  "upgrade-check": upgradeCheck,
  "etcd-upgrade": etcdUpgrade,
  "upgrade-gate": upgradeGate,
  "kubelet-upgrade": kubeletUpgrade,
};
