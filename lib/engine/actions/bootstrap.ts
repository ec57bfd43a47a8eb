import "server-only";
// Phases 3–10 of a bootstrap, and reset. Each action gathers facts, compares and acts only when needed,
// so a resumed run can repeat a step that was in flight without applying anything twice.
import * as k8s from "@kubernetes/client-node";
import YAML from "yaml";
import { selfHostedObjectsInOrder } from "../../assets/render";
import type { K8sObject } from "../../assets/yaml-out";
import { getDb } from "../../db/client";
import { isSshError, shellScript, type ExecResult } from "../../ssh";
import { apiMessage } from "../cluster-api";
import { binaryDownloads, checkpointFiles, downloadArgs, bootstrapLeftovers, controlPlaneFiles, kubeletFiles, resetPaths, type HostFile } from "../host-files";
import type { EngineHost } from "../targets";
import { CHECKPOINT_ENABLE_SCRIPT, DOWNLOAD_SCRIPT, JOURNAL_SCRIPT, KUBELET_START_SCRIPT, LOCKED_EXIT, PACKAGES_SCRIPT, PRESENT_SCRIPT, REMOVE_SCRIPT, RESET_SCRIPT } from "./host-scripts";
import { CONTROL_PLANE_COMPONENTS, controlPlaneMissing, isMirrorPod, nodeReady, podLine, podReady, rolePatch, type NodeLike, type PodLike } from "./kube";
import { packagePairs } from "./preflight";
import { needHost, WaitAbandoned, type Action, type ActionContext, type ActionOutcome } from "./types";

const API_WAIT_MS = 5 * 60_000;
/** How long phase 5 watches a started kubelet for a crash loop (seconds). */
const KUBELET_WATCH_S = 5;

/**
 * Runs one of the locked host scripts. A host locked by a run this dashboard knows to be over is taken
 * over; any other holder is refused with what to do about it.
 */
export async function runLocked(ctx: ActionContext, script: string, args: string[], opts: { timeoutMs?: number; quiet?: boolean } = {}): Promise<ExecResult> {
  const host = needHost(ctx);
  const exec = (takeover: string) =>
    ctx.executor.run(host.target, shellScript(script, [ctx.runId, takeover, ...args], "bootdeck"), { step: ctx.planned.key, signal: ctx.signal, timeoutMs: opts.timeoutMs ?? ctx.planned.timeoutMs, quiet: opts.quiet, allowFailure: true });
  let r = await exec("");
  if (r.exitCode === LOCKED_EXIT) {
    const holder = r.stderrTail.join("\n").match(/bootdeck-locked-by (\S+)/)?.[1] ?? "";
    const other = holder ? await getDb().run.findUnique({ where: { id: holder }, select: { status: true } }) : null;
    if (other && !["running", "planned"].includes(other.status)) r = await exec(holder);
    else
      throw new Error(
        other
          ? `${host.name} is locked by run ${holder}, which is ${other.status}: wait for it or cancel it`
          : `${host.name} is locked by run ${holder || "(unknown)"}, which this dashboard does not know (another Bootdeck?); if nothing else manages the host, remove /var/lib/bootdeck/run.lock on it`,
      );
  }
  if (r.exitCode !== 0) {
    const tail = r.stderrTail.filter((l) => !l.startsWith("journal: ")).slice(-6).join("; ");
    const err = new Error(`${ctx.planned.title} failed on ${host.name} (exit ${r.exitCode})${tail ? `: ${tail}` : ""}`);
    (err as Error & { exitCode?: number; journal?: string[] }).exitCode = r.exitCode;
    (err as Error & { journal?: string[] }).journal = r.stderrTail.filter((l) => l.startsWith("journal: ")).map((l) => l.slice(9));
    throw err;
  }
  return r;
}

