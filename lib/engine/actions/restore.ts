import "server-only";
// The actions of restore and recover runs (plans-dr.ts): the snapshot onto the masters, the planned
// host scripts, the waits for etcd and for the self-hosted control plane, the checkpoints, and a
// verification that proves every node alive after the event (not Ready in a status etcd kept from the
// past). The temporary control plane and the pivot are the bootstrap's own actions.
import { fetchAndOpenBackup } from "../../backups/remote";
import { getBackupOrThrow } from "../../backups/store";
import { getDb } from "../../db/client";
import type { EngineHost } from "../targets";
import { apiMessage } from "../cluster-api";
import { failure, installCheckpoint, plannedFiles, runLocked, runPlanned } from "./bootstrap";
import { textOf } from "./day2-kube";
import { parseEtcdHealth } from "./dr-scripts";
import { isMirrorPod, nodeReady, podLine, podReady, type NodeLike, type PodLike } from "./kube";
import { needHost, plannedExec, plannedExecs, type Action, type ActionContext } from "./types";


const lastLine = (text: string) => text.trim().split("\n").at(-1) ?? "";

type Lease = { metadata?: { name?: string }; spec?: { renewTime?: string } };

async function waitForApiHealthy(ctx: ActionContext, timeoutMs: number): Promise<void> {
  const api = ctx.resources.api();
  await ctx.wait(`the API at ${api.endpoint} (healthz, kube-system)`, { timeoutMs, intervalMs: 2_000 }, async () => {
    const health = await api.request("/healthz", { timeoutMs: 5_000, signal: ctx.signal });
    if (health.status !== 200) return { ok: false, why: `/healthz answered ${health.status} ${health.body.slice(0, 120)}` };
    const ns = await api.request("/api/v1/namespaces/kube-system", { timeoutMs: 5_000, signal: ctx.signal });
    return ns.status === 200 ? { ok: true, value: undefined } : { ok: false, why: `kube-system not readable (HTTP ${ns.status} ${apiMessage(ns.body)})` };
  });
}

