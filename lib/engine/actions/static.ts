import "server-only";
// A static control plane on a master (controlPlane: static): its secrets and static pods, then the
// wait until the kubelet runs them Running and Ready (their mirror pods, through the API).
import { failure, plannedFiles } from "./bootstrap";
import { CONTROL_PLANE_COMPONENTS, podLine, podReady, type PodLike } from "./kube";
import { needHost, type Action } from "./types";

export const staticActions: Record<string, Action> = {
  async "static-control-plane"(ctx) {
    const host = needHost(ctx);
    try {
      const files = plannedFiles(ctx);
      const up = await ctx.executor.upload(host.target, files, { step: ctx.planned.key, signal: ctx.signal });
      const started = Date.now();
      await ctx.wait(`the static control plane of ${host.name} Running and Ready`, { timeoutMs: 8 * 60_000, intervalMs: 2_000 }, async () => {
        const list = await ctx.resources.api().getJson<{ items: PodLike[] }>(`/api/v1/namespaces/kube-system/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${host.name}`)}`, ctx.signal);
        const pods = list?.items ?? [];
        const missing = CONTROL_PLANE_COMPONENTS.filter((c) => !pods.some((p) => p.metadata?.name === `${c}-${host.name}` && podReady(p)));
        if (!missing.length) return { ok: true, value: undefined };
        const seen = pods.filter((p) => missing.some((m) => p.metadata?.name === `${m}-${host.name}`)).map(podLine);
        return { ok: false, why: `not Running and Ready yet: ${missing.join(", ")}${seen.length ? ` (seen: ${seen.join("; ")})` : ""}` };
      });
      return { ok: true, summary: `${up.written} of ${files.length} files changed; control plane Running and Ready after ${((Date.now() - started) / 1000).toFixed(1)} s` };
    } catch (err) {
      return failure(err);
    }
  },
};