/** The kubelet's journal tail, for a failure's record (best effort). */
async function journalTail(ctx: ActionContext, lines = 60): Promise<string[]> {
  try {
    const r = await ctx.executor.run(needHost(ctx).target, shellScript(JOURNAL_SCRIPT, [String(lines)], "bootdeck-journal"), { step: ctx.planned.key, quiet: true, timeoutMs: 15_000 });
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

export function fileSpecs(ctx: ActionContext, files: HostFile[]) {
  return files.map((f) => ({ path: f.path, content: ctx.resources.asset(f.asset), mode: f.mode }));
}


async function listNodes(ctx: ActionContext): Promise<NodeLike[]> {
  const core = await ctx.resources.api().core();
  return (await core.listNode()).items as NodeLike[];
}

async function listPods(ctx: ActionContext): Promise<PodLike[]> {
  const core = await ctx.resources.api().core();
  return (await core.listPodForAllNamespaces()).items as PodLike[];
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

/** Every object of the rendered self-hosted manifests, in the order they must be created. */
export function selfHostedObjects(ctx: Pick<ActionContext, "resources">): { path: string; object: K8sObject }[] {
  const files = ctx.resources.assetPaths
    .filter((p) => p.startsWith("manifests/"))
    .map((path) => ({ path, objects: YAML.parseAllDocuments(ctx.resources.asset(path)).map((d) => d.toJSON() as K8sObject).filter((o) => o && o.kind) }));
  return selfHostedObjectsInOrder(files);
}

const objectName = (o: K8sObject) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;

export const bootstrapActions: Record<string, Action> = {
  /** Phase 3: install the kubelet's host packages that are missing. */
  async packages(ctx) {
    try {
      const r = await runLocked(ctx, PACKAGES_SCRIPT, packagePairs(), { timeoutMs: ctx.planned.timeoutMs });
      const out = r.stdout.toString("utf8");
      return { ok: true, summary: out.includes("bootdeck-packages present") ? "all host packages present" : `installed ${out.match(/installing:(.*)/)?.[1]?.trim() ?? "missing packages"}` };
    } catch (err) {
      return failure(err);
    }
  },

  /** Phase 4: kubelet (or hyperkube) and kubectl from the mirror, checksum-verified, executable. */
  async binaries(ctx) {
    const done: string[] = [];
    try {
      for (const b of binaryDownloads(ctx.resources.definition)) {
        const r = await runLocked(ctx, DOWNLOAD_SCRIPT, downloadArgs(b));
        done.push(`${b.dest} ${r.stdout.toString("utf8").includes("present") ? "already in place" : "installed"}`);
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
      const files = kubeletFiles(ctx.resources.caps, { name: host.name, role: host.role });
      const up = await ctx.executor.upload(host.target, fileSpecs(ctx, files), { step: ctx.planned.key, signal: ctx.signal });
      const r = await runLocked(ctx, KUBELET_START_SCRIPT, [up.written > 0 ? "restart" : "keep", String(KUBELET_WATCH_S)]);
      const state = r.stdout.toString("utf8").match(/bootdeck-kubelet (.*)/)?.[1] ?? "";
      return { ok: true, summary: `${up.written} of ${files.length} files changed; kubelet ${state}`, data: { filesWritten: up.written } };
    } catch (err) {
      const journal = (err as { journal?: string[] }).journal?.length ? undefined : await journalTail(ctx);
      return failure(err, journal ? { journal } : {});
    }
  },

  /** Phase 6: the bootstrap control plane's secrets and static pods on the first master; wait for the API. */
  async "control-plane"(ctx) {
    const host = needHost(ctx);
    try {
      const files = controlPlaneFiles(ctx.resources.assetPaths);
      const up = await ctx.executor.upload(host.target, fileSpecs(ctx, files), { step: ctx.planned.key, signal: ctx.signal });
      const started = Date.now();
      await waitForApi(ctx, `kube-apiserver (healthz, kube-system) at ${ctx.resources.api().endpoint} via ${host.name}`);
      return { ok: true, summary: `${up.written} of ${files.length} files changed; API healthy after ${((Date.now() - started) / 1000).toFixed(1)} s` };
    } catch (err) {
      return failure(err, { journal: await journalTail(ctx) });
    }
  },

  /** Phase 7: create the self-hosted objects (Namespaces, CRDs until served, then the rest), skipping those present. */
  async "self-hosted"(ctx) {
    const objects = selfHostedObjects(ctx);
    const client = await ctx.resources.api().objects();
    let created = 0;
    let present = 0;
    let crdsPending: string[] = [];
    // Kinds in order (Namespaces, CRDs, RBAC, …); the objects of one kind go in parallel. Creating is
    // the check: 409 means the object is there already (a resumed step), so nothing is applied twice.
    // The bootstrap controller-manager must be working first (it makes service accounts and, before
    // 1.24, their tokens; pods created before that get none): kube-system's default account shows it.
    await waitForTokens(ctx, [{ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace: "kube-system" } }]);
    const groups: K8sObject[][] = [];
    for (const { object } of objects) {
      const last = groups[groups.length - 1];
      if (last && last[0]?.kind === object.kind) last.push(object);
      else groups.push([object]);
    }
    for (const group of groups) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const kind = group[0]?.kind;
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
      const results = await Promise.all(
        group.map(async (object) => {
          try {
            await client.create(object as k8s.KubernetesObject);
            if (object.kind === "CustomResourceDefinition") crdsPending.push(object.metadata.name);
            return "created" as const;
          } catch (e) {
            if (e instanceof k8s.ApiException && e.code === 409) return "present" as const;
            return new Error(`creating ${objectName(object)}: ${describeApiError(e)}`);
          }
        }),
      );
      const error = results.find((r): r is Error => r instanceof Error);
      if (error) return failure(error);
      created += results.filter((r) => r === "created").length;
      present += results.filter((r) => r === "present").length;
      // Before 1.24 a pod gets its service account's token only if the token controller has issued it
      // (the Topsail guide's flannel without a token): workloads wait until every service account has one.
      if (kind === "ServiceAccount" && ctx.resources.caps.legacyServiceAccountTokens) await waitForTokens(ctx, group);
    }
    // The scheduler places control-plane pods by the master role; the first master gets it now.
    const first = ctx.resources.firstMaster.name;
    await setRole(ctx, first, "master");
    return { ok: true, summary: `${created} objects created, ${present} already present (of ${objects.length}); ${first} labelled as master` };
  },

  /**
   * Phase 8: wait for the self-hosted control plane (Running and Ready), every registered node Ready,
   * then remove the bootstrap control plane and check the self-hosted API server answers with the same
   * objects. The gap — how long the API did not answer — is measured and reported.
   */
  async pivot(ctx) {
    const first = ctx.resources.firstMaster;
    const api = ctx.resources.api();
    const marker = `bootdeck-pivot-${ctx.runId.slice(4).toLowerCase().replace(/[^a-z0-9-]/g, "")}`;
    try {
      const leftovers = bootstrapLeftovers(ctx.resources.assetPaths);
      // Whether an earlier attempt already removed the bootstrap control plane is read from the host
      // (its manifests), never from the API: a mirror pod can lag behind a kubelet's registration, and
      // removing the bootstrap control plane before the self-hosted one started kills the cluster.
      const probe = await ctx.executor.run(first.target, shellScript(PRESENT_SCRIPT, leftovers, "bootdeck-present"), { step: ctx.planned.key, signal: ctx.signal, quiet: true, timeoutMs: 30_000 });
      const bootstrapGone = !probe.stdout.toString("utf8").includes("present");
      if (!bootstrapGone) {
        await ctx.wait(`self-hosted control plane started (${CONTROL_PLANE_COMPONENTS.join(", ")}) and ${first.name} Ready`, { timeoutMs: 8 * 60_000, intervalMs: 2_000 }, async () => {
          const pods = await listPods(ctx);
          // Sharing the port, the self-hosted API server is Ready before the bootstrap one leaves.
          const missing = controlPlaneMissing(pods, CONTROL_PLANE_COMPONENTS, { beforePivot: !ctx.resources.caps.apiserverPortSharing });
          if (missing.length) {
            const seen = pods.filter((p) => missing.some((m) => (p.metadata?.name ?? "").startsWith(`${m}-`))).map(podLine);
            return { ok: false, why: `not yet Running and Ready: ${missing.join(", ")}${seen.length ? ` (seen: ${seen.join("; ")})` : ""}` };
          }
          const node = (await listNodes(ctx)).find((n) => n.metadata?.name === first.name);
          const ready = node ? nodeReady(node) : { ready: false, why: "not registered" };
          if (!ready.ready) return { ok: false, why: `${first.name} ${ready.why} — is the pod network (CNI) up?` };
          return { ok: true, value: undefined };
        });
        // A marker object written through the bootstrap API server must be read back through the self-hosted one.
        const put = await api.request(`/api/v1/namespaces/kube-system/configmaps`, { method: "POST", body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: marker }, data: { run: ctx.runId } } });
        if (put.status !== 201 && put.status !== 409) throw new Error(`writing the pivot marker: HTTP ${put.status} ${apiMessage(put.body)}`);
      }
      const rm = await runLocked({ ...ctx, host: first }, REMOVE_SCRIPT, leftovers);
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
        if (missing.length) return { ok: false, why: `waiting for ${missing.join(", ")} to be Running and Ready again` };
        const cm = await api.request(`/api/v1/namespaces/kube-system/configmaps/${marker}`, { timeoutMs: 3_000 });
        if (cm.status === 404 && bootstrapGone) return { ok: true, value: undefined }; // resumed after the marker was removed
        if (cm.status !== 200) return { ok: false, why: `the pivot marker is not readable (HTTP ${cm.status})` };
        return { ok: true, value: undefined };
      });
      await api.request(`/api/v1/namespaces/kube-system/configmaps/${marker}`, { method: "DELETE" }).catch(() => undefined);
      const checkpoint = await installCheckpoint({ ...ctx, host: first });
      const gapS = firstDown && lastDown ? (lastDown - firstDown) / 1000 : 0;
      return { ok: true, summary: `self-hosted control plane took over ${((Date.now() - removedAt) / 1000).toFixed(1)} s after the bootstrap one was removed; API gap ${gapS.toFixed(1)} s${checkpoint}`, data: { apiGapS: gapS } };
    } catch (err) {
      return failure(err);
    }
  },

  /** Phase 9: the host's node registered and Ready (its kubelet joined with the bootstrap token), then its role. */
  async join(ctx) {
    const host = needHost(ctx);
    let polls = 0;
    try {
      await ctx.wait(`${host.name} to register and be Ready`, { timeoutMs: 5 * 60_000, intervalMs: 2_000 }, async () => {
        // Every 10 s, the host itself: a host that went away mid-join fails now, not at the deadline.
        if (polls++ % 5 === 4) await assertReachable(ctx, host);
        const node = (await listNodes(ctx)).find((n) => n.metadata?.name === host.name);
        if (!node) return { ok: false, why: `${host.name} has not registered (is its kubelet running and can it reach ${ctx.resources.api().endpoint}?)` };
        const r = nodeReady(node);
        return r.ready ? { ok: true, value: undefined } : { ok: false, why: `${host.name} ${r.why}` };
      });
      const patched = await setRole(ctx, host.name, host.role);
      if (host.role === "master") {
        await ctx.wait(`the control plane on ${host.name} Running and Ready`, { timeoutMs: 5 * 60_000, intervalMs: 2_000 }, async () => {
          const pods = (await listPods(ctx)).filter((p) => p.spec?.nodeName === host.name);
          const missing = controlPlaneMissing(pods, ["kube-apiserver"]);
          return missing.length ? { ok: false, why: `${missing.join(", ")} not Running and Ready on ${host.name}` } : { ok: true, value: undefined };
        });
      }
      const checkpoint = host.role === "master" && host.name !== ctx.resources.firstMaster.name ? await installCheckpoint(ctx) : "";
      return { ok: true, summary: `${host.name} Ready${patched ? `, role ${host.role} set` : ""}${checkpoint}` };
    } catch (err) {
      return failure(err, { journal: await journalTail(ctx) });
    }
  },

  /** Phase 10: every node Ready and every pod Running and Ready; a summary. */
  async verify(ctx) {
    let summary = "";
    const joinSteps = await getDb().step.findMany({ where: { runId: ctx.runId, phase: "join" }, select: { status: true, host: { select: { name: true } } } });
    const joined = joinSteps.length ? joinSteps.filter((s) => s.status === "done").map((s) => s.host?.name ?? "") : ctx.hosts.map((h) => h.name);
    try {
      await ctx.wait("every node Ready and every pod Running and Ready", { timeoutMs: 3 * 60_000, intervalMs: 2_000 }, async () => {
        const [nodes, pods] = await Promise.all([listNodes(ctx), listPods(ctx)]);
        // The hosts this run joined (a host that failed earlier is reported by its own step, not here).
        const expected = joined;
        const notReady = expected.filter((n) => {
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
      return { ok: true, summary };
    } catch (err) {
      return failure(err);
    }
  },

  /** Reset: stop the kubelet and its pods, remove what Bootdeck installed. */
  async reset(ctx) {
    const host = needHost(ctx);
    const paths = resetPaths(ctx.resources.definition, host, ctx.resources.assetPaths);
    try {
      const r = await runLocked(ctx, RESET_SCRIPT, paths);
      // Its Node object goes too (now that no kubelet re-registers it), so that a later join waits for
      // a fresh registration instead of a stale Ready. Best effort: a cluster reset whole has no API.
      let node = "";
      if (ctx.resources.hasAsset("auth/kubeconfig")) {
        try {
          const del = await ctx.resources.api().request(`/api/v1/nodes/${encodeURIComponent(host.name)}`, { method: "DELETE", timeoutMs: 5_000, signal: ctx.signal });
          node = del.status === 200 || del.status === 202 ? "; Node object deleted" : del.status === 404 ? "" : `; Node object not deleted (HTTP ${del.status})`;
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

/** The API server's checkpoint on a master (profiles with a host checkpoint); "" when the profile has none. */
async function installCheckpoint(ctx: ActionContext): Promise<string> {
  const files = checkpointFiles(ctx.resources.caps);
  if (!files.length) return "";
  const host = needHost(ctx);
  const up = await ctx.executor.upload(host.target, fileSpecs(ctx, files), { step: ctx.planned.key, signal: ctx.signal });
  await runLocked(ctx, CHECKPOINT_ENABLE_SCRIPT, [up.written > 0 ? "restart" : "keep"]);
  return `; API server checkpoint on ${host.name} (${up.written} of ${files.length} files changed)`;
}

async function waitForTokens(ctx: ActionContext, accounts: K8sObject[]): Promise<void> {
  await ctx.wait(`service accounts${ctx.resources.caps.legacyServiceAccountTokens ? " and their tokens" : ""} made by the controller-manager (${accounts.map((a) => a.metadata.name).join(", ")})`, { timeoutMs: 3 * 60_000, intervalMs: 1_000 }, async () => {
    for (const a of accounts) {
      const sa = await ctx.resources.api().getJson<{ secrets?: unknown[] }>(`/api/v1/namespaces/${a.metadata.namespace ?? "default"}/serviceaccounts/${a.metadata.name}`, ctx.signal);
      if (!sa) return { ok: false, why: `${a.metadata.namespace}/${a.metadata.name} does not exist yet (is kube-controller-manager running?)` };
      // Token secrets exist only before 1.24; later, tokens are issued per pod.
      if (ctx.resources.caps.legacyServiceAccountTokens && !sa.secrets?.length) return { ok: false, why: `${a.metadata.namespace}/${a.metadata.name} has no token yet (is kube-controller-manager running?)` };
    }
    return { ok: true, value: undefined };
  });
}

/** Ends a wait at once when the host no longer answers over SSH (other errors: keep waiting). */
async function assertReachable(ctx: ActionContext, host: EngineHost): Promise<void> {
  try {
    await ctx.executor.run(host.target, ["true"], { step: ctx.planned.key, quiet: true, timeoutMs: 10_000, signal: ctx.signal });
  } catch (err) {
    if (isSshError(err) && ["unreachable", "timeout", "refused"].includes(err.detail.kind)) throw new WaitAbandoned(`${host.name} stopped answering while it joined: ${err.message}`);
  }
}

/** Gives a node its role's labels and taint through the API (kubelets may not self-label from 1.16). */
async function setRole(ctx: ActionContext, name: string, role: "master" | "worker"): Promise<boolean> {
  const api = ctx.resources.api();
  let patch: Record<string, unknown> | undefined;
  await ctx.wait(`${name} registered, to set its role`, { timeoutMs: 3 * 60_000, intervalMs: 2_000 }, async () => {
    const node = await api.getJson<NodeLike>(`/api/v1/nodes/${encodeURIComponent(name)}`, ctx.signal);
    if (!node) return { ok: false, why: `${name} has not registered yet` };
    patch = rolePatch(node, role, ctx.resources.caps);
    return { ok: true, value: undefined };
  });
  if (!patch) return false;
  const r = await api.request(`/api/v1/nodes/${encodeURIComponent(name)}`, { method: "PATCH", body: patch, contentType: "application/merge-patch+json" });
  if (r.status !== 200) throw new Error(`setting the ${role} role on ${name}: HTTP ${r.status} ${apiMessage(r.body)}`);
  return true;
}

function describeApiError(err: unknown): string {
  if (err instanceof k8s.ApiException) return `HTTP ${err.code} ${typeof err.body === "string" ? apiMessage(err.body) : JSON.stringify(err.body).slice(0, 300)}`;
  return err instanceof Error ? err.message : String(err);
}