export const restoreActions: Record<string, Action> = {
  /** The stored snapshot onto a master, checked there, unless the master holds it already. */
  async "snapshot-upload"(ctx) {
    const host = needHost(ctx);
    try {
      const backupId = ctx.planned.params?.backupId ?? "";
      const { clusterId } = await getDb().run.findUniqueOrThrow({ where: { id: ctx.runId }, select: { clusterId: true } });
      const backup = await getBackupOrThrow({ clusterId, backupId });
      const have = textOf(await runPlanned(ctx, plannedExec(ctx, "probe"), { quiet: true })).trim();
      if (have === backup.sha256) return { ok: true, summary: `${host.name} holds backup ${backupId} already (sha256 ${backup.sha256.slice(0, 12)}…)` };
      // A cluster taken over from its bucket has its snapshots there: fetched into the data directory once.
      const opened = await fetchAndOpenBackup(backup, (message) => void ctx.emit("step.progress", { key: ctx.planned.key, message }).catch(() => undefined));
      const started = Date.now();
      const out = textOf(await runLocked(ctx, plannedExec(ctx, "upload"), { stdin: opened.stream }));
      return { ok: true, summary: `${lastLine(out)} to ${host.name} in ${((Date.now() - started) / 1000).toFixed(1)} s (sha256 ${backup.sha256.slice(0, 12)}… checked there)` };
    } catch (err) {
      return failure(err);
    }
  },

  /** The step's planned files, then its planned commands in order; its summary is the last one's last line. */
  async "host-script"(ctx) {
    try {
      // Files the host needs before its scripts run (a static control plane's encryption configuration).
      if (ctx.planned.files.length) await ctx.executor.upload(needHost(ctx).target, plannedFiles(ctx), { step: ctx.planned.key, signal: ctx.signal });
      let out = "";
      for (const e of ctx.planned.exec ?? []) if (e.when !== "needed") out = textOf(await runLocked(ctx, e));
      return { ok: true, summary: lastLine(out) || "done" };
    } catch (err) {
      return failure(err);
    }
  },

  /** Waits until every etcd member answers healthy (and, after a restore, at the snapshot's revision or later). */
  async "etcd-healthy"(ctx) {
    const want = Number(ctx.planned.params?.members ?? "1");
    const minRevision = ctx.planned.params?.minRevision;
    let summary = "";
    try {
      await ctx.wait(`${want} healthy etcd member${want === 1 ? "" : "s"}${minRevision ? ` at revision ${minRevision} or later` : ""}`, { timeoutMs: 8 * 60_000, intervalMs: 3_000 }, async () => {
        const why: string[] = [];
        for (const e of plannedExecs(ctx, "status")) {
          let text: string;
          try {
            text = textOf(await runPlanned(ctx, e, { quiet: true, timeoutMs: 30_000 }));
          } catch (err) {
            why.push(`${e.host}: ${err instanceof Error ? err.message : String(err)}`);
            continue;
          }
          const h = parseEtcdHealth(text);
          const healthy = h.members.filter((m) => m.healthy);
          if (healthy.length < want) {
            why.push(`${e.host} sees ${healthy.length} of ${want} members healthy${h.members.filter((m) => !m.healthy).map((m) => ` (${m.endpoint}: ${m.error ?? "unhealthy"})`).join("")}${h.errors.length ? ` (${h.errors.join("; ")})` : ""}`);
            continue;
          }
          const behind = minRevision ? healthy.filter((m) => !m.revision || BigInt(m.revision) < BigInt(minRevision)) : [];
          if (behind.length) {
            why.push(`${behind.map((m) => `${m.endpoint} at revision ${m.revision ?? "?"}`).join(", ")}, below the snapshot's ${minRevision}`);
            continue;
          }
          summary = `${healthy.length} members healthy (asked on ${e.host})${minRevision ? `, revision ${healthy.map((m) => m.revision).join("/")} (the snapshot's was ${minRevision})` : ""}`;
          return { ok: true, value: undefined };
        }
        return { ok: false, why: why.join("; ") };
      });
      return { ok: true, summary };
    } catch (err) {
      return { ...failure(err), hint: "etcd has no healthy quorum: look at the etcd pods on the masters (crictl ps -a --name etcd; crictl logs); when its data is lost, restore a backup" };
    }
  },

  /** Waits (on the hosts, not in the API, whose pod statuses may be etcd's past) until the self-hosted control plane's containers run. */
  async "self-hosted-up"(ctx) {
    let summary = "";
    try {
      await ctx.wait("the self-hosted kube-apiserver on every master, a kube-controller-manager and a kube-scheduler", { timeoutMs: 10 * 60_000, intervalMs: 3_000 }, async () => {
        const counts = await Promise.all(
          plannedExecs(ctx, "running").map(async (e) => {
            const text = await runPlanned(ctx, e, { quiet: true, timeoutMs: 30_000 }).then(textOf, () => "");
            return { host: e.host ?? "", n: Object.fromEntries(text.split("\n").filter((l) => l.includes("=")).map((l) => [l.split("=")[0], Number(l.split("=")[1])])) as Record<string, number> };
          }),
        );
        const noApi = counts.filter((c) => !(c.n["kube-apiserver"]! > 0)).map((c) => c.host);
        const total = (app: string) => counts.reduce((n, c) => n + (c.n[app] ?? 0), 0);
        const missing = [...(noApi.length ? [`kube-apiserver on ${noApi.join(", ")}`] : []), ...["kube-controller-manager", "kube-scheduler"].filter((a) => total(a) === 0)];
        if (missing.length) return { ok: false, why: `not running yet: ${missing.join(", ")}` };
        summary = `running: ${counts.map((c) => `${c.host} ${Object.entries(c.n).filter(([, v]) => v > 0).map(([k]) => k.replace("kube-", "")).join("+")}`).join("; ")}`;
        return { ok: true, value: undefined };
      });
      return { ok: true, summary };
    } catch (err) {
      return failure(err);
    }
  },

  /** The API server checkpoint on a master: its planned files, then the planned enable command (the watchdog restarted when they changed). */
  async checkpoint(ctx) {
    try {
      const done = await installCheckpoint(ctx, needHost(ctx));
      return { ok: true, summary: done.replace(/^; /, "") || "no checkpoint planned" };
    } catch (err) {
      return failure(err);
    }
  },

  /** A static control plane: the API answers again. */
  async "api-healthy"(ctx) {
    const started = Date.now();
    try {
      await waitForApiHealthy(ctx, 8 * 60_000);
      return { ok: true, summary: `API healthy after ${((Date.now() - started) / 1000).toFixed(1)} s` };
    } catch (err) {
      return failure(err);
    }
  },

  /**
   * Every node alive after the event: its Lease renewed since this step began (a restored etcd says
   * Ready from the past; a kubelet renewing its lease is here now), Ready, and every pod Running and
   * Ready — on the masters, whose pods this run restarted, Ready since the run began.
   */
  async "verify-recovered"(ctx) {
    const begun = Date.now();
    const run = await getDb().run.findUniqueOrThrow({ where: { id: ctx.runId }, select: { startedAt: true } });
    const since = (run.startedAt ?? new Date(begun)).getTime();
    const restarted = new Set((ctx.planned.params?.restartedHosts ?? "").split(",").filter(Boolean));
    const api = ctx.resources.api();
    let summary = "";
    try {
      await ctx.wait("every node's kubelet renewing its lease, Ready, and every pod Running and Ready", { timeoutMs: 5 * 60_000, intervalMs: 2_000 }, async () => {
        const [nodes, pods, leases] = await Promise.all([
          api.getJson<{ items: NodeLike[] }>("/api/v1/nodes", ctx.signal),
          api.getJson<{ items: PodLike[] }>("/api/v1/pods", ctx.signal),
          api.getJson<{ items: Lease[] }>("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", ctx.signal),
        ]);
        const renewed = new Map((leases?.items ?? []).map((l) => [l.metadata?.name ?? "", Date.parse(l.spec?.renewTime ?? "") || 0]));
        const names = ctx.hosts.map((h: EngineHost) => h.name);
        const stale = names.filter((n) => (renewed.get(n) ?? 0) <= begun);
        if (stale.length) return { ok: false, why: `no lease renewed since this step began: ${stale.join(", ")}` };
        const notReady = names.filter((n) => {
          const node = nodes?.items.find((x) => x.metadata?.name === n);
          return !node || !nodeReady(node).ready;
        });
        if (notReady.length) return { ok: false, why: `not Ready: ${notReady.join(", ")}` };
        const all = pods?.items ?? [];
        const bad = all.filter((p) => !podReady(p) && p.status?.phase !== "Succeeded");
        if (bad.length) return { ok: false, why: `pods not Running and Ready: ${bad.slice(0, 6).map(podLine).join("; ")}${bad.length > 6 ? ` and ${bad.length - 6} more` : ""}` };
        const old = all.filter((p) => restarted.has(p.spec?.nodeName ?? "") && p.status?.phase !== "Succeeded" && (Date.parse((p.status?.conditions?.find((c) => c.type === "Ready") as { lastTransitionTime?: string } | undefined)?.lastTransitionTime ?? "") || 0) < since);
        if (old.length) return { ok: false, why: `pods whose status is from before the run (their kubelet has not reported yet): ${old.slice(0, 6).map(podLine).join("; ")}` };
        summary = `${nodes?.items.length ?? 0} nodes Ready with their leases renewed, ${all.length} pods Running and Ready (${all.filter(isMirrorPod).length} static)`;
        return { ok: true, value: undefined };
      });
      return { ok: true, summary };
    } catch (err) {
      return failure(err);
    }
  },
};
